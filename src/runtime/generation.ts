/**
 * `Context.generate()`: its options, checked up front, and the `Generation` it returns. The tokens
 * come from the context's batch scheduler (native/batch_scheduler.h), which samples, applies the
 * grammar and decodes natively on the context's own thread, so logits never cross into JS; the
 * loop that turns its events into text is in sequence-generation.ts.
 */
import { MediaPrompt, mediaTokensFault } from "./projector.js";
import type { NativeContext, NativeGrammarSpec, NativeSampler, NativeSamplerOptions } from "./binding-types.js";
import type { Context } from "./context.js";
import type { ContextOptions } from "./context-options.js";
import { type GrammarOptions, type SamplingOptions, toNativeGrammar, toNativeSampling } from "./sampling.js";
import { READ_AHEAD, runOnSequence } from "./sequence-generation.js";
import {
  checkKeys,
  checkObject,
  checkString,
  checkTokens,
  describe,
  optBoolean,
  optInteger,
  optSignal,
  optStringArray,
} from "../validate/index.js";

/** Why a generation ended. */
export type StopReason =
  /** The model produced an end-of-generation token. */
  | "eog"
  /** A stop string appeared (it is not part of the text). */
  | "stop"
  /** `maxTokens` tokens were generated. */
  | "maxTokens"
  /** The signal aborted; the context stays usable. */
  | "abort"
  /** The context has no room for another token. */
  | "contextFull";

/** Options of {@link Context.generate}: give `prompt` or `tokens`. */
export interface GenerateOptions {
  /** Prompt text, tokenized with the model's tokenizer (special-token text is parsed). */
  prompt?: string;
  /** Prompt as token ids (instead of `prompt`). */
  tokens?: ArrayLike<number>;
  /** Add BOS/EOS to `prompt` as the model asks. Default true (set false when a chat template already wrote BOS). */
  addSpecial?: boolean;
  /** Most tokens to generate. Default: until the context is full. */
  maxTokens?: number;
  /** The text ends before the first of these strings. */
  stop?: string[];
  sampling?: SamplingOptions;
  grammar?: GrammarOptions;
  /** Aborting ends the generation cleanly (stopReason "abort"). */
  signal?: AbortSignal;
  /** Reuse the cached prefix shared with the previous prompt (default true). */
  reusePrefix?: boolean;
  /**
   * Context shift (default false): when the prompt is a sequence's cached tokens with one span
   * removed (a conversation that left its oldest turns out), drop that span from the KV cache and
   * move the cached rest down instead of evaluating it again; only what follows is evaluated
   * (`stats.promptTokensShifted`). The moved tokens keep what the dropped ones contributed to them,
   * as after llama.cpp's context shift, so the output may differ from evaluating the prompt afresh.
   * Models whose cache cannot move positions (recurrent and hybrid ones, M-RoPE, a sliding window
   * cache smaller than the context) evaluate the prompt after its shared prefix, as without it. An
   * image is kept whole or evaluated again.
   *
   * @example
   * import { loadModel } from "toolwright";
   * const model = await loadModel("model.gguf");
   * const context = await model.createContext({ contextSize: 4096 });
   * const head = model.tokenize("System: be brief.\n");
   * const [old, kept] = [model.tokenize("User: old question\n"), model.tokenize("User: recent one\n")];
   * await context.generate({ tokens: [...head, ...old, ...kept], maxTokens: 8 }).text();
   * const next = context.generate({ tokens: [...head, ...kept], maxTokens: 8, contextShift: true });
   * await next.text(); // next.stats.promptTokensShifted: the tokens of `kept` (when at least 16)
   */
  contextShift?: boolean;
  /**
   * The images of the prompt: a {@link MediaPrompt} from `Model.tokenizeWithImages`. `tokens`
   * (default: its tokens) must start with its tokens, image placeholders included, and end with text.
   */
  media?: MediaPrompt;
  /**
   * Tokens handed over together (default 1: each as it is made). The first token comes at once; after it,
   * the context's thread hands them to the iterator `deliverEvery` at a time (the last group when the
   * generation ends), so the JS thread wakes once per group instead of once per token: on a CPU whose cores
   * all decode, that time goes back to the decode. For a reader that takes the whole text, not one that shows
   * each token as it comes. A stop string or a `break` is seen up to that many tokens late: the tokens made
   * after it are dropped from the cache, as tokens never read are. 1 to 16.
   *
   * @example
   * import { loadModel } from "toolwright";
   * const context = await (await loadModel("model.gguf")).createContext();
   * const answer = await context.generate({ prompt: "Q: 2+2?\nA:", maxTokens: 64, deliverEvery: 8 }).text();
   */
  deliverEvery?: number;
}

/** One generated token and the text it completes. */
export interface GeneratedToken {
  token: number;
  /**
   * New text (special tokens other than end-of-generation are rendered as their text, e.g.
   * `<|im_start|>`), always whole UTF-8 characters: a character split over tokens arrives with the token
   * that completes it, and text that may start a stop string is held back until it cannot. An
   * end-of-generation token is only yielded when it releases held-back text.
   */
  text: string;
}

/** Token counts of one generation. */
export interface GenerationStats {
  /** Tokens in the prompt. */
  promptTokens: number;
  /** Prompt tokens already in the cache from before (prefix reuse). */
  promptTokensReused: number;
  /** Prompt tokens that were evaluated. */
  promptTokensEvaluated: number;
  /**
   * Of the reused tokens, those kept by a context shift ({@link GenerateOptions.contextShift}):
   * moved in the cache past a dropped span instead of evaluated again.
   */
  promptTokensShifted: number;
  /** Tokens generated: sampled ones (including a final end-of-generation token) and forced ones. */
  tokensGenerated: number;
  /** Of those, tokens the grammar forced, appended without sampling (fast-forward). */
  forcedTokens: number;
  /**
   * Tokens drafted by speculative decoding ({@link ContextOptions.speculative}) and decoded to be
   * checked: each kept only where the model's own pick agreed.
   */
  draftedTokens: number;
  /** Of the drafted tokens, those kept (counted in `tokensGenerated` too). */
  acceptedDraftTokens: number;
  /**
   * Forced tokens decoded to be checked (`sampling.fastForward: "checked"`) where the model's own pick
   * differed, so they were dropped from the cache again: decode work that bought nothing. Where a model
   * keeps writing the forced text its own way, checked runs pause, which keeps this a small share of
   * `tokensGenerated`.
   */
  droppedForcedTokens: number;
  /**
   * Forward passes (decoded batches) the generation took part in up to its last token, its prompt's
   * included: fewer than its tokens when forced tokens are decoded together.
   */
  forwardPasses: number;
  /**
   * The context's sequence it ran on: 0 on a single-sequence context; on a parallel one, the
   * sequence the batch scheduler gave it (as llama-server's `id_slot`).
   */
  sequence: number;
}

/** What generate() needs from its Context (kept small to avoid a circular import of the class). */
export interface GenerationHost {
  readonly contextSize: number;
  readonly vocabSize: number;
  native(): NativeContext;
  tokenizePrompt(text: string, addSpecial: boolean): Promise<Int32Array>;
  createSampler(options: NativeSamplerOptions, grammar: NativeGrammarSpec | undefined): NativeSampler;
  acquire(): void;
  release(stats: GenerationStats): void;
}

interface Plan {
  prompt: string | undefined;
  tokens: Int32Array | undefined;
  media: MediaPrompt | undefined;
  addSpecial: boolean;
  maxTokens: number;
  stop: string[];
  sampling: NativeSamplerOptions;
  grammar: NativeGrammarSpec | undefined;
  signal: AbortSignal | undefined;
  reusePrefix: boolean;
  contextShift: boolean;
  deliverEvery: number;
}

/**
 * A generation whose iterator is dropped unfinished (neither read to the end nor returned) would
 * hold its sequence, paused for a reader that never comes: once the iterator is garbage, its
 * request ends and the context counts it as finished.
 */
const abandoned = new FinalizationRegistry<{ end?: () => void }>((held) => held.end?.());

/** Validates generate()'s options up front, so mistakes throw at the call. */
export function planGeneration(options: unknown, vocabSize: number): Plan {
  const o = checkObject(options, "generate: options");
  checkKeys(
    o,
    [
      "prompt",
      "tokens",
      "addSpecial",
      "maxTokens",
      "stop",
      "sampling",
      "grammar",
      "signal",
      "reusePrefix",
      "contextShift",
      "media",
      "deliverEvery",
    ],
    "generate: options",
  );
  const source = o.media === undefined ? planText(o, vocabSize) : planMedia(o, vocabSize);
  const stop = optStringArray(o.stop, "generate: options.stop") ?? [];
  stop.forEach((s, i) => {
    if (s === "") throw new RangeError(`generate: options.stop[${i}] must not be empty`);
  });
  return {
    ...source,
    addSpecial: optBoolean(o.addSpecial, "generate: options.addSpecial") ?? true,
    maxTokens: optInteger(o.maxTokens, "generate: options.maxTokens", 0, 2 ** 31 - 1) ?? Number.POSITIVE_INFINITY,
    stop,
    sampling: toNativeSampling(o.sampling, vocabSize),
    grammar: o.grammar === undefined ? undefined : toNativeGrammar(o.grammar, vocabSize),
    signal: optSignal(o.signal, "generate: options.signal"),
    reusePrefix: optBoolean(o.reusePrefix, "generate: options.reusePrefix") ?? true,
    contextShift: optBoolean(o.contextShift, "generate: options.contextShift") ?? false,
    deliverEvery: optInteger(o.deliverEvery, "generate: options.deliverEvery", 1, READ_AHEAD) ?? 1,
  };
}

/** The prompt of a generation: text or token ids. */
function planText(o: Record<string, unknown>, vocabSize: number): Pick<Plan, "prompt" | "tokens" | "media"> {
  if (o.prompt === undefined && o.tokens === undefined)
    throw new TypeError("generate: options.prompt or options.tokens is required");
  if (o.prompt !== undefined && o.tokens !== undefined)
    throw new TypeError("generate: give options.prompt or options.tokens, not both");
  const prompt = o.prompt === undefined ? undefined : checkString(o.prompt, "generate: options.prompt");
  const tokens = o.tokens === undefined ? undefined : checkTokens(o.tokens, "generate: options.tokens", vocabSize);
  return { prompt, tokens: tokens ? Int32Array.from(tokens) : undefined, media: undefined };
}

/** The prompt of a generation with images: `media`, and `tokens` that start with its tokens. */
function planMedia(o: Record<string, unknown>, vocabSize: number): Pick<Plan, "prompt" | "tokens" | "media"> {
  if (!(o.media instanceof MediaPrompt))
    throw new TypeError(
      `generate: options.media must be a MediaPrompt (from model.tokenizeWithImages), got ${describe(o.media)}`,
    );
  if (o.prompt !== undefined)
    throw new TypeError("generate: options.media goes with options.tokens, not options.prompt");
  const media = o.media;
  const tokens = o.tokens === undefined ? media.tokens : checkMediaTokens(o.tokens, vocabSize);
  const fault = mediaTokensFault(tokens, media);
  if (fault !== undefined) throw new RangeError(`generate: options.tokens: ${fault}`);
  return { prompt: undefined, tokens: Int32Array.from(tokens), media };
}

/** Token ids, or negative image placeholders (checked against the media prompt after). */
function checkMediaTokens(value: unknown, vocabSize: number): Int32Array {
  if (!(value instanceof Int32Array))
    throw new TypeError(`generate: options.tokens must be an Int32Array with options.media, got ${describe(value)}`);
  const over = value.findIndex((t) => t >= vocabSize);
  if (over >= 0)
    throw new RangeError(`generate: options.tokens[${over}] must be a token id below ${vocabSize}, got ${value[over]}`);
  return value;
}

/**
 * A running generation: iterate it for tokens, or await {@link Generation.text}. It can be
 * consumed once; `stopReason` and `stats` are filled in as it runs.
 *
 * @example
 * const generation = context.generate({ prompt: "Hi", maxTokens: 32 });
 * for await (const { text } of generation) process.stdout.write(text);
 * console.log(generation.stopReason, generation.stats.tokensGenerated);
 */
export class Generation implements AsyncIterable<GeneratedToken> {
  /** Why it ended; undefined while running. */
  stopReason: StopReason | undefined;
  readonly stats: GenerationStats = {
    promptTokens: 0,
    promptTokensReused: 0,
    promptTokensEvaluated: 0,
    promptTokensShifted: 0,
    tokensGenerated: 0,
    forcedTokens: 0,
    draftedTokens: 0,
    acceptedDraftTokens: 0,
    droppedForcedTokens: 0,
    forwardPasses: 0,
    sequence: 0,
  };
  readonly #host: GenerationHost;
  readonly #plan: Plan;
  /** Built by generate() (so grammar mistakes surface there); used by the first iteration. */
  #sampler: NativeSampler | undefined;
  #consumed = false;

  /** @internal Use {@link Context.generate}. */
  constructor(host: GenerationHost, plan: Plan, sampler?: NativeSampler) {
    this.#host = host;
    this.#plan = plan;
    this.#sampler = sampler;
  }

  [Symbol.asyncIterator](): AsyncIterator<GeneratedToken> {
    if (this.#consumed) throw new Error("Generation: a generation can be iterated only once");
    this.#consumed = true;
    // What ends the request must not refer to the iterator, or it would never be garbage.
    const held: { end?: () => void } = {};
    const it = this.#run(held);
    abandoned.register(it, held, held);
    return it;
  }

  /**
   * Runs the generation to the end and returns all of its text.
   *
   * @example
   * const text = await context.generate({ prompt: "2+2=", maxTokens: 4 }).text();
   */
  async text(): Promise<string> {
    let out = "";
    for await (const chunk of this) out += chunk.text;
    return out;
  }

  /**
   * The generation runs on one of the context's sequences, batched with any others running.
   * `held.end` ends it if the iterator is dropped unfinished (see `abandoned`).
   */
  #run(held: { end?: () => void }): AsyncGenerator<GeneratedToken, void, undefined> {
    const host = this.#host;
    const stats = this.stats;
    let released = true; // until acquired
    const release = () => {
      if (!released) host.release(stats);
      released = true;
    };
    const samplerOf = () => {
      host.acquire();
      released = false;
      held.end = release;
      const sampler = this.#sampler ?? host.createSampler(this.#plan.sampling, this.#plan.grammar);
      this.#sampler = undefined;
      return sampler;
    };
    return runOnSequence(host, this.#plan, samplerOf, {
      stats,
      stop: (reason) => (this.stopReason = reason),
      submitted: (cancel) => {
        held.end = () => {
          cancel();
          release();
        };
      },
      ended: (completed) => {
        if (completed && this.stopReason === undefined && this.#plan.signal?.aborted) this.stopReason = "abort";
        abandoned.unregister(held);
        release();
      },
    });
  }
}
