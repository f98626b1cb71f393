/**
 * `ContextOptions`, the options of `Model.createContext`, and the checks that take more than a range:
 * speculative decoding and flash attention, each mapped to its native form.
 */
import type { NativeContextOptions } from "./binding-types.js";
import type { LoraSpec } from "./lora.js";
import type { Model } from "./model.js";
import { checkKeys, checkObject, describe, optBoolean, optInteger, optNumber } from "../validate/index.js";

/** The keys of {@link ContextOptions} (createContext and ChatSession check them). */
export const CONTEXT_OPTION_KEYS: readonly string[] = [
  "contextSize",
  "batchSize",
  "threads",
  "threadsBatch",
  "poll",
  "sequences",
  "allowBeyondTraining",
  "loras",
  "speculative",
  "flashAttention",
  "warmUp",
];

/**
 * Speculative decoding ({@link ContextOptions.speculative}): after each sampled token, up to `maxDraft`
 * guessed tokens are decoded with it in the same forward pass, and each is kept only where the model's
 * own pick (sampled from the logits before it, as without drafts) agrees. The output is the same as
 * without drafts: at temperature 0, and draw for draw with a seeded sampler (for single-token drafts
 * this is rejection sampling's rule: a drafted token is kept with the model's probability for it). On the
 * CPU, batches of generated tokens compute attention with ggml's reference kernel, which gives a token the
 * same logits alone or in a batch. Elsewhere (a GPU, some weight types' matrix kernels) logits computed in a
 * batch of several tokens can differ in their last bits from those of one token, which may flip a near tie of
 * the top two.
 * Drafts the grammar refuses are cut before they cost a pass. Not for recurrent or hybrid models (a
 * rejected draft must leave the cache): there it does nothing.
 *
 * @example
 * const draft = await loadModel("qwen2.5-0.5b-instruct-q8_0.gguf");
 * const context = await model.createContext({ speculative: { draft, lookup: true } });
 */
export interface SpeculativeOptions {
  /**
   * Prompt lookup: draft the tokens that followed the latest earlier occurrence of the last 2 to 4 tokens
   * in the prompt or output (pays off where the output copies the conversation, as tool arguments often
   * do). Tried before the draft model. Default false.
   */
  lookup?: boolean;
  /**
   * A draft model with this model's vocabulary (a smaller one of its family), run greedily in a context of
   * its own (`contextSize` and `sequences` as this one's). Another vocabulary is a
   * TOOLWRIGHT_DRAFT_MISMATCH error.
   */
  draft?: Model;
  /** Most tokens drafted for one forward pass, 1 to 64. Default 8. */
  maxDraft?: number;
  /**
   * The draft model's draft stops at a token it gives less than this probability, 0 to 1 (default 0.75, as
   * llama-server's `--draft-p-min`): an unsure guess is rejected more often than not, and checking it costs more
   * than it saves. 0 drafts `maxDraft` tokens whatever the draft model thinks of them.
   */
  minProbability?: number;
}

/** The most sequences one context runs (llama.cpp's limit). */
export const MAX_SEQUENCES = 256;

/** Options of {@link Model.createContext}. */
export interface ContextOptions {
  /**
   * Tokens the KV cache holds, per sequence (rounded up to a multiple of 256). Default "auto": the model's
   * training context, at most 8192, and only as much as fits 80% of the free memory (of the GPU
   * holding the model, else RAM) less 256 MiB; at least min(training context, 512).
   */
  contextSize?: number | "auto";
  /** Most prompt tokens evaluated per native call. Default 512. */
  batchSize?: number;
  /**
   * CPU threads for generation. Default: the environment variable `TOOLWRIGHT_THREADS`, else
   * min(availableParallelism(), 8).
   */
  threads?: number;
  /** CPU threads for prompt evaluation. Default `threads`. */
  threadsBatch?: number;
  /**
   * How long idle CPU threads busy-wait for the next decode before they sleep, 0 to 100 (llama.cpp's
   * polling level). Default: the environment variable `TOOLWRIGHT_POLL`, else 50, which answers the
   * next token soonest on a machine of its own. 0 sleeps at once: better where other work shares
   * the cores, such as several contexts, a test suite or a busy desktop.
   *
   * @example
   * const context = await model.createContext({ threads: 2, poll: 0 });
   */
  poll?: number;
  /**
   * Decode one token through the model (and through `speculative.draft`'s) when the context is made, then empty
   * the cache, as llama-server does at startup (default false): the weights are read in (a memory-mapped file) and
   * the buffers touched then, so the first generation does not wait for it, and a context whose compute buffers
   * cannot be had fails here.
   *
   * @example
   * const context = await model.createContext({ sequences: 4, warmUp: true });
   */
  warmUp?: boolean;
  /**
   * Generations this context runs at once, 1 to 256 (default 1). With more than 1, each
   * {@link Context.generate} takes one of the context's sequences and all running ones are
   * decoded together in one batch per token (continuous batching: a new generation joins the
   * running batch, a finished one leaves it; beyond `sequences`, generations wait for a free one).
   * Each keeps its own sampler, grammar and stop strings, and a free sequence keeps its tokens
   * cached, so a prompt that continues an earlier one reuses that prefix. Each sequence has its
   * own cache of `contextSize` tokens (the KV cache takes `sequences` times the memory), so a
   * generation gives the same tokens alone or batched with others, but for the last bits of batched
   * evaluation: on the CPU, batches of generated tokens compute attention with ggml's reference kernel, which
   * treats each token alike whatever the batch, but a batch that also holds another sequence's prompt keeps the
   * fast one, and some weight types' matrix kernels differ between one row and several; either may flip a near
   * tie. `decode`, `clear`, `truncate` and `cachedTokens` are for single-sequence contexts only.
   *
   * @example
   * const context = await model.createContext({ sequences: 4 });
   * const texts = await Promise.all(prompts.map((prompt) => context.generate({ prompt, maxTokens: 64 }).text()));
   */
  sequences?: number;
  /**
   * Allow a `contextSize` beyond the model's training context (`model.info.trainContextSize`).
   * Default false: such a size is a RangeError with the memory it would take, since the model was
   * never trained on positions that far and the KV cache grows with it.
   */
  allowBeyondTraining?: boolean;
  /**
   * LoRA adapters applied from the start ({@link Context.setLoras}); default none.
   *
   * @example
   * const adapter = await model.loadLora("adapter.gguf");
   * const context = await model.createContext({ loras: [{ adapter, scale: 0.8 }] });
   */
  loras?: readonly LoraSpec[];
  /**
   * Speculative decoding with prompt lookup or a draft model ({@link SpeculativeOptions}); default off.
   *
   * @example
   * const context = await model.createContext({ speculative: { lookup: true } });
   */
  speculative?: SpeculativeOptions;
  /**
   * Flash attention: true, false, or "auto" (the default: on where the backend supports it for the model,
   * which includes the CPU). On a GPU it saves memory and time on long prompts. llama.cpp's CPU flash
   * attention takes another path for one token once the cache reaches 512 cells, and another for a batch
   * from 64 tokens; batches of generated tokens therefore take its reference kernel, which treats each token
   * alike, so checked fast-forward and speculative decoding (which decode several tokens at once) give what
   * step-by-step decoding gives. Off costs memory for the attention scores of a prompt batch
   * (`batchSize` × cached tokens × heads).
   *
   * @example
   * const context = await model.createContext({ flashAttention: false });
   */
  flashAttention?: boolean | "auto";
}

const SPECULATIVE_KEYS: readonly string[] = ["lookup", "draft", "maxDraft", "minProbability"];

/** `{ [key]: value }`, or nothing when the value is undefined (so the native default applies). */
export function defined<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/** The native form of `ContextOptions.speculative`, or undefined when off. */
export function checkSpeculative(value: unknown, model: Model): NativeContextOptions["speculative"] {
  if (value === undefined) return undefined;
  const where = "createContext: options.speculative";
  const o = checkObject(value, where);
  checkKeys(o, SPECULATIVE_KEYS, where);
  const lookup = optBoolean(o.lookup, `${where}.lookup`) ?? false;
  const maxDraft = optInteger(o.maxDraft, `${where}.maxDraft`, 1, 64);
  const minProbability = optNumber(o.minProbability, `${where}.minProbability`, 0, 1);
  // A Model of this package (the class is not imported here: model.ts imports this file).
  if (o.draft !== undefined && !(o.draft instanceof (model.constructor as new (...args: never[]) => Model))) {
    throw new TypeError(`${where}.draft must be a Model from loadModel(), got ${describe(o.draft)}`);
  }
  const draft = o.draft as Model | undefined;
  if (!lookup && draft === undefined) return undefined;
  return {
    lookup,
    ...defined("maxDraft", maxDraft),
    ...defined("minProbability", minProbability),
    ...(draft ? { draft: draft.native } : {}),
  };
}

/** The native form of `ContextOptions.flashAttention`: undefined for "auto" (llama.cpp decides). */
export function checkFlashAttention(value: unknown): boolean | undefined {
  if (value === undefined || value === "auto") return undefined;
  if (typeof value !== "boolean")
    throw new TypeError(`createContext: options.flashAttention must be true, false or "auto", got ${describe(value)}`);
  return value;
}
