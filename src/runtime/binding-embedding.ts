/**
 * The addon's embedding context and memory measurement (native/embedding.cc, native/memory_usage.cc).
 */
import type { NativeModel } from "./binding-types.js";

/** Bytes llama.cpp allocated, summed over devices. */
export interface NativeMemoryUsage {
  /** The model's weights. */
  model: number;
  /** The context's KV cache or recurrent state. */
  context: number;
  /** Compute buffers. */
  compute: number;
}

export interface NativeEmbeddingOptions {
  contextSize?: number;
  sequences?: number;
  threads?: number;
  /** "model", "none", "mean", "cls", "last" or "rank" (a reranker's head: its scores are the vector). */
  pooling?: string;
}

export interface NativeEmbeddingInfo {
  contextSize: number;
  sequences: number;
  dimensions: number;
  /** The pooling in effect: "none", "mean", "cls", "last" or "rank". */
  pooling: string;
}

export interface NativeEmbeddingContext {
  info(): NativeEmbeddingInfo;
  /** One vector per text (pooling "none": one row of `dimensions` floats per token). */
  embed(
    texts: string[],
    options?: { normalize?: boolean; batchTokens?: number },
  ): Promise<{ vectors: Float32Array[]; tokenCounts: number[] }>;
  /** As embed(), for token lists decoded as given (no special tokens added): rank() uses it. */
  embedTokens(
    tokenLists: Int32Array[],
    options?: { normalize?: boolean; batchTokens?: number },
  ): Promise<{ vectors: Float32Array[]; tokenCounts: number[] }>;
  /** Makes the running embed() stop at the next graph node (it rejects with ABORT_ERR). */
  cancel(): void;
  dispose(): void;
  readonly disposed: boolean;
}

export interface NativeEmbeddingContextClass {
  create(model: NativeModel, options: NativeEmbeddingOptions): Promise<NativeEmbeddingContext>;
}

export interface NativeMeasureOptions {
  contextSize?: number;
  batchSize?: number;
  ubatchSize?: number;
  sequences?: number;
  embeddings?: boolean;
  pooling?: string;
  /** Full-size caches for sliding-window layers (llama.cpp's default: true). */
  swaFull?: boolean;
}

/** Creates a context with these settings, reads what llama.cpp allocated, frees it. */
export type NativeMeasureContextMemory = (
  model: NativeModel,
  options: NativeMeasureOptions,
) => Promise<NativeMemoryUsage & { contextSize: number }>;
