/**
 * A random-weight image projector (an "mmproj" GGUF as llama.cpp's mtmd reads it) for the tiny test
 * models: a LLaVA-style CLIP vision encoder (projector type "mlp") small enough to encode an image
 * in milliseconds, whose output width matches the text model's embedding length.
 */
import { GgmlType } from "../../src/runtime/gguf/ggml-types.js";
import { Xoshiro128 } from "../../src/runtime/gguf/random.js";
import type { GgufValue } from "../../src/runtime/gguf/types.js";
import { writeGguf, type GgufTensorSpec } from "../../src/runtime/gguf/writer.js";

export interface ProjectorShape {
  /** The text model's embedding length (the projector's output width). */
  textEmbedding: number;
  /** Seed of the random weights. Default 1. */
  seed?: number;
  /** Side of the square input image in pixels; a multiple of `patchSize`. Default 28. */
  imageSize?: number;
  /** Default 14: a 28-pixel image is 4 patches, so 4 image tokens. */
  patchSize?: number;
  /** Written as the projector type: "mlp" (default); anything else makes a file mtmd refuses. */
  projectorType?: string;
}

const VISION = { embedding: 32, heads: 4, feedForward: 64, blocks: 2 };

/**
 * Writes a projector GGUF to `outPath`; its image token count is `(imageSize / patchSize) ** 2`.
 *
 * @example
 * await writeProjector("mmproj.gguf", { textEmbedding: 64 });
 * const model = await loadModel(modelPath, { projector: "mmproj.gguf" });
 */
export async function writeProjector(outPath: string, shape: ProjectorShape): Promise<void> {
  const { textEmbedding, seed = 1, imageSize = 28, patchSize = 14, projectorType = "mlp" } = shape;
  const n = VISION.embedding;
  const positions = (imageSize / patchSize) ** 2 + 1; // the patches and the class embedding
  const u32 = (value: number): GgufValue => ({ type: "uint32", value });
  const f32s = (value: number[]): GgufValue => ({
    type: "array",
    itemType: "float32",
    value: Float32Array.from(value),
  });
  const metadata = new Map<string, GgufValue>([
    ["general.architecture", { type: "string", value: "clip" }],
    ["clip.has_vision_encoder", { type: "bool", value: true }],
    ["clip.projector_type", { type: "string", value: projectorType }],
    ["clip.use_gelu", { type: "bool", value: true }],
    ["clip.vision.embedding_length", u32(n)],
    ["clip.vision.feed_forward_length", u32(VISION.feedForward)],
    ["clip.vision.block_count", u32(VISION.blocks)],
    ["clip.vision.projection_dim", u32(textEmbedding)],
    ["clip.vision.attention.head_count", u32(VISION.heads)],
    ["clip.vision.attention.layer_norm_epsilon", { type: "float32", value: 1e-5 }],
    ["clip.vision.image_size", u32(imageSize)],
    ["clip.vision.patch_size", u32(patchSize)],
    ["clip.vision.image_mean", f32s([0.5, 0.5, 0.5])],
    ["clip.vision.image_std", f32s([0.5, 0.5, 0.5])],
  ]);
  const filled = (name: string, dims: number[], value: number): GgufTensorSpec => ({
    name,
    shape: dims,
    type: GgmlType.F32,
    data: new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(value),
  });
  const random = (name: string, dims: number[], amplitude = 0.2): GgufTensorSpec => {
    const spec = filled(name, dims, 0);
    new Xoshiro128(seed, name).fillUniform(spec.data as Float32Array, amplitude);
    return spec;
  };
  const tensors: GgufTensorSpec[] = [
    random("v.patch_embd.weight", [patchSize, patchSize, 3, n], 0.05),
    random("v.patch_embd.bias", [n]),
    random("v.class_embd", [n]),
    random("v.position_embd.weight", [n, positions]),
    filled("v.pre_ln.weight", [n], 1),
    filled("v.pre_ln.bias", [n], 0),
  ];
  for (let il = 0; il < VISION.blocks; il++) {
    const at = (part: string) => `v.blk.${il}.${part}`;
    for (const m of ["attn_q", "attn_k", "attn_v", "attn_out"])
      tensors.push(random(at(`${m}.weight`), [n, n]), random(at(`${m}.bias`), [n]));
    tensors.push(filled(at("ln1.weight"), [n], 1), filled(at("ln1.bias"), [n], 0));
    tensors.push(filled(at("ln2.weight"), [n], 1), filled(at("ln2.bias"), [n], 0));
    tensors.push(random(at("ffn_up.weight"), [n, VISION.feedForward]), random(at("ffn_up.bias"), [VISION.feedForward]));
    tensors.push(random(at("ffn_down.weight"), [VISION.feedForward, n]), random(at("ffn_down.bias"), [n]));
  }
  // The projector proper: two layers (mm.0, GELU, mm.2) into the text model's embedding space,
  // scaled so image embeddings are about as large as token embeddings.
  tensors.push(random("mm.0.weight", [n, 2 * textEmbedding], 0.5), random("mm.0.bias", [2 * textEmbedding]));
  tensors.push(random("mm.2.weight", [2 * textEmbedding, textEmbedding], 0.5), random("mm.2.bias", [textEmbedding]));
  await writeGguf(outPath, { metadata, tensors });
}
