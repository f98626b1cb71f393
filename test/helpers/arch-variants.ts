/**
 * Other architectures from a generated llama test model, for tests that need llama.cpp's handling
 * of sliding-window attention: the same weights renamed to another architecture's keys, plus the
 * extra per-layer norms (all ones) that architecture's loader asks for.
 */
import { GgmlType } from "../../src/runtime/gguf/ggml-types.js";
import { Xoshiro128 } from "../../src/runtime/gguf/random.js";
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
  for (const t of file.tensors)
    tensors.push({ name: t.name, shape: t.shape, type: t.type, data: await readTensorBytes(file, t) });
  for (let il = 0; il < layers; il++) {
    for (const norm of variant.layerNorms)
      tensors.push({
        name: `blk.${il}.${norm}.weight`,
        shape: [embd],
        type: GgmlType.F32,
        data: new Float32Array(embd).fill(1),
      });
  }
  await writeGguf(outPath, { metadata, tensors });
}

/**
 * Writes a Mamba (recurrent, no attention) model with the tokenizer of `vocabFile`, norms of ones.
 * Without `seed` its weights are zero: it only has to load (tests measuring its recurrent state).
 * With `seed` they are small uniform values (a slow, stable decay: A in [-0.15, -0.05)), so its output depends on the
 * whole prompt, for tests of generation on recurrent state.
 *
 * @example
 * await writeMambaModel(vocabPath("llama-spm"), "mamba.gguf", { embeddingLength: 64, layers: 2 });
 */
export async function writeMambaModel(
  vocabFile: string,
  outPath: string,
  size: { embeddingLength: number; layers: number; stateSize?: number; convKernel?: number; seed?: number },
): Promise<void> {
  const vocab = await readGguf(vocabFile);
  const tokens = vocab.metadata.get("tokenizer.ggml.tokens")!.value as string[];
  const n = size.embeddingLength;
  const inner = 2 * n; // llama.cpp supports an expansion factor of 2 only
  const state = size.stateSize ?? 16;
  const conv = size.convKernel ?? 4;
  const rank = Math.max(1, Math.ceil(n / 16));
  const metadata = new Map<string, GgufValue>([
    ["general.architecture", { type: "string", value: "mamba" }],
    ["mamba.context_length", { type: "uint32", value: 4096 }],
    ["mamba.embedding_length", { type: "uint32", value: n }],
    ["mamba.block_count", { type: "uint32", value: size.layers }],
    ["mamba.ssm.conv_kernel", { type: "uint32", value: conv }],
    ["mamba.ssm.inner_size", { type: "uint32", value: inner }],
    ["mamba.ssm.state_size", { type: "uint32", value: state }],
    ["mamba.ssm.time_step_rank", { type: "uint32", value: rank }],
    ["mamba.attention.layer_norm_rms_epsilon", { type: "float32", value: 1e-5 }],
  ]);
  for (const [key, value] of vocab.metadata)
    if (key.startsWith("tokenizer.") && !key.startsWith("tokenizer.chat_template")) metadata.set(key, value);
  const f32 = (name: string, shape: number[], fill = 0): GgufTensorSpec => ({
    name,
    shape,
    type: GgmlType.F32,
    data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(fill),
  });
  // Random: uniform in [offset - amplitude, offset + amplitude) when seeded, else zeros.
  const weights = (name: string, shape: number[], amplitude = 0.1, offset = 0): GgufTensorSpec => {
    const spec = f32(name, shape);
    if (size.seed === undefined) return spec;
    const data = spec.data as Float32Array;
    new Xoshiro128(size.seed, name).fillUniform(data, amplitude);
    for (let i = 0; i < data.length; i++) data[i] = (data[i] as number) + offset;
    return spec;
  };
  const tensors: GgufTensorSpec[] = [
    weights("token_embd.weight", [n, tokens.length], 1),
    f32("output_norm.weight", [n], 1),
  ];
  // Seeded: an output matrix of its own, so the next token is not simply the last one's embedding.
  if (size.seed !== undefined) tensors.push(weights("output.weight", [n, tokens.length], 1));
  for (let il = 0; il < size.layers; il++) {
    const b = `blk.${il}`;
    tensors.push(
      f32(`${b}.attn_norm.weight`, [n], 1),
      weights(`${b}.ssm_in.weight`, [n, 2 * inner], 0.3),
      weights(`${b}.ssm_conv1d.weight`, [conv, inner], 0.5),
      f32(`${b}.ssm_conv1d.bias`, [inner]),
      weights(`${b}.ssm_x.weight`, [inner, rank + 2 * state]),
      weights(`${b}.ssm_dt.weight`, [rank, inner]),
      f32(`${b}.ssm_dt.bias`, [inner]),
      weights(`${b}.ssm_a`, [state, inner], 0.05, -0.1),
      f32(`${b}.ssm_d`, [inner], 1),
      weights(`${b}.ssm_out.weight`, [inner, n], 1),
    );
  }
  await writeGguf(outPath, { metadata, tensors });
}
