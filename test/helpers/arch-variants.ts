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

/** Sizes of a generated recurrent model. */
export interface RecurrentModelSize {
  embeddingLength: number;
  layers: number;
  stateSize?: number;
  convKernel?: number;
  /** Seeds random weights; without it the weights are zero. */
  seed?: number;
  /**
   * Layers that are attention layers (with a KV cache) instead of Mamba layers: the model is then a hybrid
   * (llama.cpp's "jamba": every layer also has a feed-forward block), else a pure Mamba.
   */
  attentionLayers?: number[];
}

/**
 * Writes a Mamba (recurrent, no attention) model with the tokenizer of `vocabFile`, norms of ones, or a
 * hybrid of Mamba and attention layers (`attentionLayers`).
 * Without `seed` its weights are zero: it only has to load (tests measuring its recurrent state).
 * With `seed` they are small uniform values (a slow, stable decay: A in [-0.15, -0.05)), so its output
 * depends on the whole prompt, for tests of generation on recurrent state.
 *
 * @example
 * await writeMambaModel(vocabPath("llama-spm"), "mamba.gguf", { embeddingLength: 64, layers: 2 });
 */
export async function writeMambaModel(vocabFile: string, outPath: string, size: RecurrentModelSize): Promise<void> {
  const vocab = await readGguf(vocabFile);
  const tokens = vocab.metadata.get("tokenizer.ggml.tokens")!.value as string[];
  const n = size.embeddingLength;
  const inner = 2 * n; // llama.cpp supports an expansion factor of 2 only
  const state = size.stateSize ?? 16;
  const conv = size.convKernel ?? 4;
  const rank = Math.max(1, Math.ceil(n / 16));
  const attention = new Set(size.attentionLayers ?? []);
  const hybrid = size.attentionLayers !== undefined;
  const arch = hybrid ? "jamba" : "mamba";
  const heads = 4;
  const kvHeads = 2;
  const headDim = n / heads;
  const ff = 2 * n;
  const metadata = new Map<string, GgufValue>([
    ["general.architecture", { type: "string", value: arch }],
    [`${arch}.context_length`, { type: "uint32", value: 4096 }],
    [`${arch}.embedding_length`, { type: "uint32", value: n }],
    [`${arch}.block_count`, { type: "uint32", value: size.layers }],
    [`${arch}.ssm.conv_kernel`, { type: "uint32", value: conv }],
    [`${arch}.ssm.inner_size`, { type: "uint32", value: inner }],
    [`${arch}.ssm.state_size`, { type: "uint32", value: state }],
    [`${arch}.ssm.time_step_rank`, { type: "uint32", value: rank }],
    [`${arch}.attention.layer_norm_rms_epsilon`, { type: "float32", value: 1e-5 }],
  ]);
  if (hybrid) {
    const kvPerLayer = Uint32Array.from({ length: size.layers }, (_, il) => (attention.has(il) ? kvHeads : 0));
    metadata.set(`${arch}.attention.head_count`, { type: "uint32", value: heads });
    metadata.set(`${arch}.attention.head_count_kv`, { type: "array", itemType: "uint32", value: kvPerLayer });
    metadata.set(`${arch}.feed_forward_length`, { type: "uint32", value: ff });
  }
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
    tensors.push(f32(`${b}.attn_norm.weight`, [n], 1));
    if (attention.has(il)) {
      const amplitude = 1 / Math.sqrt(n);
      tensors.push(
        weights(`${b}.attn_q.weight`, [n, n], amplitude),
        weights(`${b}.attn_k.weight`, [n, kvHeads * headDim], amplitude),
        weights(`${b}.attn_v.weight`, [n, kvHeads * headDim], amplitude),
        weights(`${b}.attn_output.weight`, [n, n], amplitude),
      );
    } else {
      tensors.push(
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
      if (hybrid)
        tensors.push(
          f32(`${b}.ssm_dt_norm.weight`, [rank], 1),
          f32(`${b}.ssm_b_norm.weight`, [state], 1),
          f32(`${b}.ssm_c_norm.weight`, [state], 1),
        );
    }
    if (hybrid)
      tensors.push(
        f32(`${b}.ffn_norm.weight`, [n], 1),
        weights(`${b}.ffn_gate.weight`, [n, ff], 0.3),
        weights(`${b}.ffn_up.weight`, [n, ff], 0.3),
        weights(`${b}.ffn_down.weight`, [ff, n], 0.3),
      );
  }
  await writeGguf(outPath, { metadata, tensors });
}
