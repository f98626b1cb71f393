import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ggufNumber, ggufString, ggufStringArray, readGguf, readGgufMetadata } from "../../src/runtime/gguf/index.js";
import { vocabPath } from "../helpers/test-models.js";

// Real vocabularies shipped with llama.cpp (deps/llama.cpp/models): tokenizer metadata, no tensors.
describe.each([
  { vocab: "qwen2", tokens: 151936, model: "gpt2", pre: "qwen2", eos: 151643, hasTemplate: true, merges: true },
  {
    vocab: "llama-bpe",
    tokens: 128256,
    model: "gpt2",
    pre: "llama-bpe",
    eos: 128001,
    hasTemplate: false,
    merges: true,
  },
  { vocab: "llama-spm", tokens: 32000, model: "llama", pre: "default", eos: 2, hasTemplate: false, merges: false },
])("reading ggml-vocab-$vocab.gguf", ({ vocab, tokens, model, pre, eos, hasTemplate, merges }) => {
  it("finds the tokenizer: model, pre-tokenizer, tokens, types, special ids", async () => {
    const file = await readGguf(vocabPath(vocab));
    const meta = file.metadata;
    expect(file.tensors).toEqual([]);
    expect(ggufString(meta, "tokenizer.ggml.model")).toBe(model);
    expect(ggufString(meta, "tokenizer.ggml.pre")).toBe(pre);
    const list = ggufStringArray(meta, "tokenizer.ggml.tokens")!;
    expect(list).toHaveLength(tokens);
    expect(ggufNumber(meta, "tokenizer.ggml.eos_token_id")).toBe(eos);
    const types = meta.get("tokenizer.ggml.token_type");
    expect(types).toMatchObject({ type: "array", itemType: "int32" });
    expect((types!.value as Int32Array).length).toBe(tokens);
    expect(meta.has("tokenizer.ggml.merges")).toBe(merges);
    expect(meta.has("tokenizer.chat_template")).toBe(hasTemplate);
  });

  it("reads the same token strings as the raw bytes hold", async () => {
    // Independent check: find the first token string right after the array header in the raw file.
    const raw = await readFile(vocabPath(vocab));
    const key = Buffer.from("tokenizer.ggml.tokens");
    const at = raw.indexOf(key) + key.length + 4 + 4 + 8; // type, item type, count
    const len = Number(raw.readBigUInt64LE(at));
    const first = raw.toString("utf8", at + 8, at + 8 + len);
    const meta = await readGgufMetadata(vocabPath(vocab));
    expect(ggufStringArray(meta, "tokenizer.ggml.tokens")![0]).toBe(first);
  });
});

describe("reading special tokens", () => {
  it("finds Qwen's chat markers among the qwen2 tokens and its chat template", async () => {
    const meta = await readGgufMetadata(vocabPath("qwen2"));
    const tokens = ggufStringArray(meta, "tokenizer.ggml.tokens")!;
    expect(tokens.indexOf("<|im_start|>")).toBe(151644);
    expect(tokens.indexOf("<|im_end|>")).toBe(151645);
    expect(ggufString(meta, "tokenizer.chat_template")).toContain("<|im_start|>");
  });

  it("keeps SentencePiece scores as a Float32Array", async () => {
    const meta = await readGgufMetadata(vocabPath("llama-spm"));
    const scores = meta.get("tokenizer.ggml.scores")!;
    expect(scores.type === "array" && scores.value).toBeInstanceOf(Float32Array);
    expect(ggufStringArray(meta, "tokenizer.ggml.tokens")!.slice(0, 3)).toEqual(["<unk>", "<s>", "</s>"]);
  });
});
