/**
 * Loading models: progress, cancellation, bad files, option checks, event loop responsiveness,
 * disposal. Uses a tiny random-weight model with a real tokenizer.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AbortError, loadModel, ModelLoadError } from "../../src/index.js";
import { loadNative } from "../../src/runtime/binding.js";
import { ensureTestModel } from "../helpers/test-models.js";

let modelPath: string;
let scratch: string;

beforeAll(async () => {
  loadNative(); // a missing addon fails here, listing where it looked
  modelPath = await ensureTestModel({ vocab: "llama-spm", template: "Qwen-Qwen3-0.6B" });
  scratch = mkdtempSync(join(tmpdir(), "toolwright-load-"));
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test("loads, reporting monotonic progress that ends at 1 before the promise resolves", async () => {
  const progress: number[] = [];
  let resolved = false;
  const model = await loadModel(modelPath, {
    onProgress: (p) => {
      expect(resolved).toBe(false);
      progress.push(p);
    },
  });
  resolved = true;
  try {
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.at(-1)).toBe(1);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!).toBeGreaterThan(progress[i - 1]!);
    for (const p of progress) expect(p >= 0 && p <= 1).toBe(true);
    expect(model.vocabSize).toBe(32000);
    expect(model.chatTemplate).toBe(
      readFileSync(join("deps/llama.cpp/models/templates/Qwen-Qwen3-0.6B.jinja"), "utf8"),
    );
    expect(model.metadata["tokenizer.chat_template"]).toBe(model.chatTemplate);
    expect(model.metadata["general.architecture"]).toBe("llama");
    expect(model.info.layerCount).toBeGreaterThan(0);
  } finally {
    model.dispose();
  }
});

describe("cancellation", () => {
  test("aborting from the first progress report rejects with AbortError", async () => {
    const controller = new AbortController();
    const load = loadModel(modelPath, { signal: controller.signal, onProgress: () => controller.abort() });
    await expect(load).rejects.toBeInstanceOf(AbortError);
    await expect(load).rejects.toMatchObject({ name: "AbortError", code: "ABORT_ERR" });
  });

  test("an already aborted signal rejects without loading", async () => {
    await expect(loadModel(modelPath, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
  });

  test("aborting right after the call rejects, and the process stays healthy", async () => {
    const controller = new AbortController();
    const load = loadModel(modelPath, { signal: controller.signal });
    controller.abort();
    await expect(load).rejects.toMatchObject({ name: "AbortError" });
    // A later load on the same file works normally.
    const model = await loadModel(modelPath);
    expect(model.detokenize(model.tokenize("hello", { addSpecial: false }))).toBe("hello");
    model.dispose();
  });
});

describe("bad files give an error naming the path and the reason", () => {
  const cases: Array<{ name: string; make: () => string; code: string; reason: RegExp }> = [
    { name: "missing file", make: () => join(scratch, "does-not-exist.gguf"), code: "ENOENT", reason: /no such file/ },
    { name: "a directory", make: () => scratch, code: "EISDIR", reason: /directory/ },
    {
      name: "empty file",
      make: () => write("empty.gguf", Buffer.alloc(0)),
      code: "TOOLWRIGHT_INVALID_GGUF",
      reason: /empty/,
    },
    {
      name: "shorter than the magic",
      make: () => write("short.gguf", Buffer.from("GG")),
      code: "TOOLWRIGHT_INVALID_GGUF",
      reason: /truncated/,
    },
    {
      name: "wrong magic",
      make: () => write("json.gguf", Buffer.from('{"not": "gguf"}')),
      code: "TOOLWRIGHT_INVALID_GGUF",
      reason: /not a GGUF file.*7b 22 6e 6f/,
    },
    {
      name: "random bytes",
      make: () => write("random.gguf", randomBytes(4096, 1)),
      code: "TOOLWRIGHT_INVALID_GGUF",
      reason: /not a GGUF file/,
    },
    {
      name: "random bytes after the magic",
      make: () => write("random-magic.gguf", Buffer.concat([Buffer.from("GGUF"), randomBytes(4096, 2)])),
      code: "TOOLWRIGHT_LOAD_FAILED",
      reason: /version|header|key-value|tensor/,
    },
    {
      name: "truncated in the header",
      make: () => truncated("trunc-header.gguf", 64),
      code: "TOOLWRIGHT_LOAD_FAILED",
      reason: /failed to read/,
    },
    {
      name: "truncated in the metadata",
      make: () => truncated("trunc-meta.gguf", 100_000),
      code: "TOOLWRIGHT_LOAD_FAILED",
      reason: /failed to read/,
    },
    {
      name: "truncated in the tensor data",
      make: () => truncated("trunc-data.gguf", 0.9),
      code: "TOOLWRIGHT_LOAD_FAILED",
      reason: /not within the file bounds/,
    },
    {
      name: "impossible block count",
      make: () => patchedBlockCount("layers0.gguf", 0),
      code: "TOOLWRIGHT_INVALID_GGUF",
      reason: /block_count is 0/,
    },
    {
      name: "too many blocks",
      make: () => patchedBlockCount("layers9999.gguf", 9999),
      code: "TOOLWRIGHT_INVALID_GGUF",
      reason: /block_count is 9999/,
    },
  ];

  test.each(cases)("$name", async ({ make, code, reason }) => {
    const path = make();
    const load = loadModel(path);
    await expect(load).rejects.toBeInstanceOf(ModelLoadError);
    const err = (await load.catch((e: unknown) => e)) as ModelLoadError;
    expect(err.code).toBe(code);
    expect(err.path).toBe(path);
    expect(err.message).toContain(`"${path}"`);
    expect(err.message).toMatch(reason);
  });

  test("a weights-less vocabulary file loads only with vocabOnly", async () => {
    const vocab = "deps/llama.cpp/models/ggml-vocab-llama-spm.gguf";
    await expect(loadModel(vocab)).rejects.toThrow(/tensor 'token_embd.weight' not found/);
    const model = await loadModel(vocab, { vocabOnly: true });
    expect(model.vocabOnly).toBe(true);
    model.dispose();
  });

  function write(name: string, data: Buffer): string {
    const path = join(scratch, name);
    writeFileSync(path, data);
    return path;
  }

  /** Keeps `size` bytes (or that fraction of the file). */
  function truncated(name: string, size: number): string {
    const data = readFileSync(modelPath);
    return write(name, data.subarray(0, size < 1 ? Math.floor(data.length * size) : size));
  }

  /** The model with llama.block_count (a uint32 after its key and type) set to `value`. */
  function patchedBlockCount(name: string, value: number): string {
    const data = Buffer.from(readFileSync(modelPath));
    const at = data.indexOf("llama.block_count");
    expect(at).toBeGreaterThan(0);
    const valueAt = at + "llama.block_count".length + 4;
    expect(data.readUInt32LE(valueAt - 4)).toBe(4); // GGUF_TYPE_UINT32
    data.writeUInt32LE(value, valueAt);
    return write(name, data);
  }

  function randomBytes(n: number, seed: number): Buffer {
    const out = Buffer.alloc(n);
    let x = seed * 2654435761;
    for (let i = 0; i < n; i++) {
      x = (x ^ (x << 13)) >>> 0;
      x = (x ^ (x >>> 17)) >>> 0;
      x = (x ^ (x << 5)) >>> 0;
      out[i] = x & 0xff;
    }
    return out;
  }
});

test.each([
  {
    name: "path not a string",
    call: () => loadModel(42 as unknown as string),
    error: TypeError,
    message: /path must be a string/,
  },
  { name: "empty path", call: () => loadModel(""), error: RangeError, message: /path must not be empty/ },
  {
    name: "options not an object",
    call: () => loadModel(modelPath, 5 as never),
    error: TypeError,
    message: /options must be an object/,
  },
  {
    name: "onProgress not a function",
    call: () => loadModel(modelPath, { onProgress: 1 as never }),
    error: TypeError,
    message: /options\.onProgress/,
  },
  {
    name: "signal not an AbortSignal",
    call: () => loadModel(modelPath, { signal: {} as never }),
    error: TypeError,
    message: /options\.signal/,
  },
  {
    name: "vocabOnly not a boolean",
    call: () => loadModel(modelPath, { vocabOnly: "yes" as never }),
    error: TypeError,
    message: /options\.vocabOnly/,
  },
  {
    name: "negative gpuLayers",
    call: () => loadModel(modelPath, { gpuLayers: -2 }),
    error: RangeError,
    message: /options\.gpuLayers/,
  },
  {
    name: "gpuLayers not a number",
    call: () => loadModel(modelPath, { gpuLayers: "all" as never }),
    error: TypeError,
    message: /options\.gpuLayers/,
  },
  {
    name: "useMmap not a boolean",
    call: () => loadModel(modelPath, { useMmap: 1 as never }),
    error: TypeError,
    message: /options\.useMmap/,
  },
])("option check: $name", async ({ call, error, message }) => {
  const result = call();
  await expect(result).rejects.toBeInstanceOf(error);
  await expect(result).rejects.toThrow(message);
});

test("a timer keeps firing while a model loads", async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    const started = performance.now();
    const model = await loadModel(modelPath, { useMmap: false });
    const elapsed = performance.now() - started;
    model.dispose();
    // Loading a 32k-token vocabulary takes well over 10 ms; a blocked loop would not tick at all.
    expect(elapsed).toBeGreaterThan(10);
    expect(ticks).toBeGreaterThanOrEqual(3);
  } finally {
    clearInterval(timer);
  }
});

describe("dispose", () => {
  test("is idempotent and makes later calls throw", async () => {
    const model = await loadModel(modelPath);
    model.dispose();
    model.dispose();
    expect(model.disposed).toBe(true);
    expect(() => model.tokenize("x")).toThrow(/disposed/);
    await expect(model.createContext()).rejects.toThrow(/disposed/);
  });

  test("disposing the model disposes its contexts", async () => {
    const model = await loadModel(modelPath);
    const context = await model.createContext({ contextSize: 256, threads: 1 });
    model.dispose();
    expect(context.disposed).toBe(true);
    expect(() => context.generate({ prompt: "x" })).toThrow(/disposed/);
  });

  // The weights are a mapping of the file: dispose() must unmap them at once, not when the JS
  // wrapper is garbage-collected (the model and its contexts are freed by dispose itself).
  test.runIf(existsSync("/proc/self/maps"))("unmaps the model file at once", async () => {
    // A copy of its own: other tests' models (freed by GC or a cancelled load) do not count.
    const path = join(scratch, "unmap-check.gguf");
    copyFileSync(modelPath, path);
    const mappings = () =>
      readFileSync("/proc/self/maps", "utf8")
        .split("\n")
        .filter((l) => l.endsWith(path)).length;
    expect(mappings()).toBe(0);
    const model = await loadModel(path);
    const context = await model.createContext({ contextSize: 256, threads: 1 });
    await context.generate({ prompt: "x", maxTokens: 2 }).text();
    expect(mappings()).toBeGreaterThan(0);
    context.dispose();
    model.dispose();
    expect(mappings()).toBe(0);
  });

  test("await using frees the model at the end of the scope", async () => {
    let escaped: import("../../src/index.js").Model | undefined;
    {
      await using model = await loadModel(modelPath);
      escaped = model;
      expect(model.disposed).toBe(false);
    }
    expect(escaped.disposed).toBe(true);
  });
});
