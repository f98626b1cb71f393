/**
 * estimateMemory against what llama.cpp actually allocates (its memory breakdown, read natively
 * by measureContextMemory), on generated models of several shapes: the weights and the KV cache
 * must match to the byte, the compute buffers within 10% (an approximation, documented on
 * MemoryEstimate). Also: a sliding-window model (gemma2), the estimate from a loaded model, the
 * automatic context size, and the option checks.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import type { ModelSummary } from "../../src/cli/model-summary.js";
import { estimateMemory, loadModel, type Model } from "../../src/index.js";
import { loadNative } from "../../src/runtime/binding.js";
import { autoContextSize } from "../../src/runtime/context-size.js";
import { readGguf } from "../../src/runtime/gguf/reader.js";
import { gguf } from "../../src/runtime/gguf/values.js";
import { writeGguf } from "../../src/runtime/gguf/writer.js";
import { createTestModel, type TestModelArch } from "../../src/runtime/gguf/test-model.js";
import { convertTestModel, GEMMA2, writeMambaModel } from "../helpers/arch-variants.js";
import { vocabPath } from "../helpers/test-models.js";

const SHAPES: [string, string, TestModelArch][] = [
  [
    "tiny, grouped-query",
    "llama-spm",
    { embeddingLength: 64, layers: 2, heads: 4, kvHeads: 2, feedForwardLength: 128 },
  ],
  ["full multi-head", "llama-spm", { embeddingLength: 128, layers: 3, heads: 4, kvHeads: 4, feedForwardLength: 256 }],
  [
    "one KV head, f16 weights",
    "llama-spm",
    { embeddingLength: 256, layers: 2, heads: 8, kvHeads: 1, feedForwardLength: 512, weightType: "f16" },
  ],
  [
    "large vocabulary, 32K training context",
    "qwen2",
    { embeddingLength: 64, layers: 2, heads: 2, kvHeads: 1, feedForwardLength: 128, contextLength: 32768 },
  ],
  // The layer phase outweighs the logits: the compute buffers follow the FFN.
  [
    "FFN wider than a third of the vocabulary",
    "llama-spm",
    { embeddingLength: 512, layers: 1, heads: 8, kvHeads: 2, feedForwardLength: 16384 },
  ],
];
const CONTEXT_SIZES = [256, 1000, 4096];
const COMPUTE_TOLERANCE = 0.1;

let dir: string;
const paths = new Map<string, string>();
beforeAll(async () => {
  loadNative();
  dir = mkdtempSync(join(tmpdir(), "toolwright-memory-"));
  for (const [name, vocab, size] of SHAPES) {
    const path = join(dir, `${paths.size}.gguf`);
    await createTestModel({ vocabPath: vocabPath(vocab), size, outPath: path });
    paths.set(name, path);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withModel<T>(path: string, work: (model: Model) => Promise<T>): Promise<T> {
  const model = await loadModel(path, { gpu: false });
  try {
    return await work(model);
  } finally {
    model.dispose();
  }
}

describe("against llama.cpp's allocations", () => {
  it.each(SHAPES.map(([name]) => [name]))(
    "%s: weights and KV cache exact, compute buffers within 10%%",
    async (name) => {
      const path = paths.get(name)!;
      await withModel(path, async (model) => {
        for (const contextSize of CONTEXT_SIZES) {
          const actual = await loadNative().measureContextMemory(model.native, { contextSize });
          const e = await estimateMemory(path, { contextSize });
          expect(e.contextSize, `contextSize ${contextSize}`).toBe(actual.contextSize);
          expect(e.kvCache, `KV at ${contextSize}`).toBe(actual.context);
          expect(e.weights).toBe(actual.model);
          expect(
            Math.abs(e.computeBuffers - actual.compute) / actual.compute,
            `compute at ${contextSize}: ${e.computeBuffers} vs ${actual.compute}`,
          ).toBeLessThan(COMPUTE_TOLERANCE);
          expect(e.total).toBe(e.weights + e.kvCache + e.recurrentState + e.computeBuffers + e.outputBuffer);
        }
      });
    },
  );

  it("several sequences: one stream of cells per sequence, as llama.cpp splits the context", async () => {
    const path = paths.get("tiny, grouped-query")!;
    await withModel(path, async (model) => {
      for (const [contextSize, sequences] of [
        [4096, 4],
        [1000, 3],
      ] as const) {
        const actual = await loadNative().measureContextMemory(model.native, { contextSize, sequences });
        const e = await estimateMemory(path, { contextSize, sequences });
        expect(e.kvCache, `${contextSize} tokens, ${sequences} sequences`).toBe(actual.context);
      }
    });
  });

  it("sliding window (gemma2): full-size caches by default; swaFull false: the window plus a micro-batch", async () => {
    const path = join(dir, "gemma2.gguf");
    await convertTestModel(paths.get("full multi-head")!, path, GEMMA2(256));
    await withModel(path, async (model) => {
      for (const contextSize of [512, 4096]) {
        for (const swaFull of [true, false]) {
          const actual = await loadNative().measureContextMemory(model.native, { contextSize, swaFull });
          const e = await estimateMemory(path, { contextSize, swaFull });
          expect(e.kvCache, `KV at ${contextSize}, swaFull ${swaFull}`).toBe(actual.context);
        }
      }
      const windowed = await estimateMemory(path, { contextSize: 4096, swaFull: false });
      expect(windowed.kvCache).toBeLessThan((await estimateMemory(path, { contextSize: 4096 })).kvCache);
    });
  });

  it("a recurrent model (Mamba): no KV cache, one conv and one SSM row per sequence and layer", async () => {
    const path = join(dir, "mamba.gguf");
    await writeMambaModel(vocabPath("llama-spm"), path, { embeddingLength: 64, layers: 3 });
    await withModel(path, async (model) => {
      for (const [contextSize, sequences] of [
        [512, 1],
        [4096, 1],
        [4096, 3],
      ] as const) {
        const actual = await loadNative().measureContextMemory(model.native, { contextSize, sequences });
        const e = await estimateMemory(path, { contextSize, sequences });
        expect(e.kvCache).toBe(0);
        expect(e.recurrentState, `${contextSize} tokens, ${sequences} sequences`).toBe(actual.context);
        expect(e.weights).toBe(actual.model);
      }
    });
  });

  it("a loaded model gives the same estimate as its file", async () => {
    const path = paths.get("full multi-head")!;
    await withModel(path, async (model) => {
      const fromFile = await estimateMemory(path, { contextSize: 2048 });
      const fromModel = await estimateMemory(model, { contextSize: 2048 });
      expect(fromModel).toEqual(fromFile);
      expect(await estimateMemory(await readGguf(path), { contextSize: 2048 })).toEqual(fromFile);
    });
  });
});

describe("toolwright inspect", () => {
  const inspect = (...argv: string[]) => runCli("inspect", ...argv);

  it("prints the estimate at the default context size and at the training context", async () => {
    const path = paths.get("large vocabulary, 32K training context")!;
    const atDefault = await estimateMemory(path);
    const atTraining = await estimateMemory(path, { contextSize: 32768 });
    const json = await inspect(path, "--json");
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as ModelSummary).memory).toEqual({
      weights: atDefault.weights,
      contexts: [atDefault, atTraining],
    });
    const text = await inspect(path);
    expect(text.stdout).toMatch(
      new RegExp(
        /\nMemory \(estimate[^\n]*\n {2}weights +[\d.]+ MiB\n {2}/.source +
          /8192 tokens +KV cache 2\.00 MiB, compute buffers ~[\d.]+ MiB, total ~[\d.]+ MiB\n {2}/.source +
          /32768 tokens +KV cache 8\.00 MiB/.source,
      ),
    );
  });

  it("a file whose metadata cannot be estimated is still summarised, without the memory part", async () => {
    const path = join(dir, "no-layers.gguf");
    await writeGguf(path, { metadata: new Map([["general.architecture", gguf.string("llama")]]) });
    const json = await inspect(path, "--json");
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as ModelSummary).memory).toBeNull();
    expect((await inspect(path)).stdout).not.toContain("Memory");
  });
});

describe("the automatic context size", () => {
  it("is min(training context, 8192) when memory allows, and createContext uses it by default", async () => {
    for (const name of ["tiny, grouped-query", "large vocabulary, 32K training context"]) {
      await withModel(paths.get(name)!, async (model) => {
        const expected = Math.min(model.info.trainContextSize, 8192);
        expect(autoContextSize(model, {}, 2 ** 40)).toBe(expected);
        const context = await model.createContext({ threads: 1 });
        expect(context.contextSize).toBe(expected);
        const explicit = await model.createContext({ contextSize: "auto", threads: 1 });
        expect(explicit.contextSize).toBe(expected);
        await expect(model.createContext({ contextSize: "max" as never })).rejects.toThrow(
          new RangeError('createContext: options.contextSize must be a number of tokens or "auto", got "max"'),
        );
      });
    }
  });

  it("shrinks to what fits 80% of the free memory less 256 MiB, down to a floor of 512", async () => {
    const path = paths.get("large vocabulary, 32K training context")!;
    await withModel(path, async (model) => {
      const cost = async (size: number) => {
        const e = await estimateMemory(model, { contextSize: size });
        return e.kvCache + e.recurrentState + e.computeBuffers + e.outputBuffer;
      };
      const reserve = 256 * 1024 * 1024;
      // Free memory that fits 2816 tokens (a multiple of 256) but not the next multiple.
      const free = ((await cost(2816)) + reserve) / 0.8;
      expect(await cost(3072)).toBeGreaterThan(free * 0.8 - reserve);
      expect(autoContextSize(model, {}, free)).toBe(2816);
      expect(autoContextSize(model, {}, 0)).toBe(512);
    });
  });

  it("with sequences, sizes each sequence so that the caches of all of them fit", async () => {
    const path = paths.get("large vocabulary, 32K training context")!;
    await withModel(path, async (model) => {
      const cost = async (size: number, sequences: number) => {
        const e = await estimateMemory(model, { contextSize: size * sequences, sequences });
        return e.kvCache + e.recurrentState + e.computeBuffers + e.outputBuffer;
      };
      const reserve = 256 * 1024 * 1024;
      // Free memory that fits 4 sequences of 1792 tokens but not of 2048: one sequence would get 8192.
      const free = ((await cost(1792, 4)) + reserve) / 0.8;
      expect(await cost(2048, 4)).toBeGreaterThan(free * 0.8 - reserve);
      expect(autoContextSize(model, {}, free)).toBe(8192);
      expect(autoContextSize(model, { sequences: 4 }, free)).toBe(1792);
    });
  });
});

describe("option checks", () => {
  it.each([
    [{ contextSize: 0 }, RangeError, /estimateMemory: options\.contextSize/],
    [{ kvType: "q4" }, RangeError, /estimateMemory: options\.kvType must be "f16", "f32" or "q8_0", got "q4"/],
    [{ contextsize: 10 }, TypeError, /unknown key "contextsize" \(did you mean "contextSize"\?\)/],
    [{ sequences: 1000 }, RangeError, /options\.sequences/],
  ])("%j is rejected", async (options, type, message) => {
    const path = paths.get("tiny, grouped-query")!;
    await expect(estimateMemory(path, options as never)).rejects.toThrow(type);
    await expect(estimateMemory(path, options as never)).rejects.toThrow(message);
  });

  it.each([
    [
      "an implausible layer count",
      { "llama.block_count": gguf.uint32(4_000_000_000), "llama.embedding_length": gguf.uint32(64) },
    ],
    ["no layers", { "llama.embedding_length": gguf.uint32(64) }],
    [
      "a float layer count",
      { "llama.block_count": gguf.float32(Number.NaN), "llama.embedding_length": gguf.uint32(64) },
    ],
  ])("metadata with %s is a RangeError naming the keys, at once", async (_, keys) => {
    const path = join(dir, "hostile.gguf");
    await writeGguf(path, {
      metadata: new Map([["general.architecture", gguf.string("llama")], ...Object.entries(keys)]),
    });
    await expect(estimateMemory(path)).rejects.toThrow(
      new RegExp(
        /estimateMemory: the metadata does not describe a model llama.cpp loads /.source +
          /\(llama\.block_count .*layers must be 1 to 512\)/.source,
      ),
    );
  });

  it("a source that is not a path, GGUF info or model is a TypeError; a missing file a GgufError", async () => {
    await expect(estimateMemory(42 as never)).rejects.toThrow(
      /estimateMemory: source must be a GGUF path, readGguf's result or a loaded Model, got 42/,
    );
    await expect(estimateMemory(join(dir, "missing.gguf"))).rejects.toMatchObject({
      name: "GgufError",
      code: "NOT_FOUND",
    });
  });
});
