/**
 * The tool runner's one job per turn: check the calls the model made against their tools'
 * JSON Schemas, execute the valid ones, and turn each result (or error) into a tool message the
 * template can render. Every call that was not executed, and every execute that threw, is also
 * reported to the caller as a {@link ToolCallError}.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import {
  type StandardResult,
  type StandardSchemaLike,
  isStandardSchema,
  parametersJsonSchema,
} from "../chat/tool-schema.js";
import { ToolwrightError } from "../errors.js";
import type { JsonSchema, ToolCall, ToolMessage } from "../types.js";
import { closedSchema } from "./closed-schema.js";
import { schemaValidator } from "./schema-validators.js";
import type { ChatTool, ToolCallError } from "./types.js";

function resultText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Arguments are checked against the schema closed as the grammar closes it: an argument the schema
 * does not declare (which the parser keeps, read from unconstrained output) is reported, never run.
 */
function validatorOf(schema: JsonSchema | undefined): ValidateFunction | Error | null {
  return schemaValidator(schema, "closed", closedSchema);
}

function describeErrors(errors: readonly ErrorObject[]): string {
  return errors
    .slice(0, 8)
    .map(
      (e) =>
        `${e.instancePath === "" ? "arguments" : `arguments${e.instancePath}`} ` +
        `${e.message ?? "is invalid"}` +
        `${e.keyword === "additionalProperties" ? ` (${JSON.stringify(e.params.additionalProperty)})` : ""}`,
    )
    .join("; ");
}

/**
 * Parses and checks one call's arguments against its tool's `parameters`.
 *
 * @example
 * checkToolArguments({ id: "c1", type: "function", function: { name: "f", arguments: '{"n":"x"}' } }, tool);
 * // { ok: false, error: ToolwrightError TOOLWRIGHT_TOOL_ARGUMENTS "arguments/n must be integer" }
 */
export function checkToolArguments(
  call: ToolCall,
  tool: ChatTool,
): { ok: true; args: unknown } | { ok: false; error: ToolwrightError; details?: ErrorObject[] } {
  const name = JSON.stringify(call.function.name);
  if (call.incomplete) {
    return {
      ok: false,
      error: new ToolwrightError(
        `tool call ${name} was cut off before its arguments were complete; it was not executed`,
        "TOOLWRIGHT_TOOL_INCOMPLETE",
      ),
    };
  }
  let args: unknown;
  try {
    args = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
  } catch (e) {
    return {
      ok: false,
      error: new ToolwrightError(
        `the arguments of tool call ${name} are not valid JSON (${(e as Error).message})`,
        "TOOLWRIGHT_TOOL_ARGUMENTS",
        { cause: e },
      ),
    };
  }
  const params = tool.function.parameters;
  // A schema library's own validator checks its arguments (in executeToolCalls: it may be async);
  // one with only a JSON Schema export (Standard JSON Schema needs no validate) is checked by ajv.
  if (isStandardSchema(params) && typeof params["~standard"].validate === "function") return { ok: true, args };
  const validate = validatorOf(isStandardSchema(params) ? parametersJsonSchema(params, "parameters") : params);
  if (validate instanceof Error) {
    return {
      ok: false,
      error: new ToolwrightError(
        `the parameters schema of tool ${name} cannot be used to check its arguments: ${validate.message}`,
        "TOOLWRIGHT_TOOL_ARGUMENTS",
        { cause: validate },
      ),
    };
  }
  if (validate && !validate(args)) {
    const details = [...(validate.errors ?? [])];
    return {
      ok: false,
      error: new ToolwrightError(
        `the arguments of tool call ${name} do not match its parameters schema: ${describeErrors(details)}`,
        "TOOLWRIGHT_TOOL_ARGUMENTS",
      ),
      details,
    };
  }
  return { ok: true, args };
}

function issuePath(path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined): string {
  return (path ?? []).map((p) => `/${String(typeof p === "object" && p !== null ? p.key : p)}`).join("");
}

/** A schema library's validation of parsed arguments: its output (defaults, transforms applied) or its issues. */
async function standardValidate(
  schema: StandardSchemaLike,
  args: unknown,
  name: string,
): Promise<{ ok: true; value: unknown } | { ok: false; error: ToolwrightError }> {
  let result: StandardResult;
  try {
    result = await schema["~standard"].validate!(args);
  } catch (e) {
    return {
      ok: false,
      error: new ToolwrightError(
        `the ${schema["~standard"].vendor} schema of tool ${JSON.stringify(name)} threw while checking its ` +
          `arguments: ${(e as Error)?.message ?? String(e)}`,
        "TOOLWRIGHT_TOOL_ARGUMENTS",
        { cause: e },
      ),
    };
  }
  if (result.issues) {
    const text = result.issues
      .slice(0, 8)
      .map((i) => `arguments${issuePath(i.path)}: ${i.message}`)
      .join("; ");
    return {
      ok: false,
      error: new ToolwrightError(
        `the arguments of tool call ${JSON.stringify(name)} do not match its parameters schema: ${text}`,
        "TOOLWRIGHT_TOOL_ARGUMENTS",
      ),
    };
  }
  return { ok: true, value: result.value };
}

/** Whether every call names a tool the runner can execute. */
export function canExecuteAll(calls: readonly ToolCall[], tools: readonly ChatTool[]): boolean {
  return (
    calls.length > 0 &&
    calls.every((c) => tools.some((t) => t.function.name === c.function.name && t.execute !== undefined))
  );
}

/** The tool messages of one turn (one per call, in order) and what went wrong. */
export interface ToolRun {
  messages: ToolMessage[];
  errors: ToolCallError[];
}

/**
 * Runs the calls concurrently. A call whose arguments are not JSON or break its tool's schema is
 * not executed; it and a thrown error are returned to the model as the tool result ("Error: ..."),
 * so it can correct itself, and to the caller in `errors`.
 *
 * @example
 * const { messages, errors } = await executeToolCalls(message.tool_calls, tools, signal);
 * // messages: [{ role: "tool", tool_call_id: "abc", name: "get_weather", content: "{\"temp\":21}" }]
 */
export async function executeToolCalls(
  calls: readonly ToolCall[],
  tools: readonly ChatTool[],
  signal: AbortSignal | undefined,
): Promise<ToolRun> {
  const errors: (ToolCallError | undefined)[] = new Array(calls.length);
  const messages = await Promise.all(
    calls.map(async (call, index): Promise<ToolMessage> => {
      const name = call.function.name;
      const tool = tools.find((t) => t.function.name === name);
      let content: string;
      const fail = (kind: ToolCallError["kind"], error: ToolwrightError, details?: ErrorObject[]) => {
        errors[index] = { index, toolCallId: call.id, name, kind, error, ...(details ? { details } : {}) };
        content = `Error: ${error.message}`;
      };
      if (!tool?.execute) {
        fail("unknown_tool", new ToolwrightError(`no tool named ${JSON.stringify(name)}`, "TOOLWRIGHT_TOOL_UNKNOWN"));
        return { role: "tool", tool_call_id: call.id, name, content: content! };
      }
      const checked = checkToolArguments(call, tool);
      if (!checked.ok) {
        fail(call.incomplete ? "incomplete" : "invalid_arguments", checked.error, checked.details);
        return { role: "tool", tool_call_id: call.id, name, content: content! };
      }
      let args = checked.args;
      const params = tool.function.parameters;
      if (isStandardSchema(params) && typeof params["~standard"].validate === "function") {
        const parsed = await standardValidate(params, args, name);
        if (!parsed.ok) {
          fail("invalid_arguments", parsed.error);
          return { role: "tool", tool_call_id: call.id, name, content: content! };
        }
        args = parsed.value;
      }
      try {
        content = resultText(await tool.execute(args, { signal, toolCallId: call.id }));
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        fail(
          "execute_failed",
          new ToolwrightError(`tool ${JSON.stringify(name)} failed: ${message}`, "TOOLWRIGHT_TOOL_FAILED", {
            cause: e,
          }),
        );
        content = `Error: ${message}`;
      }
      return { role: "tool", tool_call_id: call.id, name, content: content! };
    }),
  );
  return { messages, errors: errors.filter((e): e is ToolCallError => e !== undefined) };
}
