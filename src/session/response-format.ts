/**
 * The check of a finished answer against `responseFormat`. The grammar already keeps the answer
 * to its schema, but where a grammar cannot be exact (RELAXATIONS in
 * `grammar/schema/schema-error.ts`: uniqueItems over strings, a large oneOf, ...) it lets
 * through a superset; an answer cut off by maxTokens is not complete JSON either. ajv validates
 * the parsed answer, as the tool runner does for arguments, so the caller learns when the
 * answer does not match.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import { parametersJsonSchema } from "../chat/tool-schema.js";
import { ToolwrightError } from "../errors.js";
import type { AssistantMessage, JsonSchema, ResponseFormat } from "../types.js";
import { schemaValidator } from "./schema-validators.js";

function validatorOf(schema: JsonSchema): ValidateFunction | Error | null {
  return schemaValidator(schema);
}

/** Why an answer does not satisfy the request's `responseFormat` (on `ChatResult.responseFormatError`). */
export interface ResponseFormatError {
  /** Code TOOLWRIGHT_RESPONSE_FORMAT; the message names the first violations. */
  error: ToolwrightError;
  /** The schema violations (ajv's error objects), when the answer is JSON. */
  details?: ErrorObject[];
}

/** The answer's JSON Schema (a schema library's object converted, once per object, as the grammar's is). */
function schemaOf(format: ResponseFormat | undefined): JsonSchema | null {
  if (format === undefined || format.type === "text") return null;
  if (format.type === "json_object")
    return format.schema === undefined
      ? { type: "object" }
      : parametersJsonSchema(format.schema, "responseFormat.schema");
  return parametersJsonSchema(format.json_schema.schema, "responseFormat.json_schema.schema");
}

/** The JSON text of an answer: the content, without the ```json fence a model may write around it. */
function answerText(content: string): string {
  const m = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(content);
  return (m ? m[1]! : content).trim();
}

/**
 * Checks the final answer against the request's `responseFormat`: null when it matches (or no
 * JSON was asked for, or the turn ended in tool calls).
 *
 * @example
 * import { loadModel } from "toolwright";
 * const model = await loadModel("model.gguf");
 * const r = await model.chat({ messages, responseFormat: { type: "json_schema", json_schema: { schema } } });
 * if (r.responseFormatError) console.warn(r.responseFormatError.error.message);
 */
export function checkResponseFormat(
  message: AssistantMessage,
  format: ResponseFormat | undefined,
): ResponseFormatError | null {
  const schema = schemaOf(format);
  if (schema === null || (message.tool_calls?.length ?? 0) > 0) return null;
  const content = typeof message.content === "string" ? message.content : "";
  let value: unknown;
  try {
    value = JSON.parse(answerText(content));
  } catch (e) {
    return {
      error: new ToolwrightError(
        `the answer is not JSON, as responseFormat asks (${(e as Error).message})`,
        "TOOLWRIGHT_RESPONSE_FORMAT",
        { cause: e },
      ),
    };
  }
  const validate = validatorOf(schema);
  if (validate instanceof Error) {
    return {
      error: new ToolwrightError(
        `the responseFormat schema cannot be used to check the answer: ${validate.message}`,
        "TOOLWRIGHT_RESPONSE_FORMAT",
        { cause: validate },
      ),
    };
  }
  if (validate === null || validate(value)) return null;
  const details = [...(validate.errors ?? [])];
  const text = details
    .slice(0, 8)
    .map((d) => `${d.instancePath === "" ? "answer" : `answer${d.instancePath}`} ${d.message ?? "is invalid"}`)
    .join("; ");
  return {
    error: new ToolwrightError(
      `the answer does not match the responseFormat schema: ${text}`,
      "TOOLWRIGHT_RESPONSE_FORMAT",
    ),
    details,
  };
}
