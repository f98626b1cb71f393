/**
 * `Context`: a KV cache on a model, and the place where text is generated.
 */
import { ToolwrightError } from "../errors.js";
import {
  loadNative,
  type NativeContext,
  type NativeGrammarSpec,
  type NativeSampler,
  type NativeSamplerOptions,
} from "./binding.js";
import { autoContextSize, freeMemoryFor } from "./context-size.js";
import { checkFlashAttention, checkSpeculative, defined } from "./context-options.js";
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
