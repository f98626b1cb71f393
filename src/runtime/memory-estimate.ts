/**
 * How much memory a model and a context of a given size will take, before loading anything:
 * the weights (the GGUF's tensor sizes), the KV cache (llama.cpp's layout, cell for cell), the
 * recurrent state, and the compute buffers (an approximation, see {@link MemoryEstimate}).
 */
import { readGguf } from "./gguf/reader.js";
import type { GgufFileInfo } from "./gguf/types.js";
import type { Model } from "./model.js";
import { MAX_LAYERS, modelFacts, type ModelFacts } from "./model-facts.js";
import { checkKeys, checkObject, describe, optBoolean, optInteger } from "../validate/index.js";

/** Options of {@link estimateMemory}. */
export interface MemoryEstimateOptions {
  /** Context size in tokens (llama.cpp rounds it up to a multiple of 256). Default min(training context, 8192). */
  contextSize?: number;
  /** Most tokens per decode call. Default 512. */
  batchSize?: number;
  /** Most tokens per graph evaluation. Default 512. */
  ubatchSize?: number;
  /** Parallel sequences. Default 1. */
  sequences?: number;
  /** KV cache element type. Default "f16" (llama.cpp's default). */
  kvType?: "f16" | "f32" | "q8_0";
  /**
   * Sliding-window layers get a cache of the whole context too (llama.cpp's `swa_full`, on by
   * default there and in toolwright's contexts: a cache that keeps every position can go back to
   * any prefix, which prefix reuse needs). false: only the window plus a micro-batch.
   * Default true.
   */
  swaFull?: boolean;
}

/**
 * Bytes a model and one of its contexts take. `kvCache` and `recurrentState` follow llama.cpp's
 * allocation exactly for the metadata given (a loaded model's string metadata lacks per-layer
 * arrays, where the scalar defaults are used). `computeBuffers` is an approximation: the larger
 * of the output phase (logits of a full micro-batch: ubatch × (4·vocab + 8·embedding + 4)
 * bytes, what dominates unless the FFN is wider than a third of the vocabulary) and the layer
 * phase (a micro-batch's activations: ubatch × 4 × (3·embedding + 3·FFN) bytes). It matches
 * llama.cpp's CPU buffers within 4% on the test models (to the byte on a Qwen2.5-0.5B-shaped
 * one) and leaves out GPU backends' extra host buffers.
 */
export interface MemoryEstimate {
  /** Cells of the KV cache: the context size rounded up as llama.cpp does. */
  contextSize: number;
  /** Weights: the sum of the tensors' data. */
  weights: number;
  /** K and V of every attention layer (sliding-window layers hold only their window). */
  kvCache: number;
  /** Recurrent (Mamba, RWKV) state, for recurrent and hybrid models. */
  recurrentState: number;
  /** Temporary buffers of a graph evaluation (approximate). */
  computeBuffers: number;
  /** Host buffer for the logits of one output per sequence. */
  outputBuffer: number;
  /** weights + kvCache + recurrentState + computeBuffers + outputBuffer. */
  total: number;
}

const KV_TYPES: Readonly<Record<string, { blockSize: number; typeSize: number }>> = {
  f16: { blockSize: 1, typeSize: 2 },
  f32: { blockSize: 1, typeSize: 4 },
  q8_0: { blockSize: 32, typeSize: 34 },
};
const OPTION_KEYS = ["contextSize", "batchSize", "ubatchSize", "sequences", "kvType", "swaFull"];
/** Buffers allocate each tensor at this alignment (ggml's CPU buffer alignment). */
const TENSOR_ALIGNMENT = 32;
/** The context size of the automatic choice at most (see Context's `contextSize: "auto"`). */
export const AUTO_CONTEXT_CAP = 8192;

const pad = (n: number, to: number) => Math.ceil(n / to) * to;

/** Checked options with defaults. */
interface PlannedEstimate {
  contextSize: number;
  batchSize: number;
  ubatchSize: number;
  sequences: number;
  kvType: { blockSize: number; typeSize: number };
  swaFull: boolean;
}

function planEstimate(options: unknown, facts: ModelFacts, where: string): PlannedEstimate {
  const o = checkObject(options, `${where}: options`);
  checkKeys(o, OPTION_KEYS, `${where}: options`);
  const kvName = o.kvType ?? "f16";
  const kvType = typeof kvName === "string" ? KV_TYPES[kvName] : undefined;
  if (!kvType)
    throw new RangeError(`${where}: options.kvType must be "f16", "f32" or "q8_0", got ${describe(o.kvType)}`);
  const train = facts.trainContextSize > 0 ? facts.trainContextSize : 4096;
  return {
    contextSize:
      optInteger(o.contextSize, `${where}: options.contextSize`, 1, 1 << 24) ?? Math.min(train, AUTO_CONTEXT_CAP),
    batchSize: optInteger(o.batchSize, `${where}: options.batchSize`, 1, 1 << 24) ?? 512,
    ubatchSize: optInteger(o.ubatchSize, `${where}: options.ubatchSize`, 1, 1 << 24) ?? 512,
    sequences: optInteger(o.sequences, `${where}: options.sequences`, 1, 256) ?? 1,
    kvType,
    swaFull: optBoolean(o.swaFull, `${where}: options.swaFull`) ?? true,
  };
}

function rowBytes(type: { blockSize: number; typeSize: number }, elements: number): number {
  return Math.ceil(elements / type.blockSize) * type.typeSize;
}

/**
 * The estimate from already-read facts and weight bytes (what {@link estimateMemory} computes
 * once it has them).
 *
 * @internal
 * @example
 * const e = estimateFromFacts(modelFacts(meta), weights, { contextSize: 4096 });
 */
export function estimateFromFacts(
  facts: ModelFacts,
  weights: number,
  options: MemoryEstimateOptions = {},
  where = "estimateMemory",
): MemoryEstimate {
  const p = planEstimate(options, facts, where);
  if (!(facts.layerCount >= 1 && facts.layerCount <= MAX_LAYERS) || !(facts.embeddingLength >= 1)) {
    throw new RangeError(
      `${where}: the metadata does not describe a model llama.cpp loads (${facts.architecture}.block_count ` +
        `${facts.layerCount}, ${facts.architecture}.embedding_length ` +
        `${facts.embeddingLength}; layers must be 1 to ${MAX_LAYERS})`,
    );
  }
  // llama.cpp pads the context to 256 cells, then gives each sequence its own stream of
  // n_ctx / sequences cells, padded to 256 again.
  const padded = pad(p.contextSize, 256);
  const perSequence = pad(Math.floor(padded / p.sequences), 256);
  const cells = perSequence * p.sequences;
  // A causal context evaluates at most min(n_ctx, n_batch) tokens per call.
  const ubatch = Math.min(p.ubatchSize, p.batchSize, cells);
  // Sliding-window layers keep only their window (plus a micro-batch), padded to 256 cells.
  const swaCells = Math.min(perSequence, pad(facts.slidingWindow + ubatch, 256)) * p.sequences;
  let kvCache = 0;
  let recurrentLayers = 0;
  for (let il = 0; il < facts.layerCount; il++) {
    const heads = facts.headCountKv[il] ?? 0;
    if (heads === 0) {
      if (facts.recurrent) recurrentLayers++;
      continue;
    }
    const layerCells = facts.slidingLayers[il] && !p.swaFull ? swaCells : cells;
    // Latent attention caches one compressed row per token (no separate V).
    const kWidth = facts.kvLoraRank > 0 ? facts.kvLoraRank + facts.ropeDimensions : facts.keyLength * heads;
    const vWidth = facts.kvLoraRank > 0 ? 0 : facts.valueLength * heads;
    kvCache += pad(rowBytes(p.kvType, kWidth) * layerCells, TENSOR_ALIGNMENT);
    if (vWidth > 0) kvCache += pad(rowBytes(p.kvType, vWidth) * layerCells, TENSOR_ALIGNMENT);
  }
  // One row of conv and one of SSM state per sequence and recurrent layer, in f32.
  const [conv, state] = facts.recurrentFloats;
  const recurrentState =
    recurrentLayers * (pad(conv * 4 * p.sequences, TENSOR_ALIGNMENT) + pad(state * 4 * p.sequences, TENSOR_ALIGNMENT));
  const embd = facts.embeddingLength;
  const outputPhase = ubatch * (4 * facts.vocabSize + 8 * embd + 4);
  const layerPhase = ubatch * 4 * (3 * embd + 3 * facts.feedForwardLength);
  const computeBuffers = Math.max(outputPhase, layerPhase);
  const outputBuffer = 4 * facts.vocabSize * p.sequences;
  return {
    contextSize: cells,
    weights,
    kvCache,
    recurrentState,
    computeBuffers,
    outputBuffer,
    total: weights + kvCache + recurrentState + computeBuffers + outputBuffer,
  };
}

function isModel(value: unknown): value is Model {
  return (
    value !== null &&
    typeof value === "object" &&
    "metadata" in value &&
    "info" in value &&
    typeof (value as Model).createContext === "function"
  );
}

function isFileInfo(value: unknown): value is GgufFileInfo {
  return (
    value !== null &&
    typeof value === "object" &&
    (value as GgufFileInfo).metadata instanceof Map &&
    Array.isArray((value as GgufFileInfo).tensors)
  );
}

/**
 * Estimates the memory of a model and one context, before loading it: from a GGUF path (only the
 * header is read), from what `readGguf` returned, or from a loaded {@link Model} (its string
 * metadata: per-layer arrays are not available there, so their scalar defaults are used).
 *
 * @throws {TypeError} for a source that is none of these, or bad options (RangeError for values out of range).
 * @throws {GgufError} when the file cannot be read as GGUF.
 * @example
 * import { estimateMemory } from "toolwright";
 * const e = await estimateMemory("model.gguf", { contextSize: 8192 });
 * console.log(e.weights, e.kvCache, e.computeBuffers, e.total);
 */
export async function estimateMemory(
  source: string | GgufFileInfo | Model,
  options: MemoryEstimateOptions = {},
): Promise<MemoryEstimate> {
  if (typeof source === "string") return estimateMemoryOfFile(await readGguf(source), options);
  if (isFileInfo(source)) return estimateMemoryOfFile(source, options);
  if (isModel(source)) return estimateFromFacts(modelFacts(source.metadata), source.info.sizeBytes, options);
  throw new TypeError(
    `estimateMemory: source must be a GGUF path, readGguf's result or a loaded Model, got ${describe(source)}`,
  );
}

function estimateMemoryOfFile(file: GgufFileInfo, options: MemoryEstimateOptions): MemoryEstimate {
  const weights = file.tensors.reduce((sum, t) => sum + pad(t.byteSize, TENSOR_ALIGNMENT), 0);
  return estimateFromFacts(modelFacts(file.metadata), weights, options);
}
