/**
 * Public shapes of `Model.chat()` / `Model.streamChat()`: the request options, the result, and
 * the streamed chunks.
 */
import type { ErrorObject } from "ajv";
import type { ToolwrightError } from "../errors.js";
import type { ContextOptions } from "../runtime/context-options.js";
import type { SamplingOptions } from "../runtime/sampling.js";
import type { AssistantMessage, FunctionDefinition, JsonSchema, ToolMessage } from "../types.js";
import type { StandardSchemaLike } from "../chat/tool-schema.js";
import type { ChatDelta, ChatRequest } from "../chat/types.js";
import type { ResponseFormatError } from "./response-format.js";

export type { ResponseFormatError } from "./response-format.js";

/** What a tool's `execute` receives besides its arguments. */
export interface ToolExecuteContext {
  /** The request's signal: stop work when it aborts. */
  signal: AbortSignal | undefined;
  /** The id of the call being answered. */
  toolCallId: string;
}

/**
 * A tool's function: OpenAI's shape, with `parameters` a JSON Schema or a schema library's object
 * that exports one (zod >= 4.2, ArkType, Valibot's `toStandardJsonSchema`: the Standard JSON Schema
 * interface). `strict: true` asks for the schema exactly (see the README's "Schemas" section).
 */
export interface ChatToolFunction extends Omit<FunctionDefinition, "parameters"> {
  parameters?: JsonSchema | StandardSchemaLike;
}

/**
 * A tool the model may call. With `execute`, `chat()` runs the call itself and continues the
 * conversation with its result (the tool runner); without, the call is returned to the caller.
 * `defineTool()` makes one whose `execute` argument is typed by its schema.
 *
 * @example
 * import { defineTool } from "toolwright";
 * const tool: ChatTool<{ city: string }> = defineTool({
 *   name: "get_weather",
 *   parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
 *   execute: async ({ city }) => ({ city, temperature: 21 }),
 * });
 */
export interface ChatTool<Args = unknown> {
  type: "function";
  function: ChatToolFunction;
  /**
   * Runs one call, with the arguments checked against the schema (a schema library's parsed
   * output). Its return value (a string, or JSON-serialised) becomes the tool message.
   * (A method, so a tool of typed arguments is still a `ChatTool`.)
   */
  execute?(args: Args, context: ToolExecuteContext): unknown;
}

/**
 * A call the tool runner did not execute, or whose `execute` threw. The model is told too (an
 * "Error: ..." tool message, so it can retry); this is the caller's copy.
 *
 * @example
 * const r = await model.chat({ messages, tools });
 * for (const e of r.toolErrors) console.warn(e.kind, e.name, e.error.code, e.error.message);
 */
export interface ToolCallError {
  /** Index of the call in its assistant message's `tool_calls`. */
  index: number;
  toolCallId: string;
  name: string;
  /**
   * "invalid_arguments": not JSON, or against the tool's `parameters` schema (not executed);
   * "incomplete": a call marked `incomplete` in a message passed in (not executed); "unknown_tool": no
   * executable tool of that name; "execute_failed": `execute` threw or rejected.
   */
  kind: "invalid_arguments" | "incomplete" | "unknown_tool" | "execute_failed";
  /** Code TOOLWRIGHT_TOOL_ARGUMENTS, _INCOMPLETE, _UNKNOWN or _FAILED; `cause` is what execute threw. */
  error: ToolwrightError;
  /** The schema violations (ajv's error objects), for "invalid_arguments". */
  details?: ErrorObject[];
}

/**
 * Options of {@link ChatSession.chat} (and `Model.chat`): a chat request's options (the chat
 * layer's `ChatRequest`, with tools that may `execute`) and how the session runs it.
 */
export interface ChatOptions extends Omit<ChatRequest, "tools"> {
  tools?: ChatTool[];
  sampling?: SamplingOptions;
  /**
   * Most tokens generated per model turn. Default 1024. Under `toolChoice: "required"` or a named
   * tool, a value below the tokens of the shortest call the grammar accepts is a RangeError.
   */
  maxTokens?: number;
  /** Extra stop strings. */
  stop?: string[];
  /** Aborting ends the request with finishReason "abort" and the partial message. */
  signal?: AbortSignal;
  /** A Jinja chat template to use instead of the model's own. */
  template?: string;
  /** Most model turns when tools have `execute` (default 8; 1 turns the runner off). */
  maxSteps?: number;
  /**
   * Most tokens of reasoning per model turn, where the format has an end-of-reasoning marker
   * (as llama.cpp's `--reasoning-budget`): when the prompt opens reasoning, or the model opens
   * it itself, and it reaches this many tokens, the runtime closes it (the end marker is
   * written for the model, or forced by the grammar) and the answer follows under the
   * request's grammar. 0: no reasoning (templates that can turn thinking off render without
   * it, unless `enableThinking` says otherwise; forced-open reasoning is closed at once).
   * Default: no limit. Alias: `maxReasoningTokens`. Under a required call, reasoning also closes
   * where only the room of the shortest call is left in `maxTokens`, whichever comes first.
   *
   * @example
   * await model.chat({ messages, tools, toolChoice: "required", reasoningBudget: 256 });
   */
  reasoningBudget?: number;
  /** Same as `reasoningBudget` (give one of the two). */
  maxReasoningTokens?: number;
  /** Grammar engine name (see `loadNative().grammarEngines`). Default: the chat layer's choice. */
  grammarEngine?: string;
  /**
   * Constrain decoding with the grammar derived from the template (default true). false lets the
   * model write freely; its output is still parsed into content, reasoning and tool calls, and
   * text that does not parse as a call stays content. Useful to measure what the grammar costs,
   * or with a strong model that needs no help.
   *
   * @example
   * await model.chat({ messages, tools, grammar: false });
   */
  grammar?: boolean;
  /**
   * streamChat(): stream a call the grammar holds from its name on, its arguments as the model
   * writes them, as OpenAI's API does (default false: each call is streamed whole once the model
   * has finished it). Applies where the grammar holds the call (a required call, the answer after
   * reasoning, or under tool choice auto a call from where the grammar's trigger matched). The
   * grammar makes the model finish each call it starts, so only maxTokens, a full context, an abort or
   * a stop string can cut one: it then stays a call, its arguments as far as written, with finish
   * reason "length" (or "abort", or "stop" for a stop string), and is never run. Without the option, a cut call is
   * content. `toolwright serve` sets it for streamed requests.
   *
   * @example
   * const stream = model.streamChat({ messages, tools, toolChoice: "required", streamCalls: true });
   * for await (const chunk of stream) console.log(chunk.choices[0].delta.tool_calls?.[0]?.function);
   * // { name: "get_weather", arguments: "" }, then { arguments: "{\"city\":" }, ...
   */
  streamCalls?: boolean;
  /**
   * Tokens of the model's chat context: a number (rounded up to a multiple of 256; above the
   * training context only with `allowBeyondTraining`), or "auto" (the
   * default when the session creates its context: the training context, at most 8192, as far as
   * free memory allows). A size other than the current context's makes a new context (and the
   * KV cache starts empty).
   *
   * @example
   * await model.chat({ messages, contextSize: 16384 });
   */
  contextSize?: number | "auto";
  /**
   * Lets `contextSize` go beyond the model's training context (as the context option of the same
   * name): the model may answer worse there, and the KV cache grows with it. Default false.
   *
   * @example
   * await model.chat({ messages, contextSize: 65536, allowBeyondTraining: true });
   */
  allowBeyondTraining?: boolean;
  /**
   * When the prompt does not fit the context: "error" (default) throws a ContextOverflowError
   * naming the tokens needed and the context size; "truncate-oldest" leaves the oldest turns out
   * of the prompt (never the system prompt, the tools or the latest turn, and never a tool call
   * without its results) until it fits with room to answer (`result.droppedMessages` says how
   * many messages were left out). The turns kept stay in the KV cache, moved down past the dropped
   * ones (a context shift, where the model's cache allows it), so only the new tail is evaluated
   * (`usage.shiftedPromptTokens`); the moved tokens keep what the dropped turns contributed to them.
   *
   * @example
   * const r = await model.chat({ messages: longHistory, contextOverflow: "truncate-oldest" });
   * if (r.droppedMessages > 0) console.log(`${r.droppedMessages} old messages left out`);
   */
  contextOverflow?: "error" | "truncate-oldest";
}

/** Why a request ended. */
export type FinishReason = "stop" | "length" | "tool_calls" | "abort";

/** Token counts (summed over the runner's steps). */
export interface ChatUsage {
  /** Prompt tokens of the requests. */
  promptTokens: number;
  /** Tokens generated. */
  completionTokens: number;
  totalTokens: number;
  /** Prompt tokens found in the KV cache and not evaluated again. */
  cachedPromptTokens: number;
  /** Prompt tokens evaluated (the rest of `promptTokens`, not found in the cache): what the prompt cost. */
  evaluatedPromptTokens: number;
  /**
   * Of the cached tokens, those kept by a context shift: with `contextOverflow: "truncate-oldest"`,
   * the turns after the dropped ones stay in the KV cache, moved down, where the model allows it.
   */
  shiftedPromptTokens: number;
  /**
   * Of the completion tokens, those a grammar forced and fast-forward decoded together instead of
   * sampling each in its own forward pass (`sampling.fastForward`).
   */
  forcedTokens: number;
  /**
   * Tokens speculative decoding drafted and decoded for checking (the context's `speculative` option), and
   * of those, the ones kept because the model's own pick agreed (counted in `completionTokens` too).
   */
  draftedTokens: number;
  acceptedDraftTokens: number;
  /**
   * Forced tokens decoded for checking (`sampling.fastForward: "checked"`) that the model wrote another
   * way, so they were dropped again (not in `completionTokens`).
   */
  droppedForcedTokens: number;
}

/** Timings in milliseconds (of the last step for first-token figures, summed otherwise). */
export interface ChatTimings {
  /** From the start of generation to the first token (prompt evaluation and one sample). */
  promptMs: number;
  /** From the first token to the last. */
  generationMs: number;
  /** From the call to the first token (template, tokenizer and prompt included). */
  firstTokenMs: number;
  /** Generated tokens after the first, per second of generationMs. */
  tokensPerSecond: number;
}

/** One model turn of a request. */
export interface ChatStep {
  message: AssistantMessage;
  finishReason: FinishReason;
  usage: ChatUsage;
  timings: ChatTimings;
  /** Results of the calls the runner executed after this turn. */
  toolMessages: ToolMessage[];
  /** Calls of this turn that were not executed or whose execute threw. */
  toolErrors: ToolCallError[];
  /** Messages left out of this turn's prompt to fit the context (contextOverflow "truncate-oldest"). */
  droppedMessages: number;
}

/** Result of {@link ChatSession.chat}. */
export interface ChatResult {
  /** The last assistant message. */
  message: AssistantMessage;
  finishReason: FinishReason;
  usage: ChatUsage;
  /** Timings of the last step (first token) and sums (generation). */
  timings: ChatTimings;
  /** Every model turn, in order. */
  steps: ChatStep[];
  /** The messages this request added to the conversation (assistant turns and tool results). */
  messages: (AssistantMessage | ToolMessage)[];
  /** Every step's `toolErrors`, in order: calls not executed (invalid, cut off, unknown) and execute failures. */
  toolErrors: ToolCallError[];
  /** The most messages any step left out of its prompt to fit the context (0: none). */
  droppedMessages: number;
  /**
   * Set when `responseFormat` asks for JSON and the final answer is not JSON or breaks the schema
   * (the grammar is exact for most schemas; where it cannot be, or the answer was cut off, this says so).
   */
  responseFormatError?: ResponseFormatError;
}

/** One chunk of {@link ChatSession.streamChat}, shaped like OpenAI's `chat.completion.chunk`. */
export interface ChatChunk {
  choices: [{ index: 0; delta: ChatDelta & { role?: "assistant" }; finish_reason: FinishReason | null }];
  /** Which model turn (0-based) this chunk belongs to. */
  step: number;
  /** On the chunk that ends a step. */
  usage?: ChatUsage;
  timings?: ChatTimings;
  /** After a step whose calls the runner executed: their results. */
  toolMessages?: ToolMessage[];
  /** On the chunk that ends a step: its calls that were not executed or whose execute threw. */
  toolErrors?: ToolCallError[];
}

/** Options of a {@link ChatSession}. */
export interface ChatSessionOptions {
  /** Options of the context the session creates. */
  context?: ContextOptions;
  /**
   * Grammar engine of requests that name none (see `loadNative().grammarEngines`). Default: the
   * runtime's default engine.
   *
   * @example
   * const session = new ChatSession(model, { grammarEngine: "llama" });
   */
  grammarEngine?: string;
  /** Default `contextOverflow` of the session's requests (see {@link ChatOptions.contextOverflow}). Default "error". */
  contextOverflow?: "error" | "truncate-oldest";
}
