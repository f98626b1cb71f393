/**
 * `model.chat()` results and chunks → OpenAI's `chat.completion` and `chat.completion.chunk`
 * (snake_case usage, ids, `created`, `model`), with reasoning in `reasoning_content` as
 * llama-server writes it.
 */
import { randomBytes } from "node:crypto";
import type { ChatChunk, ChatResult, ChatTimings, ChatUsage } from "../session/index.js";
import type { AssistantMessage } from "../types.js";
import type { CompletionUsage } from "openai/resources/completions";
import type {
  CompletionTimings,
  ReasoningChatCompletion,
  ReasoningChatCompletionChunk,
  ReasoningChatCompletionMessage,
} from "./types.js";

/** What every chunk and completion of one request repeats. */
export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

/**
 * A fresh id and timestamp for one request's completion.
 *
 * @example
 * completionMeta("local").id; // "chatcmpl-…"
 */
export function completionMeta(model: string): CompletionMeta {
  return { id: `chatcmpl-${randomBytes(12).toString("base64url")}`, created: Math.floor(Date.now() / 1000), model };
}

/**
 * toolwright's usage → OpenAI's (cached prompt tokens in `prompt_tokens_details`).
 *
 * @example
 * toCompletionUsage({ promptTokens: 9, completionTokens: 3, totalTokens: 12, cachedPromptTokens: 0 }).total_tokens;
 * // 12
 */
export function toCompletionUsage(u: ChatUsage): CompletionUsage {
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.totalTokens,
    prompt_tokens_details: { cached_tokens: u.cachedPromptTokens },
    // Tokens decoded ahead of sampling (forced by the grammar, or drafted and kept): OpenAI's fields for the
    // tokens of a prediction accepted and rejected.
    completion_tokens_details: {
      accepted_prediction_tokens: u.forcedTokens + u.acceptedDraftTokens,
      rejected_prediction_tokens: u.draftedTokens - u.acceptedDraftTokens + u.droppedForcedTokens,
    },
  };
}

/** Milliseconds per item and items per second of `n` items in `ms` (0 when either is 0). */
function rates(n: number, ms: number): [perItemMs: number, perSecond: number] {
  return n > 0 && ms > 0 ? [ms / n, (n * 1000) / ms] : [0, 0];
}

/**
 * toolwright's usage and timings → llama-server's `timings` (the rate of generation: every token generated over
 * the time from the first token to the last, as llama-server counts it).
 *
 * @example
 * toCompletionTimings(result.usage, result.timings).prompt_ms; // time to the first token
 */
export function toCompletionTimings(u: ChatUsage, t: ChatTimings): CompletionTimings {
  const [promptPerToken, promptPerSecond] = rates(u.evaluatedPromptTokens, t.promptMs);
  const [predictedPerToken, predictedPerSecond] = rates(u.completionTokens, t.generationMs);
  return {
    cache_n: u.cachedPromptTokens,
    prompt_n: u.evaluatedPromptTokens,
    prompt_ms: t.promptMs,
    prompt_per_token_ms: promptPerToken,
    prompt_per_second: promptPerSecond,
    predicted_n: u.completionTokens,
    predicted_ms: t.generationMs,
    predicted_per_token_ms: predictedPerToken,
    predicted_per_second: predictedPerSecond,
  };
}

function textOf(content: AssistantMessage["content"]): string {
  if (content === null) return "";
  return typeof content === "string" ? content : content.map((p) => p.text).join("");
}

/** An assistant message in OpenAI's shape: assignable back into `ChatCompletionMessageParam`. */
function toMessage(m: AssistantMessage): ReasoningChatCompletionMessage {
  const calls = m.tool_calls ?? [];
  const content = textOf(m.content);
  const out: ReasoningChatCompletionMessage = {
    role: "assistant",
    content: content === "" && calls.length > 0 ? null : content,
    refusal: null,
  };
  if (calls.length > 0)
    out.tool_calls = calls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.function.name, arguments: c.function.arguments },
    }));
  if (m.reasoning_content) out.reasoning_content = m.reasoning_content;
  return out;
}

type OpenAIFinish = "stop" | "length" | "tool_calls";
/** "abort" never reaches a response: an aborted request throws. */
const finishOf = (f: ChatResult["finishReason"]): OpenAIFinish => (f === "abort" ? "stop" : f);

/**
 * A finished `model.chat()` result as OpenAI's `chat.completion`.
 *
 * @example
 * const completion = toChatCompletion(await model.chat(options), completionMeta("local"));
 */
export function toChatCompletion(result: ChatResult, meta: CompletionMeta): ReasoningChatCompletion {
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: meta.model,
    choices: [
      { index: 0, message: toMessage(result.message), finish_reason: finishOf(result.finishReason), logprobs: null },
    ],
    usage: toCompletionUsage(result.usage),
    timings: toCompletionTimings(result.usage, result.timings),
  };
}

/**
 * Maps one request's `streamChat()` chunks to OpenAI chunks: a first chunk with the role, the deltas as they are, the
 * finish reason on its own chunk, and (with `include_usage`) a last chunk with the usage and no
 * choices, as OpenAI sends it.
 *
 * @example
 * const mapper = new ChunkMapper(completionMeta("local"), true);
 * send(mapper.start());
 * for await (const chunk of model.streamChat(options)) for (const c of mapper.map(chunk)) send(c);
 * for (const c of mapper.finish()) send(c);
 */
export class ChunkMapper {
  readonly #meta: CompletionMeta;
  readonly #includeUsage: boolean;
  #usage: ChatUsage | undefined;

  constructor(meta: CompletionMeta, includeUsage: boolean) {
    this.#meta = meta;
    this.#includeUsage = includeUsage;
  }

  #chunk(choices: ReasoningChatCompletionChunk["choices"]): ReasoningChatCompletionChunk {
    return {
      id: this.#meta.id,
      object: "chat.completion.chunk",
      created: this.#meta.created,
      model: this.#meta.model,
      choices,
      ...(this.#includeUsage ? { usage: null } : {}),
    };
  }

  /** The first chunk, as OpenAI sends it: the role and empty content. */
  start(): ReasoningChatCompletionChunk {
    return this.#chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null, logprobs: null }]);
  }

  /** The OpenAI chunks of one toolwright chunk (none for an empty delta). */
  map(chunk: ChatChunk): ReasoningChatCompletionChunk[] {
    const [choice] = chunk.choices;
    if (chunk.usage) this.#usage = chunk.usage;
    const d = choice.delta;
    const delta: ReasoningChatCompletionChunk["choices"][number]["delta"] = {};
    if (d.content !== undefined && d.content !== "") delta.content = d.content;
    if (d.reasoning_content !== undefined && d.reasoning_content !== "") delta.reasoning_content = d.reasoning_content;
    if (d.tool_calls?.length) {
      delta.tool_calls = d.tool_calls.map((t) => ({
        index: t.index,
        ...(t.id !== undefined ? { id: t.id, type: "function" as const } : {}),
        function: {
          ...(t.function.name !== undefined ? { name: t.function.name } : {}),
          arguments: t.function.arguments ?? "",
        },
      }));
    }
    if (choice.finish_reason !== null) {
      const last = this.#chunk([{ index: 0, delta, finish_reason: finishOf(choice.finish_reason), logprobs: null }]);
      return [
        chunk.usage && chunk.timings ? { ...last, timings: toCompletionTimings(chunk.usage, chunk.timings) } : last,
      ];
    }
    if (Object.keys(delta).length === 0) return [];
    return [this.#chunk([{ index: 0, delta, finish_reason: null, logprobs: null }])];
  }

  /** The last chunks: the usage, when asked for. */
  finish(): ReasoningChatCompletionChunk[] {
    if (!this.#includeUsage || !this.#usage) return [];
    return [
      {
        id: this.#meta.id,
        object: "chat.completion.chunk",
        created: this.#meta.created,
        model: this.#meta.model,
        choices: [],
        usage: toCompletionUsage(this.#usage),
      },
    ];
  }
}
