// Issue 16: GGUF files that are otherwise well formed but crashed the process (SIGABRT from a
// llama.cpp assert, std::terminate from an exception through the addon). Each is now a
// ModelLoadError naming the file and the reason, or loads and runs. Each case runs in a child.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { GgmlType } from "../../src/runtime/gguf/ggml-types.js";
import { gguf } from "../../src/runtime/gguf/values.js";
import { rewriteGguf, tokenTexts } from "../helpers/hostile-gguf.js";
import { isolated } from "../helpers/isolated.js";
import { ensureTestModel } from "../helpers/test-models.js";

const dir = mkdtempSync(join(tmpdir(), "toolwright-gguf-crashes-"));
let spm = "";
let bpe = "";

beforeAll(async () => {
  spm = await ensureTestModel({ vocab: "llama-spm" });
  bpe = await ensureTestModel({ vocab: "qwen2" });
}, 300_000);

/** Loads `path` with `options` in a child, then runs `then` (with `m` the model). */
function load(path: string, options: object, then = "") {
  return isolated(
    `const m = await lib.loadModel(${JSON.stringify(path)}, ${JSON.stringify(options)}); ${then}; return "ok";`,
  );
}

describe("hostile GGUF files: errors, not crashes", () => {
  it("two tokens with the same text: a ModelLoadError naming them, with vocabOnly too", async () => {
    const path = join(dir, "dup-token.gguf");
    await rewriteGguf(spm, path, { metadata: (m) => void (tokenTexts(m)[300] = tokenTexts(m)[301]!) });
    for (const options of [{}, { vocabOnly: true }]) {
      const r = await load(path, options);
      expect(r.kind, r.stderr).toBe("threw");
      expect(r.error).toMatchObject({ name: "ModelLoadError", code: "TOOLWRIGHT_INVALID_GGUF" });
      expect(r.error?.message).toContain(path);
      expect(r.error?.message).toMatch(/two tokens with the same text .*ids 300 and 301/);
    }
  });

  it("general.alignment 8 with the data at 8 mod 32: loads (read instead of mapped) and decodes", async () => {
    const path = join(dir, "align-8.gguf");
    let offset = 0;
    for (let pad = 0; pad < 8 && offset % 32 !== 8; pad++) {
      offset = await rewriteGguf(spm, path, {
        alignment: 8,
        metadata: (m) => {
          m.set("general.alignment", gguf.uint32(8));
          m.set("general.padding", gguf.string("x".repeat(pad * 8)));
        },
      });
    }
    expect(offset % 32).toBe(8);
    const r = await load(
      path,
      {},
      `const c = await m.createContext({ contextSize: 256 }); await c.decode(m.tokenize("hello world")); c.dispose()`,
    );
    expect(r.kind, r.stderr).toBe("returned");
  });

  it("an SPM vocabulary without the byte token <0xF0>: a ModelLoadError naming the byte", async () => {
    const path = join(dir, "no-byte-f0.gguf");
    await rewriteGguf(spm, path, {
      metadata: (m) => {
        const t = tokenTexts(m);
        const id = t.indexOf("<0xF0>");
        t[id] = "<0xF0>-renamed";
        // A normal token now: a byte-typed one must be written <0xHH> (refused before this check).
        (m.get("tokenizer.ggml.token_type") as { value: Int32Array }).value[id] = 1;
      },
    });
    const r = await load(path, { vocabOnly: true }, `m.tokenize("𝄞")`);
    expect(r.kind, r.stderr).toBe("threw");
    expect(r.error).toMatchObject({ name: "ModelLoadError", code: "TOOLWRIGHT_INVALID_GGUF" });
    expect(r.error?.message).toMatch(/no token for the byte <0xF0>/);
  });

  it("a BPE vocabulary labelled llama (SPM): a ModelLoadError, not std::out_of_range", async () => {
    const path = join(dir, "bpe-as-llama.gguf");
    await rewriteGguf(bpe, path, { metadata: (m) => m.set("tokenizer.ggml.model", gguf.string("llama")) });
    const r = await load(path, { vocabOnly: true }, `m.tokenize("𝄞")`);
    expect(r.kind, r.stderr).not.toBe("crashed");
    expect(r.kind).toBe("threw");
    expect(r.error).toMatchObject({ name: "ModelLoadError", code: "TOOLWRIGHT_INVALID_GGUF" });
    expect(r.error?.message).toMatch(/no token for the byte/);
  });

  it("the token list cut to one entry: a ModelLoadError about the missing BOS", async () => {
    const path = join(dir, "one-token.gguf");
    await rewriteGguf(spm, path, {
      metadata: (m) => {
        for (const key of ["tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type"]) {
          const v = m.get(key);
          if (v?.type === "array")
            (v as { value: unknown }).value = (v.value as { slice(a: number, b: number): unknown }).slice(0, 1);
        }
      },
    });
    const r = await load(path, { vocabOnly: true }, `m.tokenize("hello")`);
    expect(r.kind, r.stderr).toBe("threw");
    expect(r.error).toMatchObject({ name: "ModelLoadError", code: "TOOLWRIGHT_INVALID_GGUF" });
    expect(r.error?.message).toMatch(/adds a BOS token, but the vocabulary \(1 tokens\) has none/);
  });

  it("output_norm.weight retyped from F32 to I8: a ModelLoadError naming the tensor", async () => {
    const path = join(dir, "norm-i8.gguf");
    await rewriteGguf(spm, path, {
      tensors: (ts) => {
        const t = ts.find((x) => x.name === "output_norm.weight")!;
        t.type = GgmlType.I8;
        t.data = (t.data as Uint8Array).slice(0, t.shape[0]);
      },
    });
    const r = await load(
      path,
      {},
      `const c = await m.createContext({ contextSize: 256 }); await c.decode(m.tokenize("hello"))`,
    );
    expect(r.kind, r.stderr).toBe("threw");
    expect(r.error).toMatchObject({ name: "ModelLoadError", code: "TOOLWRIGHT_INVALID_GGUF" });
    expect(r.error?.message).toMatch(/output_norm\.weight has type i8, but a norm's weights must be F32/);
  });

  it("an implausible key/value count: the ModelLoadError carries the GGUF reader's precise reason", async () => {
    const path = join(dir, "kv-count.gguf");
    const { readFile, writeFile } = await import("node:fs/promises");
    const bytes = Buffer.from(await readFile(spm));
    bytes.writeBigUInt64LE(1n << 40n, 16); // metadata key/value count
    await writeFile(path, bytes);
    const r = await load(path, { vocabOnly: true });
    expect(r.kind, r.stderr).toBe("threw");
    expect(r.error).toMatchObject({ name: "ModelLoadError", code: "TOOLWRIGHT_LOAD_FAILED" });
    expect(r.error?.message).toContain(path);
    // The reader's reason first, llama.cpp's own in parentheses after it.
    expect(r.error?.message).toMatch(
      /: header claims 1099511627776 metadata entries.*implausible.*\(llama\.cpp: .*failed to read key-value pairs/,
    );
  });

  it("an SPM vocabulary labelled bert (WPM) with byte tokens: a ModelLoadError, not GGML_ABORT", async () => {
    const path = join(dir, "spm-as-bert.gguf");
    await rewriteGguf(spm, path, { metadata: (m) => m.set("tokenizer.ggml.model", gguf.string("bert")) });
    const r = await load(path, { vocabOnly: true });
    expect(r.kind, r.stderr).toBe("threw");
    expect(r.error).toMatchObject({ name: "ModelLoadError", code: "TOOLWRIGHT_INVALID_GGUF" });
    expect(r.error?.message).toMatch(/is a byte token, which a "bert" vocabulary cannot have/);
  });

  it("a BPE vocabulary labelled rwkv: a ModelLoadError, not token ids of -1 or a tokenizer looping", async () => {
    const path = join(dir, "bpe-as-rwkv.gguf");
    await rewriteGguf(bpe, path, { metadata: (m) => m.set("tokenizer.ggml.model", gguf.string("rwkv")) });
    const r = await load(path, { vocabOnly: true }, `return Array.from(m.tokenize("hello 𝄞 world"))`);
    expect(r.kind, r.stderr).toBe("threw");
    expect(r.error).toMatchObject({ name: "ModelLoadError", code: "TOOLWRIGHT_INVALID_GGUF" });
    expect(r.error?.message).toMatch(
      /RWKV vocabulary has no token for the byte 0x[0-9A-F]{2}, with which token \d+ .* starts/,
    );
  });

  it("an SPM vocabulary labelled rwkv: a ModelLoadError (byte tokens, or else a token's first byte)", async () => {
    const path = join(dir, "spm-as-rwkv.gguf");
    await rewriteGguf(spm, path, { metadata: (m) => m.set("tokenizer.ggml.model", gguf.string("rwkv")) });
    const r = await load(path, { vocabOnly: true }, `m.tokenize("hello")`);
    expect(r.kind, r.stderr).toBe("threw");
    expect(r.error).toMatchObject({ name: "ModelLoadError", code: "TOOLWRIGHT_INVALID_GGUF" });
    expect(r.error?.message).toMatch(/token 3 "<0x00>" is a byte token, which a "rwkv" vocabulary cannot have/);
    const untyped = join(dir, "spm-as-rwkv-untyped.gguf");
    await rewriteGguf(spm, untyped, {
      metadata: (m) => {
        m.set("tokenizer.ggml.model", gguf.string("rwkv"));
        m.delete("tokenizer.ggml.token_type");
      },
    });
    const u = await load(untyped, { vocabOnly: true }, `m.tokenize("hello")`);
    expect(u.kind, u.stderr).toBe("threw");
    expect(u.error).toMatchObject({ name: "ModelLoadError", code: "TOOLWRIGHT_INVALID_GGUF" });
    expect(u.error?.message).toMatch(/RWKV vocabulary has no token for the byte 0x[0-9A-F]{2}/);
  });

  it("contextSize far beyond the training context: a RangeError with a memory estimate", async () => {
    const r = await isolated(
      `const m = await lib.loadModel(${JSON.stringify(spm)}); await m.createContext({ contextSize: 2 ** 24 ` +
        `}); return "created";`,
    );
    expect(r.kind, r.stderr).toBe("threw");
    expect(r.error?.name).toBe("RangeError");
    expect(r.error?.message).toMatch(/training context \(4096 tokens\).*about [\d.]+ GiB.*allowBeyondTraining/);
    const ok = await isolated(
      `const m = await lib.loadModel(${JSON.stringify(spm)}); const c = await m.createContext({ contextSize: ` +
        `8192, allowBeyondTraining: true }); return c.contextSize;`,
    );
    expect(ok).toMatchObject({ kind: "returned", value: 8192 });
  });
});
