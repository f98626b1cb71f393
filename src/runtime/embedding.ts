/**
 * `model.embed()`: text embeddings on llama.cpp's embedding path. A model keeps one embedding
 * context (created on first use with the pooling and size asked for, and replaced when a call
 * asks for others); calls on it run one after another, each on a worker thread.
 */
import { defaultThreads } from "./cpu-threads.js";
import { loadNative } from "./binding.js";
import type { NativeModel } from "./binding-types.js";
import type { NativeEmbeddingContext } from "./binding-embedding.js";
import { AbortError, ContextOverflowError, awaitNative, disposedError, errorCode, fromNativeError } from "./errors.js";
import { checkKeys, checkObject, describe, optBoolean, optInteger, optSignal } from "../validate/index.js";

/**
 * How token vectors become one vector per text (llama.cpp's pooling types): "mean" averages
 * them, "cls" takes the first token's, "last" the last token's, "none" returns every token's
 * vector; "model" uses the model's own (`<arch>.pooling_type`).
 */
export type Pooling = "model" | "mean" | "cls" | "last" | "none";

const POOLINGS: readonly Pooling[] = ["model", "mean", "cls", "last", "none"];

/** Options of {@link Model.embed}. */
export interface EmbedOptions {
  /** Default: "model" when the model names its pooling (embedding models do), else "mean". */
  pooling?: Pooling;
  /** Scale each vector (each token's, with pooling "none") to an L2 norm of 1. Default true. */
  normalize?: boolean;
  /** Aborting rejects with an {@link AbortError}; the batch running stops at its next graph node. */
  signal?: AbortSignal;
  /**
   * Most tokens of one text (and of one batch of texts). Default min(training context, 512):
   * the compute buffers grow with it (by 4 bytes × vocabulary size per token).
   */
  contextSize?: number;
  /** CPU threads of the embedding context. Default as contexts: `TOOLWRIGHT_THREADS`, else min(cores, 8). */
  threads?: number;
}

/** Texts packed into one batch, in tokens, unless a single text is longer. */
const BATCH_TOKENS = 512;
const DEFAULT_CONTEXT = 512;
/** Most texts per native call (the native context batches up to 64 sequences at once). */
const CALL_TEXTS = 64;
/** Characters per native call: about one batch of BATCH_TOKENS tokens (a token is ~4 characters). */
const CALL_CHARACTERS = 4 * BATCH_TOKENS;

/**
 * Consecutive runs of inputs of about one batch each (a longer input goes alone), with the index
 * of each run's first input: texts by characters, token lists by tokens.
 */
function* callChunks<T extends string | Int32Array>(inputs: T[]): Generator<{ first: number; chunk: T[] }> {
  let chunk: T[] = [];
  let first = 0;
  let size = 0;
  for (const [i, input] of inputs.entries()) {
    const cost = typeof input === "string" ? input.length : input.length * (CALL_CHARACTERS / BATCH_TOKENS);
    if (chunk.length > 0 && (chunk.length === CALL_TEXTS || size + cost > CALL_CHARACTERS)) {
      yield { first, chunk };
      chunk = [];
      first = i;
      size = 0;
    }
    chunk.push(input);
    size += cost;
  }
  if (chunk.length > 0) yield { first, chunk };
}
const OPTION_KEYS = ["pooling", "normalize", "signal", "contextSize", "threads"];

/** Checked embed() options ("rank": a reranker's scores, for rank()). */
export interface PlannedEmbed {
  pooling: Pooling | "rank";
  normalize: boolean;
  signal: AbortSignal | undefined;
  contextSize: number;
  threads: number;
}

/**
 * Checks embed()'s texts and options. `texts` must be a string or an array of strings, none empty.
 *
 * @example
 * planEmbed(["a", "b"], { pooling: "mean" }, { trainContextSize: 4096, modelPooling: false });
 */
export function planEmbed(
  texts: unknown,
  options: unknown,
  model: { trainContextSize: number; modelPooling: boolean },
): { texts: string[]; plan: PlannedEmbed } {
  const list = typeof texts === "string" ? [texts] : texts;
  if (!Array.isArray(list))
    throw new TypeError(`Model.embed: texts must be a string or an array of strings, got ${describe(texts)}`);
  list.forEach((t: unknown, i) => {
    if (typeof t !== "string") throw new TypeError(`Model.embed: texts[${i}] must be a string, got ${describe(t)}`);
    if (t === "") throw new RangeError(`Model.embed: texts[${i}] is empty: there is nothing to embed`);
  });
  const o = checkObject(options, "Model.embed: options");
  checkKeys(o, OPTION_KEYS, "Model.embed: options");
  if (o.pooling !== undefined && !POOLINGS.includes(o.pooling as Pooling)) {
    throw new RangeError(
      `Model.embed: options.pooling must be ${POOLINGS.map((p) => `"${p}"`).join(", ")}, got ${describe(o.pooling)}`,
    );
  }
  const train = model.trainContextSize > 0 ? model.trainContextSize : DEFAULT_CONTEXT;
  return {
    texts: list as string[],
    plan: {
      pooling: (o.pooling as Pooling | undefined) ?? (model.modelPooling ? "model" : "mean"),
      normalize: optBoolean(o.normalize, "Model.embed: options.normalize") ?? true,
      signal: optSignal(o.signal, "Model.embed: options.signal"),
      contextSize:
        optInteger(o.contextSize, "Model.embed: options.contextSize", 1, 1 << 20) ?? Math.min(train, DEFAULT_CONTEXT),
      threads: optInteger(o.threads, "Model.embed: options.threads", 1, 1024) ?? defaultThreads(),
    },
  };
}

/** How a call's errors name it and its inputs: "Model.embed" and "texts". @internal */
export interface CallNames {
  method: string;
  label: string;
}

/** A model's embedding context and the queue of calls on it. @internal */
export class Embedder {
  readonly #model: () => NativeModel;
  #context: { key: string; native: NativeEmbeddingContext } | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  #disposed = false;

  constructor(model: () => NativeModel) {
    this.#model = model;
  }

  /** Runs one embed() call after the ones before it. */
  embed(texts: string[], plan: PlannedEmbed): Promise<Float32Array[]> {
    return this.#queue(() => this.#run(texts, plan, { method: "Model.embed", label: "texts" }));
  }

  /**
   * Decodes token lists as given (no special tokens added), after the calls before it; errors name
   * `method` and each list as `label[i]`.
   */
  embedTokens(lists: Int32Array[], plan: PlannedEmbed, names: CallNames): Promise<Float32Array[]> {
    return this.#queue(() => this.#run(lists, plan, names));
  }

  dispose(): void {
    this.#disposed = true;
    this.#context?.native.dispose();
    this.#context = undefined;
  }

  #queue(call: () => Promise<Float32Array[]>): Promise<Float32Array[]> {
    const run = this.#tail.catch(() => undefined).then(call);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #run(inputs: string[] | Int32Array[], plan: PlannedEmbed, names: CallNames): Promise<Float32Array[]> {
    const { method } = names;
    const aborted = () => new AbortError(`${method}: the embedding was aborted`, { cause: plan.signal?.reason });
    if (plan.signal?.aborted) throw aborted();
    if (inputs.length === 0) return [];
    const native = await this.#contextFor(plan, method);
    if (plan.signal?.aborted) throw aborted();
    const onAbort = () => native.cancel();
    plan.signal?.addEventListener("abort", onAbort, { once: true });
    let offset = 0;
    try {
      // A native call embeds about one batch of inputs: an abort is seen between calls too, and a
      // worker_thread being terminated waits for one call only (Node lets the thread pool's work
      // finish before it tears an environment down).
      const out: Float32Array[] = [];
      const options = { normalize: plan.normalize, batchTokens: BATCH_TOKENS };
      for (const { first, chunk } of callChunks<string | Int32Array>(inputs)) {
        if (plan.signal?.aborted) throw aborted();
        offset = first;
        const { vectors } =
          typeof chunk[0] === "string"
            ? await native.embed(chunk as string[], options)
            : await native.embedTokens(chunk as Int32Array[], options);
        for (const v of vectors) out.push(v);
      }
      return out;
    } catch (err) {
      const code = errorCode(err);
      // dispose() stops a running embedding the way an abort does.
      if (code === "ABORT_ERR" && this.#disposed && !plan.signal?.aborted)
        throw disposedError(`${method}: the model was disposed during the embedding`, { cause: err });
      if (code === "ABORT_ERR" || err instanceof AbortError) throw aborted();
      if (code === "TOOLWRIGHT_CONTEXT_OVERFLOW") {
        // The native message numbers the inputs of its own call: renumbered over the whole list.
        const [, index, tokens] = /^embed: \w+\[(\d+)\] has (\d+) tokens/.exec((err as Error).message) ?? [];
        const message = (err as Error).message
          .replace(/^embed: \w+\[\d+\]/, `${method}: ${names.label}[${Number(index ?? 0) + offset}]`)
          .replace(/^embed: /, `${method}: `);
        throw new ContextOverflowError(message, Number(tokens ?? 0), plan.contextSize, { cause: err });
      }
      throw fromNativeError(err);
    } finally {
      plan.signal?.removeEventListener("abort", onAbort);
    }
  }

  async #contextFor(plan: PlannedEmbed, method: string): Promise<NativeEmbeddingContext> {
    const key = `${plan.pooling}:${plan.contextSize}:${plan.threads}`;
    if (this.#context?.key === key) return this.#context.native;
    this.#context?.native.dispose();
    this.#context = undefined;
    const options = { contextSize: plan.contextSize, pooling: plan.pooling, threads: plan.threads };
    const native = await awaitNative(() => loadNative().EmbeddingContext.create(this.#model(), options));
    if (this.#disposed) {
      native.dispose();
      throw disposedError(`${method}: the model was disposed while its embedding context was being created`);
    }
    this.#context = { key, native };
    return native;
  }
}
