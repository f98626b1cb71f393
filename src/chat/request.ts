/**
 * Checks a chat request and resolves its options into what the builders use: the tools the
 * model may call, whether a call is required, parallel calls, the JSON schema of the answer.
 */
import { checkOptionTable } from "../validate/index.js";
import type { TemplateCaps } from "../template/index.js";
import type { JsonSchema, ToolChoice, ToolDefinition } from "../types.js";
import { DEFAULT_MAX_TOOL_CALLS } from "./build-helpers.js";
import { kind } from "./message-check.js";
import { REQUEST_OPTIONS } from "./request-options.js";
import type { ChatRequest } from "./types.js";

export { checkMessages } from "./message-check.js";

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
  const o = checkOptionTable(
    request as unknown as Record<string, unknown>,
    REQUEST_OPTIONS,
    "generateChatParams: request",
  );
  const { tools, toolChoice } = resolveToolChoice(o.tools ?? [], o.toolChoice ?? "auto");
  const named = typeof o.toolChoice === "object";
  const parallel = !named && (o.parallelToolCalls ?? caps.supportsParallelToolCalls) && caps.supportsParallelToolCalls;
  const readsParallel = !named && o.parallelToolCalls !== false;
  const maxCalls = o.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
  const { continuation, addGenerationPrompt } = continuationOf(request, o.continueFinalMessage, o.addGenerationPrompt);
  return {
    tools,
    toolChoice,
    parallel: parallel && maxCalls > 1,
    readsParallel: readsParallel && maxCalls > 1,
    jsonSchema: o.responseFormat ?? null,
    thinking: o.enableThinking !== false,
    maxCalls,
    reasoningInline: o.reasoningFormat === "none",
    continuation,
    addGenerationPrompt,
  };
}

/** A named tool_choice keeps only that tool and requires its call. */
function resolveToolChoice(all: ToolDefinition[], choice: ToolChoice): Pick<NormalizedRequest, "tools" | "toolChoice"> {
  let tools = all;
  let toolChoice: NormalizedRequest["toolChoice"];
  if (typeof choice === "string") toolChoice = choice;
  else {
    const name = choice.function.name;
    tools = tools.filter((t) => t.function.name === name);
    if (tools.length === 0)
      throw new RangeError(
        `generateChatParams: request.toolChoice names ${JSON.stringify(name)}, which is not in request.tools`,
      );
    toolChoice = "required";
  }
  if (tools.length === 0 && toolChoice === "required")
    throw new RangeError("generateChatParams: request.toolChoice requires a call but request.tools is empty");
  return { tools, toolChoice };
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
function continuationOf(
  request: ChatRequest,
  cont: ChatRequest["continueFinalMessage"],
  agp: boolean | undefined,
): Pick<NormalizedRequest, "continuation" | "addGenerationPrompt"> {
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
        `request.messages[${at}] is ${last === undefined ? "missing" : `a ${JSON.stringify(last?.role)} message`}`,
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
