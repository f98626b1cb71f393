/**
 * The one table of a chat request's options ({@link ChatRequest}): how each is checked, and what
 * it becomes. `normalizeRequest` checks a request against it; `model.chat()`'s table
 * (session/options.ts) takes the rows of the options it shares with a request from here.
 */
import { type OptionRow, checkObject, describe, optBoolean, optInteger } from "../validate/index.js";
import type { JsonSchema, ToolChoice, ToolDefinition } from "../types.js";
import { checkMessageList, kind } from "./message-check.js";
import { checkStrictSchema, checkToolSchema, isStandardSchema, parametersJsonSchema } from "./tool-schema.js";
import type { ChatRequest } from "./types.js";

function checkTools(tools: unknown, at: string): ToolDefinition[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw new TypeError(`${at} must be an array, got ${kind(tools)}`);
  const names = new Set<string>();
  return tools.map((t: unknown, i) => {
    const tool = t as ToolDefinition;
    if (
      tool === null ||
      typeof tool !== "object" ||
      tool.type !== "function" ||
      tool.function === null ||
      typeof tool.function !== "object"
    ) {
      throw new TypeError(
        `${at}[${i}] must be {type: "function", function: {...}}, got ${JSON.stringify(t)?.slice(0, 80)}`,
      );
    }
    const name = tool.function.name;
    if (typeof name !== "string" || name === "")
      throw new TypeError(`${at}[${i}].function.name must be a non-empty string, got ${kind(name)}`);
    if (names.has(name)) throw new RangeError(`${at} has two functions named ${JSON.stringify(name)}`);
    names.add(name);
    const params: unknown = tool.function.parameters;
    const where = `${at}[${i}].function.parameters`;
    if (isStandardSchema(params)) {
      throw new TypeError(
        `${where} is a ${String(params["~standard"].vendor)} schema: the chat layer takes JSON Schema ` +
          `(convert it with parametersJsonSchema(); model.chat() does)`,
      );
    }
    if (params !== undefined && params !== null) parametersJsonSchema(params, where);
    const strict: unknown = tool.function.strict;
    if (strict !== undefined && strict !== null && typeof strict !== "boolean")
      throw new TypeError(`${at}[${i}].function.strict must be a boolean, got ${kind(strict)}`);
    if (params !== undefined && params !== null) checkToolSchema(params as JsonSchema, i, name, strict === true);
    return tool;
  });
}

function jsonSchemaOf(format: unknown, name: string): JsonSchema | null {
  if (format === undefined || format === null) return null;
  if (typeof format !== "object") throw new TypeError(`${name} must be an object, got ${kind(format)}`);
  const f = format as { type?: unknown; json_schema?: { schema?: unknown }; schema?: unknown };
  switch (f.type) {
    case "text":
      return null;
    case "json_object":
      return f.schema === undefined || f.schema === null
        ? { type: "object" }
        : parametersJsonSchema(f.schema, `${name}.schema`);
    case "json_schema": {
      const schema = f.json_schema?.schema;
      const where = `${name}.json_schema.schema`;
      if (schema === undefined || (typeof schema !== "object" && typeof schema !== "boolean") || schema === null) {
        throw new TypeError(`${where} must be a JSON Schema, got ${kind(schema)}`);
      }
      const checked = parametersJsonSchema(schema, where);
      const strict = (f.json_schema as { strict?: unknown }).strict;
      if (strict !== undefined && typeof strict !== "boolean")
        throw new TypeError(`${name}.json_schema.strict must be a boolean, got ${kind(strict)}`);
      if (strict === true) checkStrictSchema(checked, "request.responseFormat.json_schema");
      return checked;
    }
    default:
      throw new RangeError(
        `${name}.type must be "text", "json_object" or "json_schema", got ${JSON.stringify(f.type)}`,
      );
  }
}

function checkToolChoice(choice: unknown, name: string): ToolChoice {
  if (choice === null) return "auto";
  if (choice === "auto" || choice === "required" || choice === "none") return choice;
  const named = choice as { type?: unknown; function?: { name?: unknown } };
  if (typeof choice === "object" && named.type === "function" && typeof named.function?.name === "string")
    return choice as ToolChoice;
  throw new TypeError(
    `${name} must be "auto", "required", "none" or {type: "function", function: {name}}, got ${JSON.stringify(choice)}`,
  );
}

/** A row whose value is one of `values` (a RangeError otherwise). */
function oneOf<const T extends string>(...values: T[]): OptionRow<T> {
  const listed = values.map((v) => JSON.stringify(v)).join(" or ");
  return {
    check(value, name) {
      if (!values.includes(value as T)) throw new RangeError(`${name} must be ${listed}, got ${describe(value)}`);
      return value as T;
    },
  };
}

/**
 * The rows of the options a chat request shares with `model.chat()`: checked the same way at both
 * boundaries.
 */
export const SHARED_REQUEST_OPTIONS = {
  parallelToolCalls: { check: (v, name) => optBoolean(v, name) as boolean },
  maxToolCalls: { check: (v, name) => optInteger(v, name, 1, 1 << 16) as number },
  enableThinking: { check: (v, name) => optBoolean(v, name) as boolean },
  extraContext: { check: (v, name) => checkObject(v, name) },
  reasoningFormat: oneOf("auto", "none"),
  continueFinalMessage: {
    check(value, name) {
      if (typeof value !== "boolean" && value !== "content" && value !== "reasoning")
        throw new TypeError(`${name} must be a boolean, "content" or "reasoning", got ${describe(value)}`);
      return value;
    },
  },
  addGenerationPrompt: { check: (v, name) => optBoolean(v, name) as boolean },
} satisfies Partial<Record<keyof ChatRequest, OptionRow>>;

/** Every option of a {@link ChatRequest}, in the order they are checked. */
export const REQUEST_OPTIONS = {
  messages: { check: checkMessageList, required: true },
  tools: { check: (v, name) => checkTools(v, name) },
  toolChoice: { check: checkToolChoice },
  ...SHARED_REQUEST_OPTIONS,
  /** Checked into the answer's JSON schema (null: no schema). */
  responseFormat: { check: (v, name) => jsonSchemaOf(v, name) },
} satisfies { readonly [K in keyof Required<ChatRequest>]: OptionRow };

/** The keys of a {@link ChatRequest}. */
export const CHAT_REQUEST_KEYS: readonly string[] = Object.keys(REQUEST_OPTIONS);
