/**
 * Validation of chat() options: each mistake throws a TypeError or RangeError that names the
 * option and shows what was given, before any work starts.
 */
import { checkMessageList } from "../chat/message-check.js";
import { SHARED_REQUEST_OPTIONS } from "../chat/request-options.js";
import { parametersJsonSchema } from "../chat/tool-schema.js";
import type { ChatRequest } from "../chat/types.js";
import { CONTEXT_OPTION_KEYS, type ContextOptions } from "../runtime/context-options.js";
import { SAMPLING_KEYS, type SamplingOptions } from "../runtime/sampling.js";
import {
  type OptionRow,
  checkKeys,
  checkObject,
  checkOptionTable,
  checkString,
  describe,
  optBoolean,
  optInteger,
  optSignal,
  optStringArray,
} from "../validate/index.js";
import type { ResponseFormat, ToolChoice } from "../types.js";
import type { ContextOverflow } from "./context-fit.js";
import type { ChatOptions, ChatSessionOptions, ChatTool } from "./types.js";

/** Checked options with defaults filled in. */
export interface PlannedChat {
  options: ChatOptions;
  tools: ChatTool[];
  maxTokens: number;
  maxSteps: number;
  stop: string[];
  signal: AbortSignal | undefined;
  reasoningBudget: number | undefined;
  grammarEngine: string | undefined;
  /** Constrain decoding with the derived grammar (false: the output is only parsed). */
  grammar: boolean;
  /** The context size asked for: a number, "auto", or undefined (keep the session's context). */
  contextSize: number | "auto" | undefined;
  /** A contextSize beyond the training context is allowed (else the context's RangeError). */
  allowBeyondTraining: boolean;
  /** What to do when the prompt does not fit the context; undefined: the session's choice. */
  contextOverflow: ContextOverflow | undefined;
  /** "chat" or "streamChat": the prefix of error messages. */
  where: string;
  /** streamChat(): the deltas go out as they come (chat() reads the finished message alone). */
  streaming: boolean;
  /** streamChat() with `streamCalls`: calls the grammar holds are streamed as they are written. */
  streamCalls: boolean;
}

/**
 * Tokens a model turn may generate when the request sets no `maxTokens`: one default for chat(),
 * streamChat(), `toolwright chat`, the OpenAI client and `toolwright serve`.
 */
export const DEFAULT_MAX_TOKENS = 1024;

const OVERFLOWS: readonly string[] = ["error", "truncate-oldest"];

/** Checks a `contextOverflow` option. */
function optOverflow(value: unknown, name: string): ContextOverflow | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !OVERFLOWS.includes(value))
    throw new RangeError(`${name} must be "error" or "truncate-oldest", got ${describe(value)}`);
  return value as ContextOverflow;
}

/** Checks a `contextSize` option: a positive integer or "auto". */
function optContextSize(value: unknown, name: string): number | "auto" | undefined {
  if (value === "auto") return value;
  if (typeof value === "string")
    throw new RangeError(`${name} must be a number of tokens or "auto", got ${describe(value)}`);
  return optInteger(value, name, 1, 1 << 24);
}

/** The one table of {@link ChatSessionOptions}. */
const SESSION_OPTIONS = {
  context: {
    check(value, name) {
      checkKeys(checkObject(value, name), CONTEXT_OPTION_KEYS, name);
      return value as ContextOptions;
    },
  },
  grammarEngine: { check: (v, name) => checkString(v, name) },
  contextOverflow: { check: (v, name) => optOverflow(v, name) as ContextOverflow },
} satisfies { readonly [K in keyof Required<ChatSessionOptions>]: OptionRow };

/** The keys of {@link ChatSessionOptions}. */
export const SESSION_OPTION_KEYS: readonly string[] = Object.keys(SESSION_OPTIONS);

/**
 * Checks `new ChatSession(model, options)`'s options (and the context options in them).
 *
 * @example
 * checkSessionOptions({ context: { contextSize: 4096 } });
 */
export function checkSessionOptions(options: unknown): void {
  checkOptionTable(checkObject(options, "ChatSession: options"), SESSION_OPTIONS, "ChatSession: options");
}

function checkTools(value: unknown, name: string): ChatTool[] {
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array, got ${describe(value)}`);
  return value.map((t: unknown, i) => {
    const tool = checkObject(t, `${name}[${i}]`) as unknown as ChatTool;
    if (tool.type !== "function" || tool.function === null || typeof tool.function !== "object") {
      throw new TypeError(`${name}[${i}] must be {type: "function", function: {name, parameters}}`);
    }
    checkKeys(tool as unknown as Record<string, unknown>, ["type", "function", "execute"], `${name}[${i}]`);
    checkKeys(
      tool.function as unknown as Record<string, unknown>,
      ["name", "description", "parameters", "strict"],
      `${name}[${i}].function`,
    );
    checkString(tool.function.name, `${name}[${i}].function.name`);
    // A schema library's object becomes JSON Schema here (once per object), or a TypeError names it.
    if (tool.function.parameters !== undefined)
      parametersJsonSchema(tool.function.parameters, `${name}[${i}].function.parameters`);
    // null: not set (OpenAI's SDK types allow it).
    if (tool.function.strict !== null) optBoolean(tool.function.strict, `${name}[${i}].function.strict`);
    if (tool.execute !== undefined && typeof tool.execute !== "function") {
      throw new TypeError(`${name}[${i}].execute must be a function, got ${describe(tool.execute)}`);
    }
    return tool;
  });
}

/** A responseFormat's schema, checked as tools' parameters are (a schema library's object converted once). */
function checkResponseFormatSchema(format: Record<string, unknown>, name: string): void {
  if (format.type === "json_object" && format.schema !== undefined)
    parametersJsonSchema(format.schema, `${name}.schema`);
  const spec = format.json_schema;
  if (format.type !== "json_schema" || spec === null || typeof spec !== "object") return;
  const schema = (spec as Record<string, unknown>).schema;
  if (schema !== undefined) parametersJsonSchema(schema, `${name}.json_schema.schema`);
}

/** Where a chat() option goes in the chat layer's request of each model turn. */
type Forward = "each turn" | "first turn";

/** A row of chat()'s option table: its check and, for an option of the chat request, where it goes. */
interface ChatOptionRow<T = unknown> extends OptionRow<T> {
  /** Passed on as is to the request of each turn, or of the first only (later turns follow tool results). */
  forward?: Forward;
}

/** A row of an integer in [min, max]. */
const integer = (min: number, max: number): OptionRow<number> => ({
  check: (v, name) => optInteger(v, name, min, max) as number,
});

/**
 * The one table of chat()'s options ({@link ChatOptions}): each option's check, in order, and
 * where it goes. The options a chat request shares take their rows from the chat layer's table;
 * `tools` (execute stripped, schemas converted) and `enableThinking` (a budget of 0 turns it off)
 * are mapped by {@link chatRequestOf}.
 */
const CHAT_OPTIONS = {
  messages: {
    required: true,
    check(value, name) {
      if (!Array.isArray(value)) throw new TypeError(`${name} must be an array of messages, got ${describe(value)}`);
      if (value.length === 0) throw new RangeError(`${name} must not be empty`);
      return checkMessageList(value, name);
    },
  },
  tools: { check: (v, name) => checkTools(v, name) },
  // Checked by the chat layer against the tools (generateChatParams names it).
  toolChoice: { check: (v) => v as ToolChoice, forward: "each turn" },
  parallelToolCalls: { ...SHARED_REQUEST_OPTIONS.parallelToolCalls, forward: "each turn" },
  enableThinking: SHARED_REQUEST_OPTIONS.enableThinking,
  extraContext: { ...SHARED_REQUEST_OPTIONS.extraContext, forward: "each turn" },
  reasoningFormat: { ...SHARED_REQUEST_OPTIONS.reasoningFormat, forward: "each turn" },
  continueFinalMessage: { ...SHARED_REQUEST_OPTIONS.continueFinalMessage, forward: "first turn" },
  addGenerationPrompt: { ...SHARED_REQUEST_OPTIONS.addGenerationPrompt, forward: "first turn" },
  sampling: {
    check(value, name) {
      const sampling = checkObject(value, name);
      checkKeys(sampling, SAMPLING_KEYS, name);
      return sampling as SamplingOptions;
    },
  },
  template: {
    check(value, name) {
      if (checkString(value, name).trim() === "") throw new RangeError(`${name} must not be empty`);
      return value as string;
    },
  },
  responseFormat: {
    check(value, name) {
      checkResponseFormatSchema(checkObject(value, name), name);
      return value as ResponseFormat;
    },
    forward: "each turn",
  },
  stop: {
    check(value, name) {
      const stop = optStringArray(value, name) as string[];
      stop.forEach((s, i) => {
        if (s === "") throw new RangeError(`${name}[${i}] must not be empty`);
      });
      return stop;
    },
  },
  reasoningBudget: integer(0, 2 ** 31 - 1),
  maxReasoningTokens: integer(0, 2 ** 31 - 1),
  maxToolCalls: { ...SHARED_REQUEST_OPTIONS.maxToolCalls, forward: "each turn" },
  grammarEngine: { check: (v, name) => checkString(v, name) },
  maxTokens: integer(1, 2 ** 31 - 1),
  maxSteps: integer(1, 1 << 16),
  signal: { check: (v, name) => optSignal(v, name) as AbortSignal },
  grammar: { check: (v, name) => optBoolean(v, name) as boolean },
  streamCalls: { check: (v, name) => optBoolean(v, name) as boolean },
  contextSize: { check: (v, name) => optContextSize(v, name) as number | "auto" },
  allowBeyondTraining: { check: (v, name) => optBoolean(v, name) as boolean },
  contextOverflow: { check: (v, name) => optOverflow(v, name) as ContextOverflow },
} satisfies { readonly [K in keyof Required<ChatOptions>]: ChatOptionRow };

/** The options of the chat layer's request that chat() passes on as given, and when. */
export const FORWARDED_OPTIONS: readonly (readonly [keyof ChatOptions & keyof ChatRequest, Forward])[] = Object.entries(
  CHAT_OPTIONS as Record<string, ChatOptionRow>,
).flatMap(([key, row]) => (row.forward ? [[key as keyof ChatOptions & keyof ChatRequest, row.forward] as const] : []));

/**
 * Checks chat() options. `where` prefixes the messages ("chat" or "streamChat").
 *
 * @example
 * planChat({ messages: [{ role: "user", content: "Hi" }], maxTokens: 64 }, "chat").maxTokens; // 64
 */
export function planChat(value: unknown, where: string, streaming = false): PlannedChat {
  if (value === undefined || value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError(`${where}: options must be an object, got ${describe(value)}`);
  }
  const o = checkOptionTable(value as Record<string, unknown>, CHAT_OPTIONS, `${where}: options`);
  const budget = o.reasoningBudget;
  const budgetAlias = o.maxReasoningTokens;
  if (budget !== undefined && budgetAlias !== undefined && budget !== budgetAlias) {
    throw new RangeError(
      `${where}: options.reasoningBudget (${budget}) and options.maxReasoningTokens (${budgetAlias}) ` +
        `disagree; give one`,
    );
  }
  const tools = o.tools ?? [];
  const anyExecute = tools.some((t) => t.execute !== undefined);
  return {
    options: value as ChatOptions,
    tools,
    maxTokens: o.maxTokens ?? DEFAULT_MAX_TOKENS,
    maxSteps: o.maxSteps ?? (anyExecute ? 8 : 1),
    stop: o.stop ?? [],
    signal: o.signal,
    reasoningBudget: budget ?? budgetAlias,
    grammarEngine: o.grammarEngine,
    grammar: o.grammar ?? true,
    contextSize: o.contextSize,
    allowBeyondTraining: o.allowBeyondTraining ?? false,
    contextOverflow: o.contextOverflow,
    where,
    streaming,
    streamCalls: streaming && o.streamCalls === true,
  };
}
