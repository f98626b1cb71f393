/**
 * Random-weight llama-architecture GGUF models built around a real tokenizer, for tests and
 * benchmarks where no real weights can be downloaded.
 *
 * The tokenizer (every `tokenizer.*` key) is copied from a vocabulary-only GGUF such as llama.cpp's
 * `models/ggml-vocab-qwen2.gguf`; the weights are deterministic in the seed. Matrices are uniform
 * with standard deviation 1/sqrt(fan_in) (fan_in = row length), norms are 1: every RMS-normed
 * activation stays O(1), so logits are finite and roughly N(0, 1) and sampling is not degenerate.
 *
 * @module toolwright/testing
 */
import { f32ToF16Bits } from "./codec.js";
import { GgmlType } from "./ggml-types.js";
import { Xoshiro128 } from "./random.js";
import { readGguf } from "./reader.js";
import type { GgufMetadata, GgufValue } from "./types.js";
import { gguf } from "./values.js";
import { writeGguf, type GgufTensorSpec } from "./writer.js";

/** Architecture dimensions of a test model. */
export interface TestModelArch {
  /** Hidden size (n_embd); a multiple of 32 and of `heads`. */
  embeddingLength: number;
  /** Number of transformer blocks. */
  layers: number;
  /** Attention heads; embeddingLength / heads must be even (RoPE rotates pairs). */
  heads: number;
  /** Key/value heads (grouped-query attention); divides `heads`. */
  kvHeads: number;
  /** FFN hidden size; a multiple of 32. */
  feedForwardLength: number;
  /** Trained context length written to the metadata. Default 4096. */
  contextLength?: number;
  /** Reuse token_embd as the output projection (no output.weight), as small Qwen/Llama models do. Default true. */
  tieOutput?: boolean;
  /**
   * Storage type of the matrices (norms are always f32). Default "q8_0". "iq4_xs" (superblocks of 256) needs
   * embeddingLength and feedForwardLength to be multiples of 256.
   */
  weightType?: "q8_0" | "iq4_xs" | "f16" | "f32";
}

/**
 * Presets (see {@link createTestModel}). "tiny" loads and runs in milliseconds even with a 152k vocabulary (~10 MB with
 * qwen2). "bench" has Qwen2.5-0.5B's shape (494M parameters with a 152k vocabulary, tied output) in Q8_0,
 * the format small models are commonly run in, so tokens/s are representative of real use.
 *
 * @example
 * await createTestModel({ vocabPath, size: { ...TEST_MODEL_PRESETS.tiny, layers: 4 }, outPath });
 */
export const TEST_MODEL_PRESETS = {
  tiny: {
    embeddingLength: 64,
    layers: 2,
    heads: 4,
    kvHeads: 2,
    feedForwardLength: 128,
    contextLength: 4096,
    tieOutput: true,
    weightType: "q8_0",
  },
  bench: {
    embeddingLength: 896,
    layers: 24,
    heads: 14,
    kvHeads: 2,
    feedForwardLength: 4864,
    contextLength: 32768,
    tieOutput: true,
    weightType: "q8_0",
  },
  /** Llama 3.2 1B's shape (tied output): GPU benchmarks. */
  "1b": {
    embeddingLength: 2048,
    layers: 16,
    heads: 32,
    kvHeads: 8,
    feedForwardLength: 8192,
    contextLength: 32768,
    tieOutput: true,
    weightType: "q8_0",
  },
  /** Llama 3.1 8B's shape: GPU benchmarks (an 8.5 GB file with a 152k vocabulary). */
  "8b": {
    embeddingLength: 4096,
    layers: 32,
    heads: 32,
    kvHeads: 8,
    feedForwardLength: 14336,
    contextLength: 32768,
    tieOutput: false,
    weightType: "q8_0",
  },
} as const satisfies Record<string, TestModelArch>;

/** Progress of `createTestModel`: bytes written of the final file size. */
export interface TestModelProgress {
  written: number;
  total: number;
  /** The tensor just written. */
  tensor: string;
}

/** Options of {@link createTestModel}. */
export interface CreateTestModelOptions {
  /** A vocabulary GGUF (e.g. deps/llama.cpp/models/ggml-vocab-qwen2.gguf) whose tokenizer is copied. */
  vocabPath: string;
  /** Jinja chat template source stored as tokenizer.chat_template. Default: none (the vocab's own is not kept). */
  chatTemplate?: string;
  /** A preset name or explicit dimensions. Default "tiny". */
  size?: keyof typeof TEST_MODEL_PRESETS | TestModelArch;
  /** Seed of the weights (unsigned 32-bit integer). Default 1. */
  seed?: number;
  /** Where to write the model. */
  outPath: string;
  /** general.name. Default describes vocab, size and seed. */
  name?: string;
  onProgress?: (progress: TestModelProgress) => void;
}

/** What {@link createTestModel} wrote. */
export interface TestModelInfo {
  path: string;
  /** File size in bytes. */
  bytes: number;
  /** Number of weights (tied output counted once). */
  parameters: number;
  vocabSize: number;
  arch: Required<TestModelArch>;
}

const LLAMA_FTYPE = { f32: 0, f16: 1, q8_0: 7, iq4_xs: 30 } as const;
const GGML_WEIGHT_TYPE = {
  f32: GgmlType.F32,
  f16: GgmlType.F16,
  q8_0: GgmlType.Q8_0,
  iq4_xs: GgmlType.IQ4_XS,
} as const;
/** Elements generated per chunk: bounded memory whatever the model size. */
const CHUNK_ELEMENTS = 1 << 20;

/**
 * Writes a random-weight llama model with a real tokenizer and an optional chat template.
 *
 * @example
 * import { createTestModel } from "toolwright/testing";
 * await createTestModel({
 *   vocabPath: "deps/llama.cpp/models/ggml-vocab-qwen2.gguf",
 *   chatTemplate: await readFile("deps/llama.cpp/models/templates/Qwen-Qwen3-0.6B.jinja", "utf8"),
 *   size: "tiny",
 *   seed: 1,
 *   outPath: "tiny-qwen3.gguf",
 * });
 */
export async function createTestModel(options: CreateTestModelOptions): Promise<TestModelInfo> {
  if (options === null || typeof options !== "object")
    throw new TypeError("createTestModel: options must be an object");
  const { vocabPath, chatTemplate, outPath, onProgress } = options;
  if (typeof vocabPath !== "string" || vocabPath === "")
    throw new TypeError(`createTestModel: vocabPath must be a path, got ${JSON.stringify(vocabPath)}`);
  if (typeof outPath !== "string" || outPath === "")
    throw new TypeError(`createTestModel: outPath must be a path, got ${JSON.stringify(outPath)}`);
  if (chatTemplate !== undefined && typeof chatTemplate !== "string") {
    throw new TypeError(`createTestModel: chatTemplate must be template source text, got ${typeof chatTemplate}`);
  }
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new RangeError(`createTestModel: seed must be an integer in [0, 2^32), got ${String(seed)}`);
  }
  const arch = resolveArch(options.size ?? "tiny");

  const vocab = await readGguf(vocabPath);
  const tokens = vocab.metadata.get("tokenizer.ggml.tokens");
  if (!vocab.metadata.has("tokenizer.ggml.model") || tokens?.type !== "array" || tokens.itemType !== "string") {
    throw new RangeError(
      `createTestModel: ${vocabPath} has no tokenizer (tokenizer.ggml.model and tokenizer.ggml.tokens)`,
    );
  }
  const vocabSize = tokens.value.length;
  const sizeName = typeof options.size === "string" ? options.size : options.size === undefined ? "tiny" : "custom";
  const name = options.name ?? `toolwright test model (${basename(vocabPath)}, ${sizeName}, seed ${seed})`;

  const metadata = buildMetadata(arch, vocab.metadata, vocabSize, name, seed, chatTemplate);
  const tensors = buildTensors(arch, vocabSize, seed);
  const bytes = await writeGguf(outPath, {
    metadata,
    tensors,
    onProgress: onProgress && ((written, total, tensor) => onProgress({ written, total, tensor })),
  });
  const parameters = tensors.reduce((sum, t) => sum + t.shape.reduce((a, b) => a * b, 1), 0);
  return { path: outPath, bytes, parameters, vocabSize, arch };
}

function basename(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

function resolveArch(size: NonNullable<CreateTestModelOptions["size"]>): Required<TestModelArch> {
  let given: TestModelArch;
  if (typeof size === "string") {
    if (!Object.hasOwn(TEST_MODEL_PRESETS, size)) {
      throw new RangeError(
        `createTestModel: size must be ${Object.keys(TEST_MODEL_PRESETS).join(" or ")} or dimensions, got ` +
          `${JSON.stringify(size)}`,
      );
    }
    given = TEST_MODEL_PRESETS[size];
  } else if (size !== null && typeof size === "object") {
    given = size;
  } else {
    throw new TypeError(`createTestModel: size must be a preset name or dimensions, got ${String(size)}`);
  }
  const arch: Required<TestModelArch> = {
    contextLength: 4096,
    tieOutput: true,
    weightType: "q8_0",
    ...given,
  };
  const positive = ["embeddingLength", "layers", "heads", "kvHeads", "feedForwardLength", "contextLength"] as const;
  for (const key of positive) {
    const v = arch[key];
    if (!Number.isSafeInteger(v) || v <= 0)
      throw new RangeError(`createTestModel: size.${key} must be a positive integer, got ${String(v)}`);
  }
  if (arch.embeddingLength % 32 !== 0 || arch.feedForwardLength % 32 !== 0) {
    throw new RangeError(
      `createTestModel: embeddingLength (${arch.embeddingLength}) and feedForwardLength ` +
        `(${arch.feedForwardLength}) must be multiples of 32`,
    );
  }
  if (arch.embeddingLength % arch.heads !== 0 || (arch.embeddingLength / arch.heads) % 2 !== 0) {
    throw new RangeError(
      `createTestModel: embeddingLength ${arch.embeddingLength} must split into ${arch.heads} heads of even size`,
    );
  }
  if (arch.heads % arch.kvHeads !== 0)
    throw new RangeError(`createTestModel: kvHeads ${arch.kvHeads} must divide heads ${arch.heads}`);
  if (arch.layers > 512) throw new RangeError(`createTestModel: layers must be at most 512, got ${arch.layers}`);
  if (!(arch.weightType in GGML_WEIGHT_TYPE)) {
    throw new RangeError(
      `createTestModel: weightType must be q8_0, iq4_xs, f16 or f32, got ${JSON.stringify(arch.weightType)}`,
    );
  }
  if (arch.weightType === "iq4_xs" && (arch.embeddingLength % 256 !== 0 || arch.feedForwardLength % 256 !== 0)) {
    throw new RangeError(
      `createTestModel: weightType iq4_xs needs embeddingLength (${arch.embeddingLength}) and ` +
        `feedForwardLength (${arch.feedForwardLength}) to be multiples of 256`,
    );
  }
  return arch;
}

function buildMetadata(
  arch: Required<TestModelArch>,
  vocabMeta: GgufMetadata,
  vocabSize: number,
  name: string,
  seed: number,
  chatTemplate: string | undefined,
): GgufMetadata {
  const headDim = arch.embeddingLength / arch.heads;
  const meta: GgufMetadata = new Map<string, GgufValue>([
    ["general.architecture", gguf.string("llama")],
    ["general.name", gguf.string(name)],
    ["general.file_type", gguf.uint32(LLAMA_FTYPE[arch.weightType])],
    ["general.quantization_version", gguf.uint32(2)],
    ["llama.vocab_size", gguf.uint32(vocabSize)],
    ["llama.context_length", gguf.uint32(arch.contextLength)],
    ["llama.embedding_length", gguf.uint32(arch.embeddingLength)],
    ["llama.block_count", gguf.uint32(arch.layers)],
    ["llama.feed_forward_length", gguf.uint32(arch.feedForwardLength)],
    ["llama.attention.head_count", gguf.uint32(arch.heads)],
    ["llama.attention.head_count_kv", gguf.uint32(arch.kvHeads)],
    ["llama.rope.dimension_count", gguf.uint32(headDim)],
    ["llama.rope.freq_base", gguf.float32(1_000_000)],
    ["llama.attention.layer_norm_rms_epsilon", gguf.float32(1e-6)],
    ["toolwright.test_model.seed", gguf.uint32(seed)],
  ]);
  for (const [key, value] of vocabMeta) {
    // Chat templates come from the caller, never silently from the vocabulary file.
    if (key.startsWith("tokenizer.") && !key.startsWith("tokenizer.chat_template")) meta.set(key, value);
  }
  if (chatTemplate !== undefined) meta.set("tokenizer.chat_template", gguf.string(chatTemplate));
  return meta;
}

function buildTensors(arch: Required<TestModelArch>, vocabSize: number, seed: number): GgufTensorSpec[] {
  const n = arch.embeddingLength;
  const headDim = n / arch.heads;
  const kv = arch.kvHeads * headDim;
  const ff = arch.feedForwardLength;
  const weightType = GGML_WEIGHT_TYPE[arch.weightType];
  const matrix = (name: string, cols: number, rows: number): GgufTensorSpec => ({
    name,
    shape: [cols, rows],
    type: weightType,
    data: () => randomMatrix(weightType, cols, rows, seed, name),
  });
  const ones = (name: string, length: number): GgufTensorSpec => ({
    name,
    shape: [length],
    type: GgmlType.F32,
    data: new Float32Array(length).fill(1),
  });

  const tensors: GgufTensorSpec[] = [matrix("token_embd.weight", n, vocabSize)];
  for (let i = 0; i < arch.layers; i++) {
    tensors.push(
      ones(`blk.${i}.attn_norm.weight`, n),
      matrix(`blk.${i}.attn_q.weight`, n, n),
      matrix(`blk.${i}.attn_k.weight`, n, kv),
      matrix(`blk.${i}.attn_v.weight`, n, kv),
      matrix(`blk.${i}.attn_output.weight`, n, n),
      ones(`blk.${i}.ffn_norm.weight`, n),
      matrix(`blk.${i}.ffn_gate.weight`, n, ff),
      matrix(`blk.${i}.ffn_up.weight`, n, ff),
      matrix(`blk.${i}.ffn_down.weight`, ff, n),
    );
  }
  tensors.push(ones("output_norm.weight", n));
  if (!arch.tieOutput) tensors.push(matrix("output.weight", n, vocabSize));
  return tensors;
}

/**
 * Yields a [cols x rows] matrix uniform with std 1/sqrt(cols), chunk by chunk. Q8_0 blocks are
 * generated directly (one scale, 32 random int8 in [-127, 127]): same distribution as quantising
 * uniform floats, at a fraction of the cost, which keeps the 0.5B "bench" model quick to make.
 */
function* randomMatrix(
  type: number,
  cols: number,
  rows: number,
  seed: number,
  name: string,
): Generator<Float32Array | Uint8Array> {
  const rng = new Xoshiro128(seed, name);
  const amplitude = Math.sqrt(3 / cols);
  const rowsPerChunk = Math.max(1, Math.floor(CHUNK_ELEMENTS / cols));
  for (let row = 0; row < rows; row += rowsPerChunk) {
    const count = Math.min(rowsPerChunk, rows - row) * cols;
    if (type === GgmlType.Q8_0) {
      yield randomQ8_0Blocks(rng, count / 32, amplitude);
    } else if (type === GgmlType.IQ4_XS) {
      yield randomIq4XsBlocks(rng, count / 256, amplitude);
    } else {
      const values = new Float32Array(count);
      rng.fillUniform(values, amplitude);
      yield values;
    }
  }
}

function randomQ8_0Blocks(rng: Xoshiro128, blocks: number, amplitude: number): Uint8Array {
  const out = new Uint8Array(blocks * 34);
  const scale = f32ToF16Bits(amplitude / 127);
  const lo = scale & 0xff;
  const hi = scale >>> 8;
  for (let b = 0, at = 0; b < blocks; b++, at += 34) {
    out[at] = lo;
    out[at + 1] = hi;
    for (let i = 0; i < 32; i += 4) {
      const r = rng.nextU32();
      // Map each random byte onto [-127, 127] (int8 two's complement), as Q8_0 quantisation yields.
      out[at + 2 + i] = (((r & 0xff) * 255) >>> 8) - 127;
      out[at + 3 + i] = ((((r >>> 8) & 0xff) * 255) >>> 8) - 127;
      out[at + 4 + i] = ((((r >>> 16) & 0xff) * 255) >>> 8) - 127;
      out[at + 5 + i] = (((r >>> 24) * 255) >>> 8) - 127;
    }
  }
  return out;
}

/** Root mean square of IQ4_NL's 16 levels (ggml's kvalues_iq4nl, -127 to 113). */
const IQ4_LEVEL_RMS = 67.4;

/**
 * IQ4_XS superblocks of 256: an f16 scale, eight 6-bit sub-block scales all set to 33 (each sub-block then
 * has the superblock's scale, as ggml decodes `d * (scale - 32)`), and 256 random 4-bit level indices.
 */
function randomIq4XsBlocks(rng: Xoshiro128, blocks: number, amplitude: number): Uint8Array {
  const out = new Uint8Array(blocks * 136);
  const scale = f32ToF16Bits(amplitude / Math.sqrt(3) / IQ4_LEVEL_RMS);
  for (let b = 0, at = 0; b < blocks; b++, at += 136) {
    out[at] = scale & 0xff;
    out[at + 1] = scale >>> 8;
    out[at + 2] = 0xaa; // the high 2 bits of each sub-block scale: 0b10
    out[at + 3] = 0xaa;
    out.fill(0x11, at + 4, at + 8); // the low 4 bits: 0b0001
    for (let i = 0; i < 128; i += 4) {
      const r = rng.nextU32();
      out[at + 8 + i] = r & 0xff;
      out[at + 9 + i] = (r >>> 8) & 0xff;
      out[at + 10 + i] = (r >>> 16) & 0xff;
      out[at + 11 + i] = r >>> 24;
    }
  }
  return out;
}
