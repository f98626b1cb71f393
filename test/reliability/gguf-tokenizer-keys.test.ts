// Issue 31: tokenizer metadata (tokenizer.ggml.*) that llama.cpp accepts at load but that aborts the
// process later (tokenizer.ggml.model "none": SIGABRT on the first tokenize) or at load (an empty
// token renamed onto another token's text), or that it reads as garbage without a word. Each is
// refused at load with a ModelLoadError naming the key and the value; each case runs in a child.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { GgufMetadata } from "../../src/runtime/gguf/types.js";
import { gguf } from "../../src/runtime/gguf/values.js";
import { rewriteGguf, tokenTexts } from "../helpers/hostile-gguf.js";
import { isolated } from "../helpers/isolated.js";
import { ensureTestModel, LLAMA_MODELS_DIR } from "../helpers/test-models.js";

const dir = mkdtempSync(join(tmpdir(), "toolwright-gguf-tokenizer-"));
let spmModel = "";

beforeAll(async () => {
  spmModel = await ensureTestModel({ vocab: "llama-spm" });
}, 300_000);

/** A vocabulary-only GGUF of llama.cpp's test material (SPM: llama-spm, BPE: qwen2). */
const vocabFile = (name: "llama-spm" | "qwen2") => join(LLAMA_MODELS_DIR, `ggml-vocab-${name}.gguf`);

const setString = (key: string, value: string) => (m: GgufMetadata) => void m.set(key, gguf.string(value));
const tokenTypes = (m: GgufMetadata) => (m.get("tokenizer.ggml.token_type") as { value: Int32Array }).value;
const scores = (m: GgufMetadata) => (m.get("tokenizer.ggml.scores") as { value: Float32Array }).value;
const merges = (m: GgufMetadata) => (m.get("tokenizer.ggml.merges") as { value: string[] }).value;

/** What a loaded model is then asked to do: tokenize (special tokens parsed) and detokenize. */
const USE = `for (const s of ["hello world", "\\n 𝄞 ünï <s></s>", ""]) {
  const t = m.tokenize(s, { parseSpecial: true }); m.detokenize(t); m.detokenize(t, { unparseSpecial: true }); }`;

function loadAndUse(path: string, options: object) {
  return isolated(
    `const m = await lib.loadModel(${JSON.stringify(path)}, ${JSON.stringify(options)}); ${USE}; return "ok";`,
  );
}

interface Case {
  what: string;
  vocab: "llama-spm" | "qwen2";
  mutate: (m: GgufMetadata) => void;
  message: RegExp;
}

/** Refused by toolwright's pre-load check (TOOLWRIGHT_INVALID_GGUF): each once crashed or misread. */
const REFUSED: Case[] = [
  {
    what: 'tokenizer.ggml.model "none" (tokenize aborted: the tokenizer is never built)',
    vocab: "llama-spm",
    mutate: setString("tokenizer.ggml.model", "none"),
    message: /metadata tokenizer\.ggml\.model is "none": the model has no tokenizer/,
  },
  {
    what: 'tokenizer.ggml.model "no_vocab" (the same)',
    vocab: "qwen2",
    mutate: setString("tokenizer.ggml.model", "no_vocab"),
    message: /metadata tokenizer\.ggml\.model is "no_vocab": the model has no tokenizer/,
  },
  {
    what: 'tokenizer.ggml.model "test" (llama.cpp\'s dummy: text hashed into arbitrary ids)',
    vocab: "qwen2",
    mutate: setString("tokenizer.ggml.model", "test"),
    message: /metadata tokenizer\.ggml\.model is "test", llama\.cpp's dummy tokenizer/,
  },
  {
    what: "an unknown tokenizer.ggml.model (was misreported as a byte-token problem)",
    vocab: "llama-spm",
    mutate: setString("tokenizer.ggml.model", "sentencepiece"),
    message: /metadata tokenizer\.ggml\.model is "sentencepiece", not a tokenizer llama\.cpp supports \(llama, gpt2/,
  },
  {
    what: "an empty token whose llama.cpp name [EMPTY_i] is another token's text (GGML_ASSERT at load)",
    vocab: "llama-spm",
    mutate: (m) => {
      const t = tokenTexts(m);
      t[500] = "";
      t[501] = "[EMPTY_500]";
    },
    message: /token 500 has an empty text, which llama\.cpp names "\[EMPTY_500\]", the text of token 501/,
  },
  {
    what: "a token type outside the enum (read as undefined: the token vanished from detokenized text)",
    vocab: "qwen2",
    mutate: (m) => void (tokenTypes(m)[1000] = 99),
    message: /metadata tokenizer\.ggml\.token_type\[1000\] is 99 \(token 1000 ".*"\), not a token type \(0 to 6\)/,
  },
  {
    what: "a negative token type",
    vocab: "llama-spm",
    mutate: (m) => void (tokenTypes(m)[700] = -3),
    message: /metadata tokenizer\.ggml\.token_type\[700\] is -3 \(token 700 ".*"\), not a token type/,
  },
  {
    what: "a byte-typed SPM token whose text is no <0xHH> (a std::out_of_range, or a garbage byte)",
    vocab: "llama-spm",
    mutate: (m) => void (tokenTypes(m)[500] = 6),
    message: /token_type\[500\] makes token 500 ".*" a byte token \(type 6\), but a byte token's text must be <0xHH>/,
  },
  {
    what: "a byte-typed BPE token whose text is no <0xHH>",
    vocab: "qwen2",
    mutate: (m) => void (tokenTypes(m)[300] = 6),
    message: /metadata tokenizer\.ggml\.token_type\[300\] makes token 300 ".*" a byte token/,
  },
  {
    what: "a NaN score (the SPM tokenizer's merge order needs comparable scores)",
    vocab: "llama-spm",
    mutate: (m) => void (scores(m)[1234] = Number.NaN),
    message: /metadata tokenizer\.ggml\.scores\[1234\] is NaN \(token 1234 ".*"\), expected a number/,
  },
  {
    what: "a BPE merge without a space (silently kept as an empty pair)",
    vocab: "qwen2",
    mutate: (m) => void (merges(m)[10] = "helloworld"),
    message: /metadata tokenizer\.ggml\.merges\[10\] is "helloworld", expected two pieces separated by a space/,
  },
  {
    what: "a BPE merge with nothing after its space",
    vocab: "qwen2",
    mutate: (m) => void (merges(m)[0] = "ab "),
    message: /metadata tokenizer\.ggml\.merges\[0\] is "ab ", expected two pieces/,
  },
  {
    what: "an empty BPE merge",
    vocab: "qwen2",
    mutate: (m) => void (merges(m)[5] = ""),
    message: /metadata tokenizer\.ggml\.merges\[5\] is "", expected two pieces/,
  },
];

/** Refused by llama.cpp's own load with a clear reason (TOOLWRIGHT_LOAD_FAILED): kept so, never a crash. */
const LLAMA_REFUSES: Case[] = [
  {
    what: "an unknown tokenizer.ggml.pre",
    vocab: "qwen2",
    mutate: setString("tokenizer.ggml.pre", "nonsense"),
    message: /unknown pre-tokenizer type: 'nonsense'/,
  },
  {
    what: "tokenizer.ggml.pre of a non-string type",
    vocab: "qwen2",
    mutate: (m) => void m.set("tokenizer.ggml.pre", gguf.uint32(3)),
    message: /key tokenizer\.ggml\.pre has wrong type u32/,
  },
  {
    what: "tokenizer.ggml.model missing",
    vocab: "qwen2",
    mutate: (m) => void m.delete("tokenizer.ggml.model"),
    message: /key not found in model: tokenizer\.ggml\.model/,
  },
  {
    what: "tokenizer.ggml.model of a non-string type",
    vocab: "llama-spm",
    mutate: (m) => void m.set("tokenizer.ggml.model", gguf.int32(1)),
    message: /key tokenizer\.ggml\.model has wrong type i32/,
  },
  {
    what: "BPE merges missing",
    vocab: "qwen2",
    mutate: (m) => void m.delete("tokenizer.ggml.merges"),
    message: /cannot find tokenizer merges/,
  },
  {
    what: "BPE merges of a non-string type",
    vocab: "qwen2",
    mutate: (m) => void m.set("tokenizer.ggml.merges", gguf.array("int32", new Int32Array([1, 2]))),
    message: /invalid gguf type for tokenizer\.ggml\.merges/,
  },
  {
    what: "tokenizer.ggml.tokens missing",
    vocab: "llama-spm",
    mutate: (m) => void m.delete("tokenizer.ggml.tokens"),
    message: /cannot find tokenizer vocab/,
  },
  {
    what: "tokenizer.ggml.tokens of a non-string type",
    vocab: "llama-spm",
    mutate: (m) => void m.set("tokenizer.ggml.tokens", gguf.array("int32", new Int32Array(3))),
    message: /invalid gguf type for tokenizer\.ggml\.tokens/,
  },
  {
    what: "tokenizer.ggml.token_type shorter than the token list",
    vocab: "qwen2",
    mutate: (m) => void m.set("tokenizer.ggml.token_type", gguf.array("int32", new Int32Array(3))),
    message: /out of array bounds for toktypes \(3 < 151936\)/,
  },
  {
    what: "tokenizer.ggml.token_type of a float type",
    vocab: "qwen2",
    mutate: (m) => void m.set("tokenizer.ggml.token_type", gguf.array("float32", new Float32Array(3))),
    message: /invalid gguf type for tokenizer\.ggml\.token_type/,
  },
  {
    what: "tokenizer.ggml.scores shorter than the token list",
    vocab: "llama-spm",
    mutate: (m) => void m.set("tokenizer.ggml.scores", gguf.array("float32", new Float32Array(3))),
    message: /out of array bounds for scores \(3 < 32000\)/,
  },
  {
    what: "tokenizer.ggml.scores of a string type",
    vocab: "llama-spm",
    mutate: (m) => void m.set("tokenizer.ggml.scores", gguf.stringArray(["a"])),
    message: /invalid gguf type for tokenizer\.ggml\.scores/,
  },
];

/** Unusual but well defined: these load, tokenize and detokenize. */
const LOADS: Omit<Case, "message">[] = [
  {
    what: "an empty tokenizer.ggml.pre (BPE falls back to the default pre-tokenizer)",
    vocab: "qwen2",
    mutate: setString("tokenizer.ggml.pre", ""),
  },
  {
    what: "tokenizer.ggml.pre kimi-k2 without merges (that tokenizer needs none)",
    vocab: "qwen2",
    mutate: (m) => {
      m.set("tokenizer.ggml.pre", gguf.string("kimi-k2"));
      m.delete("tokenizer.ggml.merges");
    },
  },
  {
    what: "two empty tokens (llama.cpp names them [EMPTY_i] apart)",
    vocab: "llama-spm",
    mutate: (m) => {
      const t = tokenTexts(m);
      t[500] = "";
      t[501] = "";
    },
  },
  {
    what: "negative infinity scores",
    vocab: "llama-spm",
    mutate: (m) => void scores(m).fill(Number.NEGATIVE_INFINITY, 600, 700),
  },
];

describe("hostile tokenizer keys: refused at load, never a crash", () => {
  it.each(REFUSED)("$what", async ({ what, vocab, mutate, message }) => {
    const path = join(dir, `${what.replace(/\W+/g, "-").slice(0, 60)}.gguf`);
    await rewriteGguf(vocabFile(vocab), path, { metadata: mutate });
    const r = await loadAndUse(path, { vocabOnly: true });
    expect(r.kind, r.stderr).toBe("threw");
    expect(r.error).toMatchObject({ name: "ModelLoadError", code: "TOOLWRIGHT_INVALID_GGUF" });
    expect(r.error?.message).toContain(path);
    expect(r.error?.message).toMatch(message);
  });

  it.each(LLAMA_REFUSES)("$what: llama.cpp's load error", async ({ what, vocab, mutate, message }) => {
    const path = join(dir, `llama-${what.replace(/\W+/g, "-").slice(0, 60)}.gguf`);
    await rewriteGguf(vocabFile(vocab), path, { metadata: mutate });
    const r = await loadAndUse(path, { vocabOnly: true });
    expect(r.kind, r.stderr).toBe("threw");
    expect(r.error).toMatchObject({ name: "ModelLoadError", code: "TOOLWRIGHT_LOAD_FAILED" });
    expect(r.error?.message).toContain(path);
    expect(r.error?.message).toMatch(message);
  });

  it.each(LOADS)("$what: loads and tokenizes", async ({ what, vocab, mutate }) => {
    const path = join(dir, `ok-${what.replace(/\W+/g, "-").slice(0, 60)}.gguf`);
    await rewriteGguf(vocabFile(vocab), path, { metadata: mutate });
    const r = await loadAndUse(path, { vocabOnly: true });
    expect(r.kind, r.stderr).toBe("returned");
  });

  it('a full model with tokenizer.ggml.model "none": refused too, not loaded with weights', async () => {
    const path = join(dir, "model-none.gguf");
    await rewriteGguf(spmModel, path, { metadata: setString("tokenizer.ggml.model", "none") });
    const r = await loadAndUse(path, {});
    expect(r.kind, r.stderr).toBe("threw");
    expect(r.error).toMatchObject({ name: "ModelLoadError", code: "TOOLWRIGHT_INVALID_GGUF" });
    expect(r.error?.message).toMatch(/metadata tokenizer\.ggml\.model is "none"/);
  });
});
