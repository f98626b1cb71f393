/**
 * Other architectures from a generated llama test model, for tests that need llama.cpp's handling
 * of sliding-window attention: the same weights renamed to another architecture's keys, plus the
 * extra per-layer norms (all ones) that architecture's loader asks for.
 */
import { GgmlType } from "../../src/runtime/gguf/ggml-types.js";
import { readGguf } from "../../src/runtime/gguf/reader.js";
import { readTensorBytes } from "../../src/runtime/gguf/tensor-data.js";
import type { GgufValue } from "../../src/runtime/gguf/types.js";
import { writeGguf, type GgufTensorSpec } from "../../src/runtime/gguf/writer.js";

export interface ArchVariant {
  architecture: string;
  /** Extra `<architecture>.*` keys (without the prefix). */
  metadata: Record<string, GgufValue>;
  /** Extra f32 norm tensors per layer, e.g. "post_attention_norm". */
  layerNorms: string[];
}

/** gemma2: sliding window on every other layer (llama.cpp's default pattern for it). */
export const GEMMA2 = (window: number): ArchVariant => ({
  architecture: "gemma2",
  metadata: { "attention.sliding_window": { type: "uint32", value: window } },
  layerNorms: ["post_attention_norm", "post_ffw_norm"],
});

/**
 * Writes `outPath`: the llama model at `llamaPath` as `variant`.
 *
 * @example
 * await convertTestModel(await ensureTestModel({ vocab: "llama-spm" }), "gemma2.gguf", GEMMA2(256));
 */
export async function convertTestModel(llamaPath: string, outPath: string, variant: ArchVariant): Promise<void> {
  const file = await readGguf(llamaPath);
  const metadata = new Map<string, GgufValue>();
  for (const [key, value] of file.metadata) {
    if (key === "general.architecture") metadata.set(key, { type: "string", value: variant.architecture });
    else if (key.startsWith("llama.")) metadata.set(`${variant.architecture}.${key.slice("llama.".length)}`, value);
    else metadata.set(key, value);
  }
  for (const [key, value] of Object.entries(variant.metadata)) metadata.set(`${variant.architecture}.${key}`, value);
  const layers = Number((file.metadata.get("llama.block_count")?.value as number | undefined) ?? 0);
  const embd = Number((file.metadata.get("llama.embedding_length")?.value as number | undefined) ?? 0);
  const tensors: GgufTensorSpec[] = [];
  for (const t of file.tensors) tensors.push({ name: t.name, shape: t.shape, type: t.type, data: await readTensorBytes(file, t) });
  for (let il = 0; il < layers; il++) {
    for (const norm of variant.layerNorms) tensors.push({ name: `blk.${il}.${norm}.weight`, shape: [embd], type: GgmlType.F32, data: new Float32Array(embd).fill(1) });
  }
  await writeGguf(outPath, { metadata, tensors });
}
