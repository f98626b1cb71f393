/**
 * `defineTool`: a tool in OpenAI's shape from its parts, with the `execute` argument typed by
 * the schema: a JSON Schema literal (inferred as written, no `as const` needed) or a schema
 * library's object such as zod's (its output type; the runner validates with the library).
 */
import { parametersJsonSchema } from "../chat/tool-schema.js";
import { checkKeys, checkObject, checkString, describe, optBoolean } from "../validate/index.js";
import type { JsonSchema } from "../types.js";
import type { StandardSchemaLike } from "../chat/tool-schema.js";
import type { ToolArguments } from "./schema-type.js";
import type { ChatTool, ToolExecuteContext } from "./types.js";

/** What {@link defineTool} takes. */
export interface ToolSpec<P, Result = unknown> {
  name: string;
  description?: string;
  /** JSON Schema of the arguments, or a zod (or other Standard JSON Schema) object. */
  parameters: P;
  /** OpenAI's `function.strict`: the schema exactly, or a SchemaError when it cannot be enforced. */
  strict?: boolean;
  /** Runs a call; its arguments are checked against `parameters` first. */
  execute?: (args: ToolArguments<P>, context: ToolExecuteContext) => Result;
}

const SPEC_KEYS = ["name", "description", "parameters", "strict", "execute"];

/**
 * Makes a tool for `chat()`/`streamChat()`: `{ type: "function", function: { name, description,
 * parameters, strict }, execute }`, with `execute`'s argument typed by `parameters`. Checks the
 * parts now (a TypeError names the part and what was given).
 *
 * @example
 * import { defineTool } from "toolwright";
 * const weather = defineTool({
 *   name: "get_weather",
 *   description: "Current weather in a city",
 *   parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
 *   execute: async ({ city }) => ({ city, temperature: 21 }), // city: string
 * });
 * await model.chat({ messages, tools: [weather] });
 */
export function defineTool<const P extends JsonSchema | StandardSchemaLike, Result = unknown>(
  spec: ToolSpec<P, Result>,
): ChatTool<ToolArguments<P>> {
  if (spec === undefined) throw new TypeError("defineTool: spec must be an object, got undefined");
  const o = checkObject(spec, "defineTool: spec");
  checkKeys(o, SPEC_KEYS, "defineTool: spec");
  checkString(o.name, "defineTool: spec.name");
  if (o.name === "") throw new RangeError("defineTool: spec.name must not be empty");
  if (o.description !== undefined) checkString(o.description, "defineTool: spec.description");
  if (o.parameters === undefined)
    throw new TypeError(
      "defineTool: spec.parameters is missing (a JSON Schema, or a zod or other Standard JSON Schema object)",
    );
  parametersJsonSchema(o.parameters, "defineTool: spec.parameters");
  optBoolean(o.strict, "defineTool: spec.strict");
  if (o.execute !== undefined && typeof o.execute !== "function")
    throw new TypeError(`defineTool: spec.execute must be a function, got ${describe(o.execute)}`);
  const tool: ChatTool<ToolArguments<P>> = {
    type: "function",
    function: {
      name: spec.name,
      ...(spec.description !== undefined ? { description: spec.description } : {}),
      parameters: spec.parameters,
      ...(spec.strict !== undefined ? { strict: spec.strict } : {}),
    },
  };
  if (spec.execute !== undefined) tool.execute = spec.execute;
  return tool;
}
