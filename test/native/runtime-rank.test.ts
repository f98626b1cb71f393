/**
 * model.rank() on llama.cpp's rank pooling, on random-weight BERT models (a real WordPiece vocabulary):
 * one finite score per document in order, determinism, a pair's score independent of its batch
 * and of the documents' order, the pair formatting (llama.cpp's server's), the model's own rerank
 * prompt, the NotARerankerError raised before any decode, over-long pairs, abort and the option checks.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AbortError, ContextOverflowError, NotARerankerError, loadModel, type Model } from "../../src/index.js";
import { loadNative } from "../../src/runtime/binding.js";
import { writeBertModel, writeQwen3Reranker } from "../helpers/reranker-model.js";
import { ensureTestModel, vocabPath } from "../helpers/test-models.js";

const dir = mkdtempSync(join(tmpdir(), "toolwright-rank-"));
let reranker: Model;
let embedder: Model;
beforeAll(async () => {
  loadNative();
  const rankPath = join(dir, "reranker.gguf");
  const embedPath = join(dir, "embedder.gguf");
  await writeBertModel(vocabPath("bert-bge"), rankPath, { head: "rank" });
  await writeBertModel(vocabPath("bert-bge"), embedPath, { head: "none" });
  reranker = await loadModel(rankPath, { gpu: false });
  embedder = await loadModel(embedPath, { gpu: false });
});
afterAll(() => {
  reranker?.dispose();
  embedder?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const QUERY = "what does a cat eat?";
const DOCUMENTS = [
  "Cats are obligate carnivores and eat mostly meat.",
  "The Eiffel Tower is in Paris.",
  "A kitten drinks milk.",
  "Ships sail across the ocean carrying containers of goods from port to port.",
  "x",
];
/** Float tolerance: a pair decoded in another batch shape may differ in the last bits. */
const TOLERANCE = 1e-4;

describe("scores", () => {
  it("one finite number per document, in order; no documents gives no scores", async () => {
    const scores = await reranker.rank(QUERY, DOCUMENTS);
    expect(scores).toHaveLength(DOCUMENTS.length);
    for (const s of scores) expect(Number.isFinite(s)).toBe(true);
    // Random weights still tell different pairs apart.
    expect(new Set(scores).size).toBe(DOCUMENTS.length);
    expect(await reranker.rank(QUERY, [])).toEqual([]);
  });

  it("deterministic: the same call gives the same scores", async () => {
    expect(await reranker.rank(QUERY, DOCUMENTS)).toEqual(await reranker.rank(QUERY, DOCUMENTS));
  });

  it("a pair scored alone equals the same pair scored in a batch", async () => {
    const batch = await reranker.rank(QUERY, DOCUMENTS);
    for (const [i, document] of DOCUMENTS.entries()) {
      const [alone] = await reranker.rank(QUERY, [document]);
      expect(Math.abs(alone! - batch[i]!)).toBeLessThan(TOLERANCE);
    }
  });

  it("the documents' order does not change any document's score", async () => {
    const forward = await reranker.rank(QUERY, DOCUMENTS);
    const reversed = await reranker.rank(QUERY, [...DOCUMENTS].reverse());
    for (const [i, score] of forward.entries())
      expect(Math.abs(reversed[DOCUMENTS.length - 1 - i]! - score)).toBeLessThan(TOLERANCE);
  });

  it("the query matters: another query scores the same documents differently", async () => {
    const a = await reranker.rank(QUERY, DOCUMENTS);
    const b = await reranker.rank("where is the Eiffel Tower?", DOCUMENTS);
    expect(a.some((s, i) => Math.abs(s - b[i]!) > TOLERANCE)).toBe(true);
  });

  it("many documents (several native calls) score as they do alone", async () => {
    const many = Array.from({ length: 150 }, (_, i) => `document number ${i} about ${i % 7 ? "cats" : "ships"}`);
    const scores = await reranker.rank(QUERY, many);
    expect(scores).toHaveLength(many.length);
    for (const i of [0, 63, 64, 149]) {
      const [alone] = await reranker.rank(QUERY, [many[i]!]);
      expect(Math.abs(alone! - scores[i]!)).toBeLessThan(TOLERANCE);
    }
  });

  it("embed() still works on a reranker's model with another pooling, and rank() after it", async () => {
    const before = await reranker.rank(QUERY, DOCUMENTS.slice(0, 2));
    const [vector] = await reranker.embed(["a cat"], { pooling: "mean" });
    expect(vector!.length).toBe(reranker.info.embeddingSize);
    expect(await reranker.rank(QUERY, DOCUMENTS.slice(0, 2))).toEqual(before);
  });
});

describe("pair formatting", () => {
  it("a BERT vocabulary: [CLS] query [SEP] document, as llama.cpp's server builds it", () => {
    const plain = { addSpecial: false, parseSpecial: false };
    const { bos, sep } = reranker.specialTokens;
    expect(Array.from(reranker.rankTokens("a cat", "the mat"))).toEqual([
      bos,
      ...reranker.tokenize("a cat", plain),
      sep,
      ...reranker.tokenize("the mat", plain),
    ]);
  });

  it("special-token text in a query or document stays text", () => {
    const tokens = Array.from(reranker.rankTokens("[SEP]", "[CLS]"));
    expect(tokens.filter((t) => t === reranker.specialTokens.sep)).toHaveLength(1);
    expect(tokens.filter((t) => t === reranker.specialTokens.bos)).toHaveLength(1);
  });

  it("a model with a rerank prompt (tokenizer.chat_template.rerank) fills it in, special tokens parsed", async () => {
    const path = join(dir, "templated.gguf");
    const template = "[CLS] query: {query} [SEP] document: {document} [SEP]";
    await writeBertModel(vocabPath("bert-bge"), path, { head: "rank", rerankTemplate: template });
    const templated = await loadModel(path, { gpu: false });
    try {
      const special = { addSpecial: false, parseSpecial: true };
      const filled = "[CLS] query: {document} [SEP] document: the mat [SEP]";
      expect(Array.from(templated.rankTokens("{document}", "the mat"))).toEqual(
        Array.from(templated.tokenize(filled, special)),
      );
      // Same weights, other tokens: the prompt is what gets scored.
      const [withPrompt] = await templated.rank("a cat", ["the mat"]);
      const [without] = await reranker.rank("a cat", ["the mat"]);
      expect(Number.isFinite(withPrompt)).toBe(true);
      expect(Math.abs(withPrompt! - without!)).toBeGreaterThan(TOLERANCE);
    } finally {
      templated.dispose();
    }
  });
});

describe("a decoder reranker (Qwen3-Reranker's shape: last token, a yes/no head, a rerank prompt)", () => {
  const PROMPT = "<|im_start|>user\n<Query>: {query}\n<Document>: {document}<|im_end|>\n<|im_start|>assistant\n";
  let qwen: Model;
  beforeAll(async () => {
    const path = join(dir, "qwen3-reranker.gguf");
    await writeQwen3Reranker(await ensureTestModel({ vocab: "qwen2" }), path, PROMPT);
    qwen = await loadModel(path, { gpu: false });
  });
  afterAll(() => qwen?.dispose());

  it("pairs are its prompt with special tokens parsed; scores are the softmax's 'yes', in (0, 1)", async () => {
    const tokens = Array.from(qwen.rankTokens("a cat", "the mat"));
    const imStart = qwen.tokenize("<|im_start|>", { addSpecial: false, parseSpecial: true });
    expect(imStart).toHaveLength(1);
    expect(tokens.filter((t) => t === imStart[0])).toHaveLength(2);
    const scores = await qwen.rank(QUERY, DOCUMENTS);
    expect(scores).toHaveLength(DOCUMENTS.length);
    for (const s of scores) expect(s > 0 && s < 1).toBe(true);
    expect(new Set(scores).size).toBe(DOCUMENTS.length);
  });

  it("a pair scored alone equals the same pair in a batch (causal sequences side by side)", async () => {
    const batch = await qwen.rank(QUERY, DOCUMENTS);
    for (const [i, document] of DOCUMENTS.entries()) {
      const [alone] = await qwen.rank(QUERY, [document]);
      // Its q8_0 weights: matrix kernels of other batch shapes round differently (about 1e-4 here).
      expect(Math.abs(alone! - batch[i]!)).toBeLessThan(1e-3);
    }
  });
});

describe("errors", () => {
  it.each([
    ["a BERT embedding model (pooling mean, no classifier)", "embedder", /its pooling type is mean, not rank/],
    ["a llama chat model (no pooling type)", "llama", /names no pooling type/],
  ])("%s: NotARerankerError saying why", async (_, which, reason) => {
    const model = which === "embedder" ? embedder : await loadModel(await ensureTestModel({ vocab: "llama-spm" }));
    try {
      const error = await model.rank(QUERY, DOCUMENTS).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotARerankerError);
      expect((error as NotARerankerError).code).toBe("TOOLWRIGHT_NOT_A_RERANKER");
      expect((error as Error).message).toMatch(/^Model.rank: ".*" is not a reranker: /);
      expect((error as NotARerankerError).reason).toMatch(reason);
    } finally {
      if (model !== embedder) model.dispose();
    }
  });

  it("pooling rank without a classifier: NotARerankerError", async () => {
    // The rank model's metadata on the embedding model's tensors (no cls, no cls.output).
    const { readGguf } = await import("../../src/runtime/gguf/reader.js");
    const { readTensorBytes } = await import("../../src/runtime/gguf/tensor-data.js");
    const { writeGguf } = await import("../../src/runtime/gguf/writer.js");
    const source = await readGguf(embedder.path);
    const metadata = new Map(source.metadata);
    metadata.set("bert.pooling_type", { type: "uint32", value: 4 });
    const tensors = await Promise.all(
      source.tensors.map(async (t) => ({
        name: t.name,
        shape: t.shape,
        type: t.type,
        data: await readTensorBytes(source, t),
      })),
    );
    const path = join(dir, "headless.gguf");
    await writeGguf(path, { metadata, tensors });
    const headless = await loadModel(path, { gpu: false });
    try {
      await expect(headless.rank(QUERY, DOCUMENTS)).rejects.toThrow(
        /is not a reranker: it has no classifier \(no cls or cls.output tensor\)/,
      );
    } finally {
      headless.dispose();
    }
  });

  it("embed() with the model's pooling on a reranker says to pass another pooling", async () => {
    await expect(reranker.embed("a cat")).rejects.toThrow(/is a reranker \(pooling "rank"\)/);
  });

  it("a pair longer than contextSize: ContextOverflowError naming the document, before any decode", async () => {
    const long = "word ".repeat(100);
    const error = await reranker.rank(QUERY, ["short", long], { contextSize: 64 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect((error as Error).message).toMatch(/^Model.rank: documents\[1\] with the query has \d+ tokens/);
    expect((error as ContextOverflowError).contextSize).toBe(64);
  });

  it("an aborted signal rejects with AbortError", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(reranker.rank(QUERY, DOCUMENTS, { signal: controller.signal })).rejects.toBeInstanceOf(AbortError);
  });

  it.each([
    [() => reranker.rank(1 as never, DOCUMENTS), TypeError, /Model.rank: query must be a string, got 1/],
    [() => reranker.rank(QUERY, "doc" as never), TypeError, /Model.rank: documents must be an array of strings/],
    [() => reranker.rank(QUERY, ["a", 2 as never]), TypeError, /Model.rank: documents\[1\] must be a string/],
    [() => reranker.rank(QUERY, [], { contextSize: 0 }), RangeError, /Model.rank: options.contextSize/],
    [() => reranker.rank(QUERY, [], { threads: 1.5 }), RangeError, /Model.rank: options.threads/],
    [() => reranker.rank(QUERY, [], { signal: 1 as never }), TypeError, /Model.rank: options.signal/],
    [() => reranker.rank(QUERY, [], { top: 1 } as never), TypeError, /Model.rank: options has an unknown key "top"/],
  ])("bad arguments: %#", async (call, type, message) => {
    const error = await call().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toMatch(message);
  });
});
