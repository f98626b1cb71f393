import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, open, readFile, rm, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  GgmlType,
  gguf,
  ggufNumber,
  ggufString,
  readGguf,
  readGgufMetadata,
  readTensorBytes,
  writeGguf,
  type GgufFileInfo,
} from "../../src/runtime/gguf/index.js";
import { createTestModel } from "../../src/runtime/gguf/test-model.js";
import { decodeValues, f16BitsToF32 } from "../../src/runtime/gguf/codec.js";
import { REPO_ROOT, TEST_MODEL_CACHE, ensureTestModel, templatePath, vocabPath } from "../helpers/test-models.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gguf-test-model-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha256 = async (path: string) =>
  createHash("sha256")
    .update(await readFile(path))
    .digest("hex");

describe("a tiny test model (qwen2 vocabulary, Qwen3 template)", () => {
  let file: GgufFileInfo;
  beforeAll(async () => {
    file = await readGguf(await ensureTestModel({ vocab: "qwen2", template: "Qwen-Qwen3-0.6B" }));
  });

  it("declares a llama architecture with consistent hyper-parameters", () => {
    const m = file.metadata;
    expect(ggufString(m, "general.architecture")).toBe("llama");
    expect(
      Object.fromEntries(
        [
          "context_length",
          "embedding_length",
          "block_count",
          "feed_forward_length",
          "attention.head_count",
          "attention.head_count_kv",
          "rope.dimension_count",
          "vocab_size",
        ].map((k) => [k, ggufNumber(m, `llama.${k}`)]),
      ),
    ).toEqual({
      context_length: 4096,
      embedding_length: 64,
      block_count: 2,
      feed_forward_length: 128,
      "attention.head_count": 4,
      "attention.head_count_kv": 2,
      "rope.dimension_count": 16,
      vocab_size: 151936,
    });
    expect(m.get("llama.attention.layer_norm_rms_epsilon")?.type).toBe("float32");
  });

  it("copies every tokenizer key of the vocabulary and sets the chat template", async () => {
    const vocab = await readGgufMetadata(vocabPath("qwen2"));
    const copied = [...vocab.keys()].filter((k) => k.startsWith("tokenizer.") && k !== "tokenizer.chat_template");
    expect(copied).toEqual(
      expect.arrayContaining([
        "tokenizer.ggml.pre",
        "tokenizer.ggml.merges",
        "tokenizer.ggml.token_type",
        "tokenizer.ggml.eos_token_id",
      ]),
    );
    for (const key of copied) expect(file.metadata.get(key), key).toEqual(vocab.get(key));
    expect(ggufString(file.metadata, "tokenizer.chat_template")).toBe(
      await readFile(templatePath("Qwen-Qwen3-0.6B"), "utf8"),
    );
  });

  it("has the llama tensors with llama.cpp's shapes, output tied to token_embd", () => {
    const shapes = Object.fromEntries(file.tensors.map((t) => [t.name, [t.shape, t.typeName]]));
    expect(file.tensors).toHaveLength(1 + 2 * 9 + 1);
    expect(shapes["token_embd.weight"]).toEqual([[64, 151936], "q8_0"]);
    expect(shapes["output_norm.weight"]).toEqual([[64], "f32"]);
    expect(shapes["output.weight"]).toBeUndefined();
    for (const i of [0, 1]) {
      expect(shapes[`blk.${i}.attn_norm.weight`]).toEqual([[64], "f32"]);
      expect(shapes[`blk.${i}.attn_q.weight`]).toEqual([[64, 64], "q8_0"]);
      expect(shapes[`blk.${i}.attn_k.weight`]).toEqual([[64, 32], "q8_0"]);
      expect(shapes[`blk.${i}.attn_v.weight`]).toEqual([[64, 32], "q8_0"]);
      expect(shapes[`blk.${i}.attn_output.weight`]).toEqual([[64, 64], "q8_0"]);
      expect(shapes[`blk.${i}.ffn_norm.weight`]).toEqual([[64], "f32"]);
      expect(shapes[`blk.${i}.ffn_gate.weight`]).toEqual([[64, 128], "q8_0"]);
      expect(shapes[`blk.${i}.ffn_up.weight`]).toEqual([[64, 128], "q8_0"]);
      expect(shapes[`blk.${i}.ffn_down.weight`]).toEqual([[128, 64], "q8_0"]);
    }
  });

  it("has unit norms and finite weights with standard deviation 1/sqrt(fan_in)", async () => {
    expect([...decodeValues(GgmlType.F32, await readTensorBytes(file, "blk.1.ffn_norm.weight"))]).toEqual(
      new Array(64).fill(1),
    );
    for (const [name, fanIn] of [
      ["blk.0.attn_q.weight", 64],
      ["blk.1.ffn_down.weight", 128],
    ] as const) {
      const w = decodeValues(GgmlType.Q8_0, await readTensorBytes(file, name));
      const mean = w.reduce((a, b) => a + b, 0) / w.length;
      const std = Math.sqrt(w.reduce((a, b) => a + (b - mean) ** 2, 0) / w.length);
      expect(w.every(Number.isFinite)).toBe(true);
      expect(Math.abs(mean)).toBeLessThan(0.1 / Math.sqrt(fanIn));
      expect(std).toBeGreaterThan(0.95 / Math.sqrt(fanIn));
      expect(std).toBeLessThan(1.05 / Math.sqrt(fanIn));
    }
  });
});

describe("createTestModel", () => {
  const spm = vocabPath("llama-spm");

  it("is deterministic per seed: same seed same bytes, another seed other weights", async () => {
    const [a, b, c] = ["a", "b", "c"].map((n) => join(dir, `${n}.gguf`));
    await createTestModel({ vocabPath: spm, seed: 7, outPath: a! });
    await createTestModel({ vocabPath: spm, seed: 7, outPath: b! });
    const other = await createTestModel({ vocabPath: spm, seed: 8, outPath: c! });
    expect(await sha256(a!)).toBe(await sha256(b!));
    expect(await sha256(c!)).not.toBe(await sha256(a!));
    expect(other.bytes).toBe((await readFile(a!)).length);
  });

  it("leaves out the vocabulary's own chat template unless one is given", async () => {
    const out = join(dir, "no-template.gguf");
    await createTestModel({ vocabPath: vocabPath("qwen2"), outPath: out });
    expect((await readGgufMetadata(out)).has("tokenizer.chat_template")).toBe(false);
  });

  it("takes custom dimensions, f16 weights and an untied output", async () => {
    const out = join(dir, "custom.gguf");
    const info = await createTestModel({
      vocabPath: spm,
      outPath: out,
      size: {
        embeddingLength: 96,
        layers: 1,
        heads: 3,
        kvHeads: 1,
        feedForwardLength: 160,
        tieOutput: false,
        weightType: "f16",
      },
    });
    const file = await readGguf(out);
    const output = file.tensors.find((t) => t.name === "output.weight");
    expect(output).toMatchObject({ shape: [96, 32000], typeName: "f16" });
    expect(file.tensors.find((t) => t.name === "blk.0.attn_k.weight")?.shape).toEqual([96, 32]);
    expect(ggufNumber(file.metadata, "general.file_type")).toBe(1);
    expect(info.parameters).toBe(file.tensors.reduce((n, t) => n + t.elementCount, 0));
  });

  it("writes IQ4_XS superblocks whose values have the matrices' spread", async () => {
    const out = join(dir, "iq4.gguf");
    const size = { embeddingLength: 256, layers: 1, heads: 4, kvHeads: 2, feedForwardLength: 512 };
    await createTestModel({ vocabPath: spm, outPath: out, size: { ...size, weightType: "iq4_xs" } });
    const file = await readGguf(out);
    const down = file.tensors.find((t) => t.name === "blk.0.ffn_down.weight");
    expect(down).toMatchObject({ shape: [512, 256], typeName: "iq4_xs", byteSize: 256 * 2 * 136 });
    expect(ggufNumber(file.metadata, "general.file_type")).toBe(30);
    // A superblock: f16 scale, the sub-block scales (33: the superblock's scale), 128 bytes of 4-bit levels.
    const handle = await open(out, "r");
    const block = Buffer.alloc(136);
    await handle.read(block, 0, 136, down?.fileOffset ?? 0);
    await handle.close();
    expect([...block.subarray(2, 8)]).toEqual([0xaa, 0xaa, 0x11, 0x11, 0x11, 0x11]);
    // Standard deviation 1/sqrt(512) over the levels' root mean square (67.4).
    expect(f16BitsToF32(block.readUInt16LE(0)) * 67.4).toBeCloseTo(1 / Math.sqrt(512), 4);
    expect(new Set(block.subarray(8)).size).toBeGreaterThan(50);
  });

  it.each([
    [{ size: "huge" }, /size must be tiny or bench or 1b or 8b or dimensions, got "huge"/],
    [
      { size: { embeddingLength: 64, layers: 2, heads: 5, kvHeads: 1, feedForwardLength: 128 } },
      /must split into 5 heads/,
    ],
    [
      { size: { embeddingLength: 64, layers: 2, heads: 4, kvHeads: 3, feedForwardLength: 128 } },
      /kvHeads 3 must divide heads 4/,
    ],
    [{ size: { embeddingLength: 48, layers: 2, heads: 4, kvHeads: 1, feedForwardLength: 128 } }, /multiples of 32/],
    [
      { size: { embeddingLength: 64, layers: 2, heads: 4, kvHeads: 1, feedForwardLength: 256, weightType: "iq4_xs" } },
      /iq4_xs needs embeddingLength \(64\) and feedForwardLength \(256\) to be multiples of 256/,
    ],
    [{ seed: -1 }, /seed must be an integer in \[0, 2\^32\), got -1/],
    [{ chatTemplate: 42 }, /chatTemplate must be template source text/],
    [{ vocabPath: "/nonexistent/vocab.gguf" }, /\/nonexistent\/vocab.gguf: no such file/],
  ])("rejects %o", async (bad, message) => {
    await expect(
      createTestModel({ vocabPath: spm, outPath: join(dir, "bad.gguf"), ...(bad as object) }),
    ).rejects.toThrow(message);
  });

  it("rejects a GGUF without a tokenizer as vocabulary", async () => {
    const notVocab = join(dir, "not-vocab.gguf");
    await writeGguf(notVocab, { metadata: [["general.name", gguf.string("x")]] });
    await expect(createTestModel({ vocabPath: notVocab, outPath: join(dir, "bad.gguf") })).rejects.toThrow(
      /has no tokenizer/,
    );
  });
});

describe("ensureTestModel", () => {
  it("generates once when several callers ask at the same time", async () => {
    const first = await ensureTestModel({ vocab: "llama-spm", seed: 90210 });
    await unlink(first);
    const paths = await Promise.all(
      Array.from({ length: 4 }, () => ensureTestModel({ vocab: "llama-spm", seed: 90210 })),
    );
    expect(new Set(paths)).toEqual(new Set([first]));
    expect(first.startsWith(TEST_MODEL_CACHE)).toBe(true);
    expect((await readGguf(first)).tensors).toHaveLength(20);
    expect(existsSync(`${first}.lock`)).toBe(false);
  });

  it("names unknown vocabularies and templates clearly", async () => {
    await expect(ensureTestModel({ vocab: "klingon" })).rejects.toThrow(/ggml-vocab-klingon.gguf not found/);
    await expect(ensureTestModel({ vocab: "qwen2", template: "no-such-template" })).rejects.toThrow(
      /no-such-template.jinja not found/,
    );
  });
});

// Proof that llama.cpp itself loads and runs the generated models (needs the reference driver:
// cmake --build build --target toolwright-llama-loop).
const driver = join(REPO_ROOT, "build", "toolwright-llama-loop");
describe.skipIf(!existsSync(driver))("llama.cpp runs the generated models", () => {
  it.each(["llama-bpe", "qwen2", "llama-spm"])(
    "loads, tokenizes and generates with the %s vocabulary",
    async (vocab) => {
      const model = await ensureTestModel({ vocab, template: "Qwen-Qwen3-0.6B" });
      const { stdout } = await promisify(execFile)(driver, [
        "--model",
        model,
        "--prompt",
        "Hello, world! 你好",
        "--n-gen",
        "8",
        "--threads",
        "1",
        "--print-text",
      ]);
      const result = JSON.parse(stdout.trim().split("\n").pop()!);
      expect(result.error).toBeUndefined();
      expect(result.n_vocab).toBe(ggufNumber(await readGgufMetadata(model), "llama.vocab_size"));
      expect(result.prompt_tokens).toBeGreaterThan(3);
      expect(result.gen_tokens).toBe(8);
      expect(result.tokens.every((t: number) => t >= 0 && t < result.n_vocab)).toBe(true);
    },
  );

  it.each(["llama-bpe", "qwen2", "llama-spm"])(
    "tokenizes llama.cpp's %s vocab test cases exactly as expected",
    async (vocab) => {
      const model = await ensureTestModel({ vocab });
      const cases = `${vocabPath(vocab)}.inp`;
      const { stdout } = await promisify(execFile)(driver, ["--model", model, "--tokenize-test", cases]);
      expect(JSON.parse(stdout.trim())).toMatchObject({ tokenize_cases: 46, tokenize_failures: 0 });
    },
  );
});
