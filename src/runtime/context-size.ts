/**
 * The automatic context size: as large as the model was trained for, capped at
 * {@link AUTO_CONTEXT_CAP} tokens, and only as large as fits the free memory of where the
 * context will live (the GPU holding the model, else RAM) with a margin.
 *
 * Why the cap: node-llama-cpp's "auto" goes up to the training context when memory allows, but
 * training contexts of 32K–1M tokens make a KV cache of GBs that a tool-calling app rarely
 * fills, and a large cache slows nothing down only until it is used. An explicit `contextSize`
 * goes up to the training context (and beyond with `allowBeyondTraining`).
 */
import { freemem } from "node:os";
import { listDevices } from "./devices.js";
import { AUTO_CONTEXT_CAP, estimateFromFacts } from "./memory-estimate.js";
import type { Model } from "./model.js";
import { modelFacts } from "./model-facts.js";

/** Share of the free memory the automatic choice may use, and a fixed reserve on top. */
const MEMORY_SHARE = 0.8;
const MEMORY_RESERVE = 256 * 1024 * 1024;
/** The automatic choice never goes below this (or the training context, when smaller). */
export const AUTO_CONTEXT_FLOOR = 512;

/** Bytes free where the model's context will be allocated: the fullest GPU it uses, or RAM. */
export function freeMemoryFor(model: Model): number {
  const used = new Set(model.placement.devices.map((d) => d.name));
  if (used.size > 0) {
    const gpus = listDevices().filter((d) => used.has(d.name) && d.memoryTotal > 0);
    if (gpus.length > 0) return Math.min(...gpus.map((d) => d.memoryFree));
  }
  return freemem();
}

/**
 * The automatic context size of `model` for a context of `batchSize` (see the file comment):
 * the largest multiple of 256 up to min(training context, 8192) whose KV cache and buffers fit
 * 80% of the free memory less 256 MiB; at least min(training context, 512). With `sequences`,
 * the size is each sequence's, and the caches of all of them must fit.
 *
 * @example
 * const size = autoContextSize(model, { batchSize: 512 }, freeMemoryFor(model));
 */
export function autoContextSize(
  model: Model,
  options: { batchSize?: number; sequences?: number },
  freeBytes: number,
): number {
  const facts = modelFacts(model.metadata);
  const train = model.info.trainContextSize > 0 ? model.info.trainContextSize : 4096;
  const max = Math.min(train, AUTO_CONTEXT_CAP);
  const floor = Math.min(train, AUTO_CONTEXT_FLOOR);
  const budget = freeBytes * MEMORY_SHARE - MEMORY_RESERVE;
  const sequences = options.sequences ?? 1;
  const cost = (size: number) => {
    const e = estimateFromFacts(
      facts,
      0,
      { contextSize: size * sequences, sequences, ...(options.batchSize ? { batchSize: options.batchSize } : {}) },
      "createContext",
    );
    return e.kvCache + e.recurrentState + e.computeBuffers + e.outputBuffer;
  };
  if (cost(max) <= budget) return max;
  // The cost grows with the size: binary search over multiples of 256.
  let lo = 0;
  let hi = Math.floor(max / 256);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (cost(mid * 256) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return Math.max(floor, lo * 256);
}
