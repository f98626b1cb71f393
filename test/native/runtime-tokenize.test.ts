/**
 * Tokenizer through the native addon, on llama.cpp's real vocabularies (vocab-only loads):
 * llama.cpp's own tokenizer test vectors, UTF-8 round trips, special tokens, token bytes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadModel, type Model, TokenAttribute } from "../../src/index.js";
import { loadNative } from "../../src/runtime/binding.js";
import { LLAMA_MODELS_DIR } from "../helpers/test-models.js";

const VOCABS = ["llama-bpe", "qwen2", "llama-spm"] as const;
type VocabName = (typeof VOCABS)[number];

const models = new Map<VocabName, Model>();

beforeAll(async () => {
  loadNative(); // a missing addon fails here, listing where it looked
  for (const name of VOCABS) {
    models.set(name, await loadModel(join(LLAMA_MODELS_DIR, `ggml-vocab-${name}.gguf`), { vocabOnly: true }));
  }
});

afterAll(() => {
  for (const model of models.values()) model.dispose();
});

function model(name: VocabName): Model {
  const m = models.get(name);
  if (!m) throw new Error(`vocabulary ${name} was not loaded`);
  return m;
}

/** llama.cpp's tokenizer test vectors: ggml-vocab-NAME.gguf.inp (texts) and .out (expected ids). */
function referenceCases(name: VocabName): Array<{ text: string; ids: number[] }> {
  const base = join(LLAMA_MODELS_DIR, `ggml-vocab-${name}.gguf`);
  const raw = readFileSync(`${base}.inp`, "utf8");
  const texts: string[] = [];
  const sep = "\n__ggml_vocab_test__\n";
  for (let pos = 0; pos < raw.length; ) {
    const next = raw.indexOf(sep, pos);
    if (next === -1) {
      texts.push(raw.slice(pos));
      break;
    }
    texts.push(raw.slice(pos, next));
    pos = next + sep.length;
  }
  const lines = readFileSync(`${base}.out`, "utf8").split("\n");
  return texts.map((text, i) => ({ text, ids: (lines[i] ?? "").trim().split(" ").filter(Boolean).map(Number) }));
}

const CORPUS = [
  "Hello world",
  " leading space and  double  spaces",
  "héllo wörld — ça va? Ünïcödé",
  "日本語のテキストと中文混合",
  "Привет, мир! Γειά σου κόσμε",
  "emoji 🎉🦙👩‍👩‍👧‍👦 and flags 🇫🇷🇯🇵",
  "tabs\tand\nnewlines\r\n\n  indented",
  'code: const x = { "a": [1, 2.5e-3] }; // ok',
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 astral plane 𝄞",
];

const SPECIAL_CORPUS: Record<VocabName, string[]> = {
  "llama-bpe": ["<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi 🎉<|eot_id|>"],
  qwen2: ["<|im_start|>system\nВы помощник<|im_end|>\n<|im_start|>user\n日本<|im_end|>"],
  "llama-spm": ["text then </s>"],
};

describe.each(VOCABS)("vocabulary %s", (name) => {
  test("matches llama.cpp's tokenizer test vectors", () => {
    const cases = referenceCases(name);
    expect(cases.length).toBeGreaterThan(30);
    for (const { text, ids } of cases) {
      expect(
        Array.from(model(name).tokenize(text, { addSpecial: false, parseSpecial: false })),
        JSON.stringify(text),
      ).toEqual(ids);
    }
  });

  test("round-trips multi-byte UTF-8, emoji and special tokens", () => {
    const m = model(name);
    for (const text of [...CORPUS, ...SPECIAL_CORPUS[name]]) {
      const tokens = m.tokenize(text, { addSpecial: false, parseSpecial: true });
      expect(m.detokenize(tokens), JSON.stringify(text)).toBe(text);
    }
  });

  test("token bytes concatenate to the UTF-8 of the text", () => {
    const m = model(name);
    for (const text of CORPUS) {
      const tokens = m.tokenize(text, { addSpecial: false });
      const bytes = Buffer.concat(Array.from(tokens, (t) => m.tokenBytes(t)));
      // SPM always puts a space before the text; the tokens' bytes include it.
      const expected = name === "llama-spm" ? ` ${text}` : text;
      expect(bytes.toString("utf8"), JSON.stringify(text)).toBe(expected);
    }
  });

  test("async tokenize/detokenize agree with the sync versions on a long text", async () => {
    const m = model(name);
    const long = CORPUS.join("\n").repeat(200);
    const tokens = await m.tokenizeAsync(long, { addSpecial: false });
    expect(Array.from(tokens)).toEqual(Array.from(m.tokenize(long, { addSpecial: false })));
    expect(await m.detokenizeAsync(tokens)).toBe(m.detokenize(tokens));
  });

  test("special tokens parse to single control tokens, or stay text without parseSpecial", () => {
    const m = model(name);
    const { bos, eos } = m.specialTokens;
    expect(bos).toBeGreaterThanOrEqual(0);
    expect(eos).toBeGreaterThanOrEqual(0);
    expect(m.isEndOfGeneration(eos)).toBe(true);
    const eosText = m.detokenize([eos]);
    expect(eosText.length).toBeGreaterThan(0);
    const parsed = m.tokenize(eosText, { addSpecial: false, parseSpecial: true });
    expect(Array.from(parsed)).toEqual([eos]);
    const literal = m.tokenize(eosText, { addSpecial: false, parseSpecial: false });
    expect(literal.length).toBeGreaterThan(1);
    expect(m.tokenKind(eos)).toBe("control");
    expect(m.tokenAttributes(eos) & TokenAttribute.control).not.toBe(0);
    // unparseSpecial: false hides control tokens in the text.
    expect(m.detokenize([eos], { unparseSpecial: false })).toBe("");
  });

  test("addSpecial follows the model's add-BOS flag; removeSpecial drops it again", () => {
    const m = model(name);
    const tokens = Array.from(m.tokenize("Hello", { addSpecial: true }));
    const plain = Array.from(m.tokenize("Hello", { addSpecial: false }));
    if (m.specialTokens.addBos) expect(tokens).toEqual([m.specialTokens.bos, ...plain]);
    else expect(tokens).toEqual(plain);
    expect(m.detokenize(tokens, { removeSpecial: true }).trim()).toBe("Hello");
  });

  test("vocabulary() lays out every token's bytes and attributes", async () => {
    const m = model(name);
    const vocab = await m.vocabulary();
    expect(vocab.offsets.length).toBe(m.vocabSize + 1);
    expect(vocab.attributes.length).toBe(m.vocabSize);
    for (const id of [0, 1, m.specialTokens.eos, Math.floor(m.vocabSize / 2), m.vocabSize - 1]) {
      const piece = vocab.bytes.subarray(vocab.offsets[id]!, vocab.offsets[id + 1]!);
      expect(Buffer.from(piece).equals(Buffer.from(m.tokenBytes(id))), `token ${id}`).toBe(true);
      expect(vocab.attributes[id]).toBe(m.tokenAttributes(id));
    }
  });
});

test("metadata holds every scalar key, and the vocabulary size matches the token list", () => {
  const m = model("qwen2");
  expect(m.metadata["general.architecture"]).toBe("qwen2");
  expect(m.metadata["tokenizer.ggml.model"]).toBe("gpt2");
  expect(m.metadata["tokenizer.ggml.pre"]).toBe("qwen2");
  expect(m.vocabSize).toBe(151936);
  expect(m.specialTokens.eot).toBe(m.tokenize("<|im_end|>", { addSpecial: false })[0]);
  expect(m.specialTokens.sep).toBe(-1);
});

test("bad token ids and arguments throw RangeError/TypeError naming the argument", async () => {
  const m = model("llama-bpe");
  expect(() => m.detokenize([m.vocabSize])).toThrow(RangeError);
  expect(() => m.detokenize([m.vocabSize])).toThrow(/tokens\[0\]/);
  expect(() => m.detokenize([1.5])).toThrow(RangeError);
  expect(() => m.detokenize("abc" as unknown as number[])).toThrow(TypeError);
  expect(() => m.tokenBytes(-1)).toThrow(/token/);
  expect(() => m.tokenize(42 as unknown as string)).toThrow(/text must be a string/);
  expect(() => m.tokenize("x", { addSpecial: "yes" as unknown as boolean })).toThrow(/options\.addSpecial/);
  await expect(m.createContext()).rejects.toThrow(/vocabOnly/);
});
