/**
 * The memory part of `toolwright inspect`: what the model and a context of its default size (and
 * of its whole training context, when larger) would take, from the file's header (see
 * estimateMemory: weights and KV cache exact, compute buffers approximate).
 */
import { AUTO_CONTEXT_CAP, estimateFromFacts, type MemoryEstimate } from "../runtime/memory-estimate.js";
import { modelFacts } from "../runtime/model-facts.js";
import type { GgufFileInfo } from "../runtime/gguf/types.js";

/** Estimates at the default context size and at the training context. */
export interface MemorySummary {
  /** Bytes of the weights. */
  weights: number;
  /** One estimate per context size (the default one first). */
  contexts: MemoryEstimate[];
}

/**
 * The memory estimates of a file, or null when its metadata lacks what they need (no
 * architecture, no layers): inspect reports files it cannot estimate as they are.
 *
 * @example
 * const memory = memorySummary(await readGguf("model.gguf"));
 */
export function memorySummary(info: GgufFileInfo): MemorySummary | null {
  try {
    const facts = modelFacts(info.metadata);
    if (facts.layerCount <= 0 || facts.embeddingLength <= 0) return null;
    const weights = info.tensors.reduce((sum, t) => sum + Math.ceil(t.byteSize / 32) * 32, 0);
    const train = facts.trainContextSize > 0 ? facts.trainContextSize : 4096;
    const sizes = [...new Set([Math.min(train, AUTO_CONTEXT_CAP), train])];
    return {
      weights,
      contexts: sizes.map((contextSize) => estimateFromFacts(facts, weights, { contextSize }, "inspect")),
    };
  } catch {
    return null; // metadata of the wrong type: the summary's warnings say what
  }
}

/**
 * The report's lines for a {@link MemorySummary}.
 *
 * @example
 * out.push(...formatMemory(summary.memory, formatBytes));
 */
export function formatMemory(memory: MemorySummary | null, bytes: (n: number) => string): string[] {
  if (memory === null) return [];
  const out = ["", "Memory (estimate: weights and KV cache as llama.cpp allocates them, compute buffers approximate)"];
  out.push(`  ${"weights".padEnd(18)}${bytes(memory.weights)}`);
  for (const e of memory.contexts) {
    const state = e.recurrentState > 0 ? `, recurrent state ${bytes(e.recurrentState)}` : "";
    out.push(
      `  ${`${e.contextSize} tokens`.padEnd(18)}KV cache ${bytes(e.kvCache)}${state}, compute buffers ` +
        `~${bytes(e.computeBuffers)}, total ~${bytes(e.total)}`,
    );
  }
  return out;
}
