/**
 * model.embed() on llama.cpp's embedding path, on a tiny random-weight model: the shape, the
 * determinism (the same text gives the same vector, alone or in a batch), the normalisation,
 * the pooling types checked against the per-token vectors they pool, empty and over-long texts,
 * abort, concurrent calls, disposal, and the option checks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AbortError, ContextOverflowError, loadModel, type Model } from "../../src/index.js";
import { loadNative } from "../../src/runtime/binding.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: Model;
let dims: number;
beforeAll(async () => {
  loadNative();
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm" }), { gpu: false });
  dims = model.info.embeddingSize;
});
afterAll(() => model?.dispose());

const TEXTS = ["The cat sat on the mat.", "A completely different sentence about ships.", "héllo wörld 🎉", "x"];
const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);
/** The rows of a pooling "none" result (one per token). */
const rows = (flat: Float32Array) =>
  Array.from({ length: flat.length / dims }, (_, r) => flat.subarray(r * dims, (r + 1) * dims));
const tokenCount = (text: string) => model.tokenize(text).length;

describe("shape", () => {
  it("one Float32Array of embeddingSize floats per text, in order; a single string gives one array", async () => {
    const vectors = await model.embed(TEXTS);
    expect(vectors).toHaveLength(TEXTS.length);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(dims);
      expect(v.every(Number.isFinite)).toBe(true);
    }
    const one = await model.embed(TEXTS[0]!);
    expect(one).toBeInstanceOf(Float32Array);
    expect(maxDiff(one, vectors[0]!)).toBeLessThan(1e-6);
    expect(await model.embed([])).toEqual([]);
  });

  it('pooling "none": one row per token (the tokenizer\'s count, BOS included)', async () => {
    const [a, b] = await model.embed(TEXTS.slice(0, 2), { pooling: "none" });
    expect(a!.length).toBe(tokenCount(TEXTS[0]!) * dims);
    expect(b!.length).toBe(tokenCount(TEXTS[1]!) * dims);
  });
});

describe("determinism", () => {
  it("the same text gives the same vector, call after call", async () => {
    const a = await model.embed(TEXTS[1]!);
    const b = await model.embed(TEXTS[1]!);
    expect(Array.from(b)).toEqual(Array.from(a));
  });

  it("a text's vector never depends on the other texts of its batch (same shape, other content)", async () => {
    const text = "item number 7 in a long list of short texts";
    const neighbours = (word: string) => Array.from({ length: 9 }, (_, i) => `${word} ${i} `.repeat(6));
    expect(neighbours("cat").map(tokenCount)).toEqual(neighbours("dog").map(tokenCount));
    const [a] = await model.embed([text, ...neighbours("cat")]);
    const [b] = await model.embed([text, ...neighbours("dog")]);
    expect(Array.from(b!)).toEqual(Array.from(a!));
  });

  it("a text alone or in a batch of many (several batches): the same vector up to the kernels' precision", async () => {
    // Not bit-identical: llama.cpp's CPU kernels take other paths for larger batches (measured on
    // normalised vectors: up to 2e-3 per component with q8_0 weights, 1.4e-4 with f32; a few
    // 1e-8 while the batch stays a handful of tokens). The test above shows it is not leakage.
    const many = Array.from({ length: 150 }, (_, i) => `item number ${i} in a long list of short texts`);
    const vectors = await model.embed([...TEXTS, ...many]);
    expect(vectors).toHaveLength(TEXTS.length + 150);
    for (const i of [0, 1, 2, 3, 63, 64, 153]) {
      const alone = await model.embed(i < TEXTS.length ? TEXTS[i]! : many[i - TEXTS.length]!);
      expect(maxDiff(vectors[i]!, alone), String(i)).toBeLessThan(5e-3);
      expect(vectors[i]!.reduce((s, x, k) => s + x * alone[k]!, 0)).toBeGreaterThan(0.9999);
    }
    expect(maxDiff(vectors[TEXTS.length]!, vectors[TEXTS.length + 1]!)).toBeGreaterThan(1e-2);
  });
});

describe("normalisation", () => {
  it("normalize (default) gives an L2 norm of 1; normalize false the raw vector in the same direction", async () => {
    const normalized = await model.embed(TEXTS);
    const raw = await model.embed(TEXTS, { normalize: false });
    for (let i = 0; i < TEXTS.length; i++) {
      expect(Math.abs(norm(normalized[i]!) - 1)).toBeLessThan(1e-5);
      const n = norm(raw[i]!);
      expect(Math.abs(n - 1)).toBeGreaterThan(1e-3);
      expect(
        maxDiff(
          raw[i]!.map((x) => x / n),
          normalized[i]!,
        ),
      ).toBeLessThan(1e-5);
    }
  });

  it('with pooling "none" every token row is normalised', async () => {
    const [flat] = await model.embed([TEXTS[0]!], { pooling: "none" });
    for (const row of rows(flat!)) expect(Math.abs(norm(row) - 1)).toBeLessThan(1e-5);
  });
});

describe("pooling", () => {
  it("mean, cls and last pool the per-token vectors as their names say, and differ from each other", async () => {
    for (const text of TEXTS.slice(0, 3)) {
      const [flat] = await model.embed([text], { pooling: "none", normalize: false });
      const tokens = rows(flat!);
      const mean = new Float32Array(dims).map((_, d) => tokens.reduce((s, r) => s + r[d]!, 0) / tokens.length);
      const [m] = await model.embed([text], { pooling: "mean", normalize: false });
      const [c] = await model.embed([text], { pooling: "cls", normalize: false });
      const [l] = await model.embed([text], { pooling: "last", normalize: false });
      expect(maxDiff(m!, mean), text).toBeLessThan(1e-4);
      expect(maxDiff(c!, tokens[0]!)).toBeLessThan(1e-5);
      expect(maxDiff(l!, tokens.at(-1)!)).toBeLessThan(1e-5);
      expect(maxDiff(m!, c!)).toBeGreaterThan(1e-3);
      expect(maxDiff(m!, l!)).toBeGreaterThan(1e-3);
      expect(maxDiff(c!, l!)).toBeGreaterThan(1e-3);
    }
  });

  it('the default is "mean" for a model that names no pooling type; "model" then falls back to none', async () => {
    const [byDefault] = await model.embed([TEXTS[0]!]);
    const [mean] = await model.embed([TEXTS[0]!], { pooling: "mean" });
    expect(Array.from(byDefault!)).toEqual(Array.from(mean!));
    const [own] = await model.embed([TEXTS[0]!], { pooling: "model" });
    expect(own!.length).toBe(tokenCount(TEXTS[0]!) * dims);
  });
});

describe("limits and failures", () => {
  it("an empty text is a RangeError naming its index; nothing is embedded", async () => {
    await expect(model.embed(["fine", ""])).rejects.toThrow(
      new RangeError("Model.embed: texts[1] is empty: there is nothing to embed"),
    );
    await expect(model.embed("")).rejects.toThrow(RangeError);
  });

  it("a text over contextSize: a ContextOverflowError naming both sizes; a larger contextSize embeds it", async () => {
    const long = "word ".repeat(300);
    const tokens = tokenCount(long);
    const err = await model.embed(["short", long], { contextSize: 256 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContextOverflowError);
    expect(err).toMatchObject({ code: "TOOLWRIGHT_CONTEXT_OVERFLOW", needed: tokens, contextSize: 256 });
    expect((err as Error).message).toMatch(
      new RegExp(
        `texts\\[1\\] has ${tokens} tokens, more than the embedding context holds \\(contextSize 256\\); pass a ` +
          `larger contextSize`,
      ),
    );
    const [, v] = await model.embed(["short", long], { contextSize: 512 });
    expect(v!.length).toBe(dims);
  });

  it("an over-long text past the first native call (64 texts) is named by its place in the whole list", async () => {
    const texts = [...Array.from({ length: 70 }, (_, i) => `text ${i}`), "word ".repeat(300)];
    await expect(model.embed(texts, { contextSize: 256 })).rejects.toThrow(/^Model.embed: texts\[70\] has \d+ tokens/);
  });

  it("an aborted signal rejects with AbortError, before or during the work; the model embeds again after", async () => {
    await expect(model.embed(TEXTS, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortError);
    const many = Array.from({ length: 400 }, (_, i) => `text ${i} `.repeat(20));
    const controller = new AbortController();
    const running = model.embed(many, { signal: controller.signal });
    queueMicrotask(() => controller.abort());
    await expect(running).rejects.toBeInstanceOf(AbortError);
    const v = await model.embed(TEXTS[0]!);
    expect(v.length).toBe(dims);
  });

  it("concurrent calls queue up and each gets its own results", async () => {
    const [a, b, c] = await Promise.all([
      model.embed(TEXTS[0]!),
      model.embed(TEXTS[1]!, { pooling: "last" }),
      model.embed(TEXTS[0]!),
    ]);
    expect(Array.from(c!)).toEqual(Array.from(a!));
    expect(maxDiff(a!, b!)).toBeGreaterThan(1e-3);
  });

  it("after the model is disposed, embed throws", async () => {
    const other = await loadModel(model.path, { gpu: false });
    await other.embed("warm up");
    other.dispose();
    await expect(other.embed("again")).rejects.toThrow(/is disposed/);
  });

  it("disposing the model during an embedding rejects it with an error saying so; nothing crashes", async () => {
    const other = await loadModel(model.path, { gpu: false });
    await other.embed("warm up");
    const running = other.embed(Array.from({ length: 400 }, (_, i) => `text ${i} `.repeat(20)));
    // Disposed while the batches run natively (or, on a very fast machine, just before they start).
    setTimeout(() => other.dispose(), 0);
    await expect(running).rejects.toThrow(/Model.embed: the model was disposed during the embedding|is disposed/);
    expect((await model.embed(TEXTS[0]!)).length).toBe(dims);
  });

  it("a vocabOnly model cannot embed", async () => {
    const vocab = await loadModel(model.path, { vocabOnly: true });
    await expect(vocab.embed("x")).rejects.toThrow(/vocabOnly/);
    vocab.dispose();
  });
});

describe("option checks", () => {
  it.each([
    [
      { pooling: "max" },
      RangeError,
      'Model.embed: options.pooling must be "model", "mean", "cls", "last", "none", got "max"',
    ],
    [{ normalise: true }, TypeError, 'did you mean "normalize"'],
    [{ normalize: "yes" }, TypeError, "Model.embed: options.normalize"],
    [{ contextSize: 0 }, RangeError, "Model.embed: options.contextSize"],
    [{ signal: {} }, TypeError, "Model.embed: options.signal"],
    [{ threads: 0 }, RangeError, "Model.embed: options.threads"],
  ])("%j is rejected", async (options, type, message) => {
    await expect(model.embed("x", options as never)).rejects.toThrow(type);
    await expect(model.embed("x", options as never)).rejects.toThrow(message);
  });

  it.each([[42], [[1, 2]], [null]])("texts %j is a TypeError", async (texts) => {
    await expect(model.embed(texts as never)).rejects.toThrow(TypeError);
  });
});
