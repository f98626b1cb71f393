/**
 * Sampling and grammar options of `Context.generate`, validated and turned into the native
 * sampler's configuration.
 */
import type { NativeGrammarSpec, NativeSamplerOptions } from "./binding-types.js";
import {
  checkKeys,
  checkObject,
  checkString,
  checkTokens,
  describe,
  optBoolean,
  optInteger,
  optNumber,
  optStringArray,
} from "../validate/index.js";

/**
 * How the next token is picked. The chain runs penalties, top-k, top-p, min-p, temperature, then a
 * seeded random draw (or greedy).
 *
 * @example
 * context.generate({ prompt, sampling: { temperature: 0.7, topP: 0.9, seed: 42 } });
 */
export interface SamplingOptions {
  /** 0 means greedy. Default 0.8. */
  temperature?: number;
  /** Keep the k most likely tokens; 0 disables. Default 40. */
  topK?: number;
  /** Nucleus sampling; 1 disables. Default 0.95. */
  topP?: number;
  /** Drop tokens less likely than minP × the top one; 0 disables. Default 0.05. */
  minP?: number;
  /** Divide the logits of recent tokens by this (1 disables). Default 1. */
  repeatPenalty?: number;
  /** Subtract from the logits of tokens seen recently (0 disables). Default 0. */
  presencePenalty?: number;
  /** Subtract this × the count of each recent token (0 disables). Default 0. */
  frequencyPenalty?: number;
  /** How many recent tokens the penalties look at. Default 64. */
  penaltyLastN?: number;
  /** Seed of the random draw (0 … 2^32-2); the same seed and prompt give the same output. Default random. */
  seed?: number;
  /** Always pick the most likely token. Default false. */
  greedy?: boolean;
  /**
   * Fast-forward: where a grammar admits only one continuation (a tool call's markers, a schema's
   * keys, punctuation), its tokens (the tokenizer's canonical ones, cut before any boundary where a
   * token could run past the forced text) are decoded together in one forward pass. No effect
   * without a grammar; counted in `stats.forcedTokens` and `stats.forwardPasses`.
   *
   * `"checked"` (default): the forced tokens are decoded with the logits of each and kept only as far
   * as the model's own pick agrees (its pick replaces the first one it does not), so the output is
   * that of sampling each token, at any temperature, in fewer passes where the model agrees. Exactly
   * so where the backend gives a token the same logits in a batch as alone: on the CPU, where batches of
   * generated tokens take ggml's reference attention (a GPU's batched kernels can flip a near tie).
   * A request's first checked run has at most 4 tokens, and runs grow while the model agrees. Where it
   * writes the forced text its own way, the tokens decoded for nothing (`stats.droppedForcedTokens`)
   * are a debt that kept tokens pay back; while in debt, runs pause for as many picks (at most 16).
   * `true`: the forced tokens are taken as they are (the most passes saved; the model may have split
   * the text into other tokens, so later free text can differ). `false`: every token is sampled.
   */
  fastForward?: boolean | "checked";
}

/**
 * A GBNF grammar that constrains the output. With `lazy`, the grammar only applies once a trigger
 * pattern (regex, matched on the output from its start; the grammar sees the text from the first
 * capture group) or a trigger token appears.
 *
 * @example
 * context.generate({ prompt, grammar: { gbnf: 'root ::= "yes" | "no"' } });
 */
export interface GrammarOptions {
  gbnf: string;
  /** Start rule. Default "root". */
  root?: string;
  lazy?: { patterns?: string[]; tokens?: number[] };
  /**
   * Grammar engine: "toolwright" (ours, the default: fast masks on large vocabularies) or
   * "llama" (llama.cpp's GBNF sampler, kept as the reference). Both accept the same GBNF.
   */
  engine?: string;
}

/** How one sampling option is checked (`name` is the option as messages name it). */
type SamplingCheck<K extends keyof SamplingOptions> = (
  value: unknown,
  name: string,
  vocabSize: number,
) => NativeSamplerOptions[K] | undefined;

/**
 * The one table of sampling options: each key's check and range. The native sampler takes the
 * same keys; {@link SamplingOptions} documents them (the table must cover exactly its keys).
 */
const SAMPLING_TABLE: { readonly [K in keyof Required<SamplingOptions>]: SamplingCheck<K> } = {
  temperature: (v, name) => optNumber(v, name, 0, 1e6),
  topK: (v, name, vocabSize) => optInteger(v, name, 0, vocabSize),
  topP: (v, name) => optNumber(v, name, 0, 1),
  minP: (v, name) => optNumber(v, name, 0, 1),
  repeatPenalty: (v, name) => optNumber(v, name, 1e-6, 1e6),
  presencePenalty: (v, name) => optNumber(v, name, -1e6, 1e6),
  frequencyPenalty: (v, name) => optNumber(v, name, -1e6, 1e6),
  penaltyLastN: (v, name) => optInteger(v, name, 0, 1 << 20),
  seed: (v, name) => optInteger(v, name, 0, 0xfffffffe),
  greedy: (v, name) => optBoolean(v, name),
  fastForward: (v, name) => {
    if (v === undefined || typeof v === "boolean" || v === "checked") return v;
    throw new TypeError(`${name} must be a boolean or "checked", got ${describe(v)}`);
  },
};

/** The keys of {@link SamplingOptions} (generate and chat check them). */
export const SAMPLING_KEYS: readonly string[] = Object.keys(SAMPLING_TABLE);

/**
 * Checks `generate`'s sampling options against the table; the native sampler's configuration.
 *
 * @example
 * toNativeSampling({ temperature: 0.7, seed: 42 }, model.vocabSize); // { temperature: 0.7, seed: 42 }
 */
export function toNativeSampling(value: unknown, vocabSize: number): NativeSamplerOptions {
  const o = checkObject(value, "generate: options.sampling");
  checkKeys(o, SAMPLING_KEYS, "generate: options.sampling");
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(SAMPLING_TABLE) as (keyof SamplingOptions)[]) {
    const checked = SAMPLING_TABLE[key](o[key], `generate: options.sampling.${key}`, vocabSize);
    if (checked !== undefined) out[key] = checked;
  }
  return out as NativeSamplerOptions;
}

export function toNativeGrammar(value: unknown, vocabSize: number): NativeGrammarSpec {
  const o = checkObject(value, "generate: options.grammar");
  checkKeys(o, ["gbnf", "root", "lazy", "engine"], "generate: options.grammar");
  const gbnf = checkString(o.gbnf, "generate: options.grammar.gbnf");
  if (gbnf.trim() === "") throw new RangeError("generate: options.grammar.gbnf must not be empty");
  const spec: NativeGrammarSpec = { gbnf };
  if (o.root !== undefined) spec.root = checkString(o.root, "generate: options.grammar.root");
  if (o.engine !== undefined) spec.engine = checkString(o.engine, "generate: options.grammar.engine");
  if (o.lazy !== undefined) {
    const lazy = checkObject(o.lazy, "generate: options.grammar.lazy");
    checkKeys(lazy, ["patterns", "tokens"], "generate: options.grammar.lazy");
    const patterns = optStringArray(lazy.patterns, "generate: options.grammar.lazy.patterns") ?? [];
    const tokens =
      lazy.tokens === undefined
        ? new Int32Array(0)
        : checkTokens(lazy.tokens, "generate: options.grammar.lazy.tokens", vocabSize);
    if (patterns.length === 0 && tokens.length === 0) {
      throw new RangeError("generate: options.grammar.lazy needs at least one pattern or token");
    }
    spec.lazy = true;
    spec.triggerPatterns = patterns;
    spec.triggerTokens = tokens;
  }
  return spec;
}
