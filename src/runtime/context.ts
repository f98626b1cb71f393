/**
 * `Context`: a KV cache on a model, and the place where text is generated.
 */
import { ToolwrightError } from "../errors.js";
import { loadNative } from "./binding.js";
import type { NativeContext, NativeGrammarSpec, NativeSampler, NativeSamplerOptions } from "./binding-types.js";
import { autoContextSize, freeMemoryFor } from "./context-size.js";
import {
  CONTEXT_OPTION_KEYS,
  type ContextOptions,
  MAX_SEQUENCES,
  checkFlashAttention,
  checkSpeculative,
  defined,
} from "./context-options.js";
import { defaultPoll, defaultThreads } from "./cpu-threads.js";
import { awaitNative, callNative, disposedError, errorCode } from "./errors.js";
import { type LoraSpec, checkLoras, loraNames } from "./lora.js";
import {
  type SavedStateInfo,
  type StateOptions,
  checkStatePath,
  readStateFile,
  restoreSequence,
  stateSequenceOption,
  writeStateFile,
} from "./saved-state.js";
import { estimateFromFacts } from "./memory-estimate.js";
import { modelFacts } from "./model-facts.js";
import {
  type GenerateOptions,
  Generation,
  type GenerationHost,
  type GenerationStats,
  planGeneration,
} from "./generation.js";
import type { Model } from "./model.js";
import { checkKeys, checkObject, checkTokens, describe, optBoolean, optInteger } from "../validate/index.js";

/** Cumulative token counts of a context (all generations on it). */
export interface ContextStats {
  /** Prompt tokens evaluated (not counting reused prefixes). */
  promptTokensEvaluated: number;
  /** Prompt tokens found already in the cache and not evaluated again. */
  promptTokensReused: number;
  /** Of the reused tokens, those kept by a context shift (`GenerateOptions.contextShift`). */
  promptTokensShifted: number;
  /** Tokens sampled. */
  tokensGenerated: number;
  /** Every token the native context evaluated (prompts and generated tokens). */
  evaluatedTokens: number;
}

const registry = new FinalizationRegistry<NativeContext>((native) => native.dispose());

/**
 * A generation context: the model's KV cache for one conversation. One generation runs on a
 * context at a time; create several contexts to generate in parallel.
 *
 * @example
 * await using context = await model.createContext({ contextSize: 2048 });
 * const text = await context.generate({ prompt: "The capital of France is", maxTokens: 8 }).text();
 */
export class Context {
  /** The model this context runs. */
  readonly model: Model;
  /** KV cache size in tokens. */
  readonly contextSize: number;
  /** Prompt batch size. */
  readonly batchSize: number;
  /** Generation threads. */
  readonly threads: number;
  /** Generations it runs at once ({@link ContextOptions.sequences}). */
  readonly sequences: number;

  #native: NativeContext | undefined;
  /** Generations running (at most 1 on a single-sequence context). */
  #generating = 0;
  readonly #stats = {
    promptTokensEvaluated: 0,
    promptTokensReused: 0,
    promptTokensShifted: 0,
    tokensGenerated: 0,
  };
  readonly #host: GenerationHost;
  #loras: readonly LoraSpec[] = [];

  /** @internal Use {@link Model.createContext}. */
  static async create(model: Model, options: ContextOptions = {}): Promise<Context> {
    const o = checkObject(options, "createContext: options");
    checkKeys(o, CONTEXT_OPTION_KEYS, "createContext: options");
    const auto = o.contextSize === undefined || o.contextSize === "auto";
    if (typeof o.contextSize === "string" && !auto)
      throw new RangeError(
        `createContext: options.contextSize must be a number of tokens or "auto", got ${describe(o.contextSize)}`,
      );
    const requested = auto ? undefined : optInteger(o.contextSize, "createContext: options.contextSize", 1, 1 << 24);
    const allowBeyondTraining =
      optBoolean(o.allowBeyondTraining, "createContext: options.allowBeyondTraining") ?? false;
    const batchSize = optInteger(o.batchSize, "createContext: options.batchSize", 1, 1 << 20);
    const train = model.info.trainContextSize;
    if (requested !== undefined && train > 0 && requested > train && !allowBeyondTraining) {
      throw new RangeError(
        `createContext: options.contextSize ${requested} exceeds the model's training context (${train} ` +
          `tokens); its KV cache would take about ` +
          `${formatBytes(kvCacheBytes(model, requested))} ` +
          `(${formatBytes(kvCacheBytes(model, train))} at ${train}). Pass allowBeyondTraining: ` +
          `true to use it anyway`,
      );
    }
    const sequences = optInteger(o.sequences, "createContext: options.sequences", 1, MAX_SEQUENCES);
    // "auto" sizes each sequence so that the caches of all of them fit.
    const contextSize =
      requested ??
      autoContextSize(
        model,
        { ...defined("batchSize", batchSize), ...defined("sequences", sequences) },
        freeMemoryFor(model),
      );
    const threads = optInteger(o.threads, "createContext: options.threads", 1, 1024) ?? defaultThreads();
    const nativeOptions = {
      contextSize,
      ...defined("batchSize", batchSize),
      threads,
      threadsBatch: optInteger(o.threadsBatch, "createContext: options.threadsBatch", 1, 1024) ?? threads,
      poll: optInteger(o.poll, "createContext: options.poll", 0, 100) ?? defaultPoll(),
      ...defined("sequences", sequences),
      ...defined("speculative", checkSpeculative(o.speculative, model)),
      ...defined("flashAttention", checkFlashAttention(o.flashAttention)),
      ...defined("warmUp", optBoolean(o.warmUp, "createContext: options.warmUp")),
    };
    const loras = o.loras === undefined ? [] : checkLoras(o.loras, "createContext: options.loras", model);
    const native = await awaitNative(() => loadNative().Context.create(model.native, nativeOptions));
    const context = new Context(model, native);
    if (loras.length > 0) {
      try {
        await context.#applyLoras(loras);
      } catch (err) {
        context.dispose();
        throw err;
      }
    }
    return context;
  }

  private constructor(model: Model, native: NativeContext) {
    this.model = model;
    this.#native = native;
    const info = native.info();
    this.contextSize = info.contextSize;
    this.batchSize = info.batchSize;
    this.threads = info.threads;
    this.sequences = info.sequences;
    registry.register(this, native, this);
    this.#host = {
      contextSize: info.contextSize,
      vocabSize: model.vocabSize,
      native: () => this.native,
      tokenizePrompt: (text, addSpecial) => model.tokenizeAsync(text, { addSpecial, parseSpecial: true }),
      createSampler: (sampling: NativeSamplerOptions, grammar: NativeGrammarSpec | undefined): NativeSampler => {
        const sampler = callNative(() => new (loadNative().Sampler)(model.native, sampling));
        if (grammar) {
          try {
            callNative(() => sampler.setGrammar(grammar));
          } catch (err) {
            sampler.dispose();
            throw err;
          }
        }
        return sampler;
      },
      acquire: () => {
        this.native; // throws when disposed
        // A parallel context queues generations beyond its sequences natively.
        if (this.#generating > 0 && this.sequences === 1) {
          throw new ToolwrightError(
            "Context.generate: another generation is running on this context; finish it first or create another " +
              "context (or one with sequences > 1)",
            "TOOLWRIGHT_CONTEXT_BUSY",
          );
        }
        this.#generating++;
      },
      release: (stats: GenerationStats) => {
        this.#generating--;
        this.#stats.promptTokensEvaluated += stats.promptTokensEvaluated;
        this.#stats.promptTokensReused += stats.promptTokensReused;
        this.#stats.promptTokensShifted += stats.promptTokensShifted;
        this.#stats.tokensGenerated += stats.tokensGenerated;
      },
    };
  }

  /** @internal The live native handle. */
  get native(): NativeContext {
    if (!this.#native) throw disposedError("Context is disposed");
    return this.#native;
  }

  /**
   * Whether {@link Context.dispose} was called (directly or by disposing the model).
   *
   * @example
   * if (!context.disposed) context.dispose();
   */
  get disposed(): boolean {
    return this.#native === undefined;
  }

  /**
   * Number of tokens in the KV cache.
   *
   * @example
   * console.log(`${context.size} / ${context.contextSize} tokens used`);
   */
  get size(): number {
    return callNative(() => this.native.size);
  }

  /**
   * Cumulative token counts, e.g. to check that a follow-up prompt reused the cached prefix.
   *
   * @example
   * const before = context.stats.promptTokensEvaluated;
   * await context.generate({ prompt: samePromptPlusMore, maxTokens: 1 }).text();
   * console.log(context.stats.promptTokensEvaluated - before); // only the new tokens
   */
  get stats(): ContextStats {
    return { ...this.#stats, evaluatedTokens: callNative(() => this.native.stats()).evaluatedTokens };
  }

  /**
   * The tokens in the KV cache, in order (a copy). Throws (code TOOLWRIGHT_CONTEXT_BUSY) while a
   * generation runs: its next token is being decoded into the cache then.
   *
   * @example
   * const cached = context.cachedTokens();
   */
  cachedTokens(): Int32Array {
    this.#notGenerating("Context.cachedTokens");
    return callNative(() => this.native.tokens());
  }

  /** The cache belongs to a running generation (whose tokens are decoded on the context's thread meanwhile). */
  #notGenerating(method: string): void {
    if (this.#generating > 0) {
      throw new ToolwrightError(`${method}: a generation is running on this context`, "TOOLWRIGHT_CONTEXT_BUSY");
    }
    if (this.sequences > 1) {
      throw new TypeError(
        `${method}: this context runs ${this.sequences} sequences; the method is for single-sequence contexts ` +
          `(sequences: 1)`,
      );
    }
  }

  /**
   * Generates tokens. Options are checked now; the work starts when the result is iterated.
   * The context is reserved until the iteration ends: run it to the end, `break` out of the
   * loop, or abort through `signal`.
   *
   * @example
   * const generation = context.generate({
   *   prompt: "List three colors:",
   *   maxTokens: 64,
   *   stop: ["\n\n"],
   *   sampling: { temperature: 0.7, seed: 1 },
   *   signal: AbortSignal.timeout(10_000),
   * });
   * for await (const { text } of generation) process.stdout.write(text);
   * console.log(generation.stopReason);
   */
  generate(options: GenerateOptions): Generation {
    this.native;
    const plan = planGeneration(options, this.model.vocabSize);
    // The sampler (and its grammar) is built here, so a grammar mistake is thrown by generate()
    // itself, naming the rule, line and column, not at the first iteration.
    let sampler: NativeSampler | undefined;
    try {
      sampler = this.#host.createSampler(plan.sampling, plan.grammar);
    } catch (err) {
      if (errorCode(err) === "TOOLWRIGHT_INVALID_GRAMMAR")
        throw new ToolwrightError(
          `generate: options.grammar: ${(err as Error).message}`,
          "TOOLWRIGHT_INVALID_GRAMMAR",
          { cause: err },
        );
      throw err;
    }
    return new Generation(this.#host, plan, sampler);
  }

  /**
   * Appends tokens to the KV cache (evaluates them) without sampling. Rejects with a
   * ToolwrightError of code TOOLWRIGHT_CONTEXT_FULL when they do not fit (nothing is added), or
   * TOOLWRIGHT_DECODE_FAILED when llama.cpp fails.
   *
   * @example
   * await context.decode(model.tokenize(systemPrompt));
   */
  async decode(tokens: ArrayLike<number>): Promise<void> {
    const ids = checkTokens(tokens, "Context.decode: tokens", this.model.vocabSize);
    this.#notGenerating("Context.decode");
    await awaitNative(() => this.native.decode(ids));
  }

  /**
   * Empties the KV cache. Throws (code TOOLWRIGHT_CONTEXT_BUSY) while a generation runs.
   *
   * @example
   * context.clear();
   */
  clear(): void {
    this.#notGenerating("Context.clear");
    callNative(() => this.native.clear());
  }

  /**
   * Keeps the first `keep` cached tokens and drops the rest. Returns false (and changes nothing)
   * when the model cannot drop part of a sequence (recurrent models). Throws (code
   * TOOLWRIGHT_CONTEXT_BUSY) while a generation runs.
   *
   * @example
   * context.truncate(systemPromptLength);
   */
  truncate(keep: number): boolean {
    this.#notGenerating("Context.truncate");
    const n = optInteger(keep, "Context.truncate: keep", 0, 2 ** 31 - 1);
    if (n === undefined) throw new TypeError("Context.truncate: keep is required");
    return callNative(() => this.native.truncate(n));
  }

  /**
   * The LoRA adapters applied, with their scales (empty: the base weights).
   *
   * @example
   * console.log(context.loras.map(({ adapter, scale }) => `${adapter.path} x${scale}`));
   */
  get loras(): readonly LoraSpec[] {
    return this.#loras;
  }

  /**
   * Applies these LoRA adapters (of this context's model) with their scales, replacing the ones
   * applied before; `[]` goes back to the base weights. A changed set empties the cache (its tokens were
   * computed under other weights). Rejects (code TOOLWRIGHT_CONTEXT_BUSY) while a generation runs.
   *
   * @example
   * const adapter = await model.loadLora("adapter.gguf");
   * await context.setLoras([{ adapter, scale: 1 }]);
   * await context.setLoras([]); // the base model again
   */
  async setLoras(loras: readonly LoraSpec[]): Promise<void> {
    const checked = checkLoras(loras, "Context.setLoras: loras", this.model);
    this.#idle("Context.setLoras");
    await this.#applyLoras(checked);
  }

  async #applyLoras(loras: ReturnType<typeof checkLoras>): Promise<void> {
    await awaitNative(() => this.native.setLoras(loras.map(({ adapter, scale }) => ({ adapter, scale }))));
    this.#loras = Object.freeze(loras.map(({ spec }) => Object.freeze({ ...spec })));
  }

  /**
   * Writes one sequence's KV cache and its tokens to `path` (written to a temporary file, then renamed), with
   * a header naming the model and adapters, so {@link Context.loadState} can restore it later, in another
   * context or process, without evaluating those tokens again. Rejects (code TOOLWRIGHT_CONTEXT_BUSY) while a
   * generation runs on that sequence.
   *
   * @example
   * await context.generate({ prompt: longSystemPrompt, maxTokens: 0 }).text();
   * await context.saveState("system-prompt.state");
   */
  async saveState(path: string, options: StateOptions = {}): Promise<SavedStateInfo> {
    const file = checkStatePath(path, "Context.saveState: path");
    const sequence = stateSequenceOption(options, "Context.saveState", this.sequences);
    const saved = await awaitNative(() => this.native.saveSequence(sequence ?? -1));
    await writeStateFile(file, this.model, { loras: loraNames(this.#loras), sequences: this.sequences }, saved);
    return { sequence: saved.sequence, tokens: saved.tokens };
  }

  /**
   * Restores a state {@link Context.saveState} wrote onto a sequence, replacing what it held: a prompt that
   * starts with the restored tokens reuses them instead of evaluating them. Throws a {@link SavedStateError}
   * naming the path: ENOENT, TOOLWRIGHT_STATE_INVALID (not a state file, another format version, truncated or
   * corrupt) or TOOLWRIGHT_STATE_MISMATCH (another model, other LoRA adapters, more tokens than the context).
   *
   * @example
   * await context.loadState("system-prompt.state");
   * await context.generate({ prompt: longSystemPrompt + question }).text(); // evaluates only the question
   */
  async loadState(path: string, options: StateOptions = {}): Promise<SavedStateInfo> {
    const file = checkStatePath(path, "Context.loadState: path");
    const requested = stateSequenceOption(options, "Context.loadState", this.sequences);
    this.native;
    const state = await readStateFile(file, this.model, {
      loras: loraNames(this.#loras),
      sequences: this.sequences,
      contextSize: this.contextSize,
    });
    const sequence = await restoreSequence(this.native, file, requested, state);
    return { sequence, tokens: state.tokens };
  }

  /** No generation runs (adapters change every sequence's weights). */
  #idle(method: string): void {
    if (this.#generating > 0) {
      throw new ToolwrightError(`${method}: a generation is running on this context`, "TOOLWRIGHT_CONTEXT_BUSY");
    }
  }

  /**
   * Frees the KV cache. Idempotent; a step still running finishes first (natively).
   *
   * @example
   * context.dispose();
   */
  dispose(): void {
    if (!this.#native) return;
    registry.unregister(this);
    this.#native.dispose();
    this.#native = undefined;
    this.model.forgetContext(this);
  }

  /**
   * `await using context = await model.createContext()` disposes it at the end of the scope.
   *
   * @example
   * { await using context = await model.createContext(); }
   */
  async [Symbol.asyncDispose](): Promise<void> {
    this.dispose();
  }

  /**
   * Same as {@link Context.dispose}, for `using`.
   *
   * @example
   * { using context = await model.createContext(); }
   */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** The KV cache of `tokens` positions, as estimated from the model's metadata. */
function kvCacheBytes(model: Model, tokens: number): number {
  const e = estimateFromFacts(modelFacts(model.metadata), 0, { contextSize: tokens }, "createContext");
  return e.kvCache + e.recurrentState;
}

function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}
