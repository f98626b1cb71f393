/**
 * Checks a chat request and resolves its options into what the builders use: the tools the
 * model may call, whether a call is required, parallel calls, the JSON schema of the answer.
 */
import { checkKeys } from "../validate/index.js";
import type { TemplateCaps } from "../template/index.js";
import type { JsonSchema, ToolDefinition } from "../types.js";
import { DEFAULT_MAX_TOOL_CALLS } from "./build-helpers.js";
import { checkStrictSchema, isStandardSchema, parametersJsonSchema } from "./tool-schema.js";
import type { ChatRequest } from "./types.js";

/** A checked request with tool_choice and response_format resolved. */
export interface NormalizedRequest {
  /** The tools the model may call (only the named one for a named tool_choice). */
  tools: ToolDefinition[];
  /** "required" also stands for a named function. */
  toolChoice: "auto" | "required" | "none";
  parallel: boolean;
  /**
   * The parser reads every call the model wrote, also where the template renders one per turn;
   * false only when the request asks for one call (parallelToolCalls false, a named function).
   */
  readsParallel: boolean;
  /** Schema the answer must match (response_format json_schema / json_object), else null. */
  jsonSchema: JsonSchema | null;
  /** The model may reason first (enableThinking is not false): strict grammars allow a reasoning block. */
  thinking: boolean;
  /** Most calls per turn a grammar allows when calls are parallel. */
  maxCalls: number;
  /** Reasoning stays inline in the content, markers included (reasoningFormat "none"). */
  reasoningInline: boolean;
  /**
   * The output continues the final (assistant) message: its reasoning or its content. Null when
   * the output opens a new turn.
   */
  continuation: "content" | "reasoning" | null;
  /** Render the template's generation prompt (false only without a continuation). */
  addGenerationPrompt: boolean;
}

function kind(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

function checkTools(tools: unknown): ToolDefinition[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools))
    throw new TypeError(`generateChatParams: request.tools must be an array, got ${kind(tools)}`);
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
        `generateChatParams: request.tools[${i}] must be {type: "function", function: {...}}, got ` +
          `${JSON.stringify(t)?.slice(0, 80)}`,
      );
    }
    const name = tool.function.name;
    if (typeof name !== "string" || name === "")
      throw new TypeError(
        `generateChatParams: request.tools[${i}].function.name must be a non-empty string, got ${kind(name)}`,
      );
    if (names.has(name))
      throw new RangeError(`generateChatParams: request.tools has two functions named ${JSON.stringify(name)}`);
    names.add(name);
    const params: unknown = tool.function.parameters;
    const where = `generateChatParams: request.tools[${i}].function.parameters`;
    if (isStandardSchema(params)) {
      throw new TypeError(
        `${where} is a ${String(params["~standard"].vendor)} schema: the chat layer takes JSON Schema (convert ` +
          `it with parametersJsonSchema(); model.chat() does)`,
      );
    }
    if (params !== undefined && params !== null) parametersJsonSchema(params, where);
    const strict: unknown = tool.function.strict;
    if (strict !== undefined && strict !== null && typeof strict !== "boolean")
      throw new TypeError(
        `generateChatParams: request.tools[${i}].function.strict must be a boolean, got ${kind(strict)}`,
      );
    if (strict === true && params !== undefined && params !== null)
      checkStrictSchema(params as JsonSchema, `request.tools[${i}] (${JSON.stringify(name)})`);
    return tool;
  });
}

function jsonSchemaOf(format: unknown): JsonSchema | null {
  if (format === undefined || format === null) return null;
  if (typeof format !== "object")
    throw new TypeError(`generateChatParams: request.responseFormat must be an object, got ${kind(format)}`);
  const f = format as { type?: unknown; json_schema?: { schema?: unknown }; schema?: unknown };
  switch (f.type) {
    case "text":
      return null;
    case "json_object":
      return f.schema === undefined || f.schema === null
        ? { type: "object" }
        : parametersJsonSchema(f.schema, "generateChatParams: request.responseFormat.schema");
    case "json_schema": {
      const schema = f.json_schema?.schema;
      const where = "generateChatParams: request.responseFormat.json_schema.schema";
      if (schema === undefined || (typeof schema !== "object" && typeof schema !== "boolean") || schema === null) {
        throw new TypeError(`${where} must be a JSON Schema, got ${kind(schema)}`);
      }
      const checked = parametersJsonSchema(schema, where);
      const strict = (f.json_schema as { strict?: unknown }).strict;
      if (strict !== undefined && typeof strict !== "boolean")
        throw new TypeError(
          `generateChatParams: request.responseFormat.json_schema.strict must be a boolean, got ${kind(strict)}`,
        );
      if (strict === true) checkStrictSchema(checked, "request.responseFormat.json_schema");
      return checked;
    }
    default:
      throw new RangeError(
        `generateChatParams: request.responseFormat.type must be "text", "json_object" or "json_schema", got ` +
          `${JSON.stringify(f.type)}`,
      );
  }
}

/** The keys of a {@link ChatRequest}. */
export const CHAT_REQUEST_KEYS: readonly string[] = [
  "messages",
  "tools",
  "toolChoice",
  "parallelToolCalls",
  "maxToolCalls",
  "responseFormat",
  "enableThinking",
  "extraContext",
  "reasoningFormat",
  "continueFinalMessage",
  "addGenerationPrompt",
];

const ROLES = ["system", "developer", "user", "assistant", "tool"];
const IMAGE_PARTS = new Set(["image_url", "image", "input_image"]);
const OTHER_MEDIA_PARTS = new Set(["input_audio", "audio", "file", "video", "video_url"]);

function partsOk(content: unknown[], at: string): void {
  content.forEach((part: unknown, j) => {
    const where = `${at}[${j}]`;
    if (part === null || typeof part !== "object" || Array.isArray(part))
      throw new TypeError(`${where} must be a content part ({type: "text", text}), got ${kind(part)}`);
    const type = (part as { type?: unknown }).type;
    if (typeof type === "string" && IMAGE_PARTS.has(type)) {
      throw new RangeError(
        `${where} is an image part (type ${JSON.stringify(type)}): toolwright runs text-only models, which ` +
          `cannot read images; send text parts only`,
      );
    }
    if (typeof type === "string" && OTHER_MEDIA_PARTS.has(type)) {
      throw new RangeError(
        `${where} is a ${JSON.stringify(type)} part: toolwright runs text-only models; send text parts only`,
      );
    }
    if (type !== "text")
      throw new TypeError(
        `${where}.type must be "text", got ${typeof type === "string" ? JSON.stringify(type) : kind(type)}`,
      );
    const text = (part as { text?: unknown }).text;
    if (typeof text !== "string") throw new TypeError(`${where}.text must be a string, got ${kind(text)}`);
  });
}

function contentOk(content: unknown, at: string, nullable: boolean): void {
  if (typeof content === "string") return;
  if (Array.isArray(content)) {
    partsOk(content, at);
    return;
  }
  if ((content === null || content === undefined) && nullable) return;
  if (content === undefined) throw new TypeError(`${at} is missing (a string or an array of text parts)`);
  throw new TypeError(`${at} must be a string or an array of text parts, got ${kind(content)}`);
}

/**
 * Checks the shape of each message at the API boundary (OpenAI's rules): a known role; content a
 * string or text parts (null or missing only on an assistant message with tool calls or
 * reasoning); well-formed tool calls; a tool message's `tool_call_id`. Errors name
 * `messages[i]` and the field. `where` prefixes them ("chat: options").
 *
 * @example
 * checkMessages([{ role: "tool", content: "21" }], "chat: options");
 * // TypeError: chat: options.messages[0].tool_call_id is missing: a tool message answers the call with that id
 */
export function checkMessages(messages: unknown, where: string): void {
  if (!Array.isArray(messages))
    throw new TypeError(`${where}.messages must be an array of messages, got ${kind(messages)}`);
  messages.forEach((m: unknown, i) => {
    const at = `${where}.messages[${i}]`;
    if (m === null || typeof m !== "object" || Array.isArray(m))
      throw new TypeError(`${at} must be a message object, got ${kind(m)}`);
    const msg = m as Record<string, unknown>;
    if (typeof msg.role !== "string" || !ROLES.includes(msg.role)) {
      throw new RangeError(
        `${at}.role must be "system", "developer", "user", "assistant" or "tool", got ` +
          `${msg.role === undefined ? "nothing" : JSON.stringify(msg.role)}`,
      );
    }
    if (msg.role === "assistant") {
      const calls = msg.tool_calls;
      if (calls !== undefined && calls !== null) {
        if (!Array.isArray(calls)) throw new TypeError(`${at}.tool_calls must be an array, got ${kind(calls)}`);
        calls.forEach((c: unknown, j) => {
          const ca = `${at}.tool_calls[${j}]`;
          const call = c as { function?: { name?: unknown; arguments?: unknown } } | null;
          if (
            call === null ||
            typeof call !== "object" ||
            call.function === null ||
            typeof call.function !== "object"
          ) {
            throw new TypeError(`${ca} must be {id, type: "function", function: {name, arguments}}, got ${kind(c)}`);
          }
          if (typeof call.function.name !== "string")
            throw new TypeError(`${ca}.function.name must be a string, got ${kind(call.function.name)}`);
          const args = call.function.arguments;
          if (args !== undefined && typeof args !== "string" && (args === null || typeof args !== "object")) {
            throw new TypeError(`${ca}.function.arguments must be a JSON string, got ${kind(args)}`);
          }
        });
      }
      const reasoning = msg.reasoning_content;
      if (reasoning !== undefined && reasoning !== null && typeof reasoning !== "string")
        throw new TypeError(`${at}.reasoning_content must be a string, got ${kind(reasoning)}`);
      const nullable =
        (Array.isArray(calls) && calls.length > 0) || (typeof reasoning === "string" && reasoning !== "");
      if (!nullable && (msg.content === null || msg.content === undefined)) {
        throw new TypeError(
          `${at}.content is ${msg.content === null ? "null" : "missing"}: an assistant message needs content ` +
            `unless it has tool_calls`,
        );
      }
      contentOk(msg.content, `${at}.content`, nullable);
      return;
    }
    if (msg.content === null)
      throw new TypeError(`${at}.content is null: a ${msg.role} message needs a string or an array of text parts`);
    contentOk(msg.content, `${at}.content`, false);
    if (msg.role === "tool") {
      if (msg.tool_call_id === undefined || msg.tool_call_id === null)
        throw new TypeError(`${at}.tool_call_id is missing: a tool message answers the call with that id`);
      if (typeof msg.tool_call_id !== "string")
        throw new TypeError(`${at}.tool_call_id must be a string, got ${kind(msg.tool_call_id)}`);
    }
  });
}

/**
 * Validates `request` and resolves tool_choice, parallel calls and the answer schema.
 *
 * @example
 * normalizeRequest({ messages, tools, toolChoice: { type: "function", function: { name: "f" } } }, caps);
 * // { tools: [f], toolChoice: "required", parallel: false, jsonSchema: null, thinking: true, maxCalls: 8 }
 */
export function normalizeRequest(request: ChatRequest, caps: TemplateCaps): NormalizedRequest {
  if (request === null || typeof request !== "object")
    throw new TypeError(`generateChatParams: request must be an object, got ${kind(request)}`);
  checkKeys(request as unknown as Record<string, unknown>, CHAT_REQUEST_KEYS, "generateChatParams: request");
  checkMessages(request.messages, "generateChatParams: request");
  let tools = checkTools(request.tools);
  const choice = request.toolChoice ?? "auto";
  let toolChoice: NormalizedRequest["toolChoice"];
  if (choice === "auto" || choice === "required" || choice === "none") toolChoice = choice;
  else if (
    choice !== null &&
    typeof choice === "object" &&
    choice.type === "function" &&
    typeof choice.function?.name === "string"
  ) {
    const name = choice.function.name;
    tools = tools.filter((t) => t.function.name === name);
    if (tools.length === 0)
      throw new RangeError(
        `generateChatParams: request.toolChoice names ${JSON.stringify(name)}, which is not in request.tools`,
      );
    toolChoice = "required";
  } else {
    throw new TypeError(
      `generateChatParams: request.toolChoice must be "auto", "required", "none" or {type: "function", ` +
        `function: {name}}, got ${JSON.stringify(choice)}`,
    );
  }
  if (tools.length === 0 && toolChoice === "required")
    throw new RangeError("generateChatParams: request.toolChoice requires a call but request.tools is empty");
  const parallelRequested = request.parallelToolCalls;
  if (parallelRequested !== undefined && typeof parallelRequested !== "boolean") {
    throw new TypeError(
      `generateChatParams: request.parallelToolCalls must be a boolean, got ${kind(parallelRequested)}`,
    );
  }
  const named = typeof choice === "object";
  const parallel = !named && (parallelRequested ?? caps.supportsParallelToolCalls) && caps.supportsParallelToolCalls;
  const readsParallel = !named && parallelRequested !== false;
  if (request.enableThinking !== undefined && typeof request.enableThinking !== "boolean") {
    throw new TypeError(
      `generateChatParams: request.enableThinking must be a boolean, got ${kind(request.enableThinking)}`,
    );
  }
  const maxCalls = request.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
  if (!Number.isInteger(maxCalls) || maxCalls < 1)
    throw new RangeError(
      `generateChatParams: request.maxToolCalls must be an integer >= 1, got ${JSON.stringify(request.maxToolCalls)}`,
    );
  const reasoningFormat = request.reasoningFormat ?? "auto";
  if (reasoningFormat !== "auto" && reasoningFormat !== "none") {
    throw new RangeError(
      `generateChatParams: request.reasoningFormat must be "auto" or "none", got ` +
        `${JSON.stringify(request.reasoningFormat)}`,
    );
  }
  const { continuation, addGenerationPrompt } = continuationOf(request);
  return {
    tools,
    toolChoice,
    parallel: parallel && maxCalls > 1,
    readsParallel: readsParallel && maxCalls > 1,
    jsonSchema: jsonSchemaOf(request.responseFormat),
    thinking: request.enableThinking !== false,
    maxCalls,
    reasoningInline: reasoningFormat === "none",
    continuation,
    addGenerationPrompt,
  };
}

/** The text of a message field: a string, or the text parts of a part list joined. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((p: { text?: unknown }) => (typeof p?.text === "string" ? p.text : "")).join("");
  return "";
}

/**
 * Resolves continueFinalMessage / addGenerationPrompt: which part of the final message the
 * output continues, if any.
 */
function continuationOf(request: ChatRequest): Pick<NormalizedRequest, "continuation" | "addGenerationPrompt"> {
  const cont = request.continueFinalMessage;
  if (cont !== undefined && typeof cont !== "boolean" && cont !== "content" && cont !== "reasoning") {
    throw new TypeError(
      `generateChatParams: request.continueFinalMessage must be a boolean, "content" or "reasoning", got ` +
        `${JSON.stringify(cont)}`,
    );
  }
  const agp = request.addGenerationPrompt;
  if (agp !== undefined && typeof agp !== "boolean")
    throw new TypeError(`generateChatParams: request.addGenerationPrompt must be a boolean, got ${kind(agp)}`);
  const last = request.messages[request.messages.length - 1] as
    | { role?: unknown; content?: unknown; reasoning_content?: unknown; tool_calls?: unknown }
    | undefined;
  const lastIsAssistant = last !== undefined && last !== null && typeof last === "object" && last.role === "assistant";
  // transformers' convention: no generation prompt after a final assistant message continues it.
  const wanted = cont ?? !!(agp === false && lastIsAssistant);
  if (wanted === false) return { continuation: null, addGenerationPrompt: agp ?? true };
  if (agp === true)
    throw new RangeError(
      "generateChatParams: request.continueFinalMessage and request.addGenerationPrompt: true exclude each " +
        "other (a continuation has no generation prompt)",
    );
  const at = request.messages.length - 1;
  if (!lastIsAssistant) {
    throw new RangeError(
      `generateChatParams: request.continueFinalMessage needs a final assistant message to continue, but ` +
        `request.messages[${at}] is ` +
        `${last === undefined ? "missing" : `a ${JSON.stringify(last?.role)} message`}`,
    );
  }
  if (Array.isArray(last.tool_calls) && last.tool_calls.length > 0) {
    throw new RangeError(
      `generateChatParams: request.continueFinalMessage cannot continue request.messages[${at}]: it has ` +
        `tool_calls (only text and reasoning can be continued)`,
    );
  }
  if (wanted !== true) return { continuation: wanted, addGenerationPrompt: false };
  const reasoningOnly = textOf(last.reasoning_content) !== "" && textOf(last.content) === "";
  return { continuation: reasoningOnly ? "reasoning" : "content", addGenerationPrompt: false };
}
