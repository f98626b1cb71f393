/**
 * Saved states (Context.saveState / loadState, src/runtime/saved-state.ts): a restored sequence continues
 * with the tokens the original gives, evaluating only the new suffix; states from another model, another
 * format version, under other adapters, too large for the context, truncated, corrupt or random are refused
 * with a SavedStateError naming the path, and the context stays usable.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, loadModel, type Model, SavedStateError } from "../../src/index.js";
import { encodeState, modelFingerprint } from "../../src/runtime/saved-state.js";
import { writeLoraAdapter } from "../helpers/lora-adapters.js";
import { ensureTestModel } from "../helpers/test-models.js";

const CONTEXT = { contextSize: 512, threads: 1 } as const;
const GREEDY = { greedy: true } as const;

let dir: string;
let modelPath: string;
let model: Model;
let prefix: Int32Array;
let full: Int32Array;
let saved: string;

async function greedy(context: Context, tokens: ArrayLike<number>): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of context.generate({ tokens, maxTokens: 12, sampling: GREEDY })) out.push(chunk.token);
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "toolwright-state-"));
  modelPath = await ensureTestModel({ vocab: "llama-spm" });
  model = await loadModel(modelPath);
  prefix = model.tokenize("You are a helpful assistant. Answer briefly and in plain words. ".repeat(6));
  full = Int32Array.from([...prefix, ...model.tokenize("What is the capital of France?", { addSpecial: false })]);
  saved = join(dir, "prefix.state");
  await using context = await model.createContext(CONTEXT);
  await context.generate({ tokens: prefix, maxTokens: 0 }).text();
  const info = await context.saveState(saved);
  expect(Array.from(info.tokens)).toEqual(Array.from(prefix));
});

afterAll(() => {
  model?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe("restoring", () => {
  test("a restored context generates what the original does, evaluating only the new suffix", async () => {
    await using original = await model.createContext(CONTEXT);
    await original.generate({ tokens: prefix, maxTokens: 0 }).text();
    const expected = await greedy(original, full);

    await using restored = await model.createContext(CONTEXT);
    const info = await restored.loadState(saved);
    expect(info.sequence).toBe(0);
    expect(Array.from(info.tokens)).toEqual(Array.from(prefix));
    expect(restored.size).toBe(prefix.length);
    const before = restored.stats;
    expect(await greedy(restored, full)).toEqual(expected);
    expect(restored.stats.promptTokensEvaluated - before.promptTokensEvaluated).toBe(full.length - prefix.length);
    expect(restored.stats.promptTokensReused - before.promptTokensReused).toBe(prefix.length);
  });

  test("a state saved from one sequence of a parallel context restores onto another context's sequence", async () => {
    await using parallel = await model.createContext({ ...CONTEXT, sequences: 3 });
    await Promise.all([
      parallel.generate({ tokens: model.tokenize("Unrelated text"), maxTokens: 4 }).text(),
      parallel.generate({ tokens: prefix, maxTokens: 0 }).text(),
    ]);
    const file = join(dir, "parallel.state");
    await parallel.generate({ tokens: prefix, maxTokens: 0 }).text(); // the latest generation
    const info = await parallel.saveState(file);
    expect(Array.from(info.tokens)).toEqual(Array.from(prefix));

    // The reference is the original continuing (the prefix and the suffix evaluated in separate batches).
    const expected = await greedy(parallel, full);
    await using other = await model.createContext({ ...CONTEXT, sequences: 2 });
    await expect(other.loadState(file)).rejects.toThrow(/context of 3 sequence\(s\) and this one has 2/);
    await using target = await model.createContext({ ...CONTEXT, sequences: 3 });
    const restored = await target.loadState(file, { sequence: 1 });
    expect(restored.sequence).toBe(1);
    const before = target.stats;
    expect(await greedy(target, full)).toEqual(expected);
    expect(target.stats.promptTokensReused - before.promptTokensReused).toBe(prefix.length);
  });
});

/** Ways to spoil the saved file. */
const SPOILED: { name: string; spoil: (bytes: Buffer) => Buffer; code: string; message: RegExp }[] = [
  {
    name: "truncated",
    spoil: (b) => b.subarray(0, b.length - 100),
    code: "TOOLWRIGHT_STATE_INVALID",
    message: /truncated/,
  },
  {
    name: "cut inside the header",
    spoil: (b) => b.subarray(0, 40),
    code: "TOOLWRIGHT_STATE_INVALID",
    message: /truncated/,
  },
  { name: "empty", spoil: () => Buffer.alloc(0), code: "TOOLWRIGHT_STATE_INVALID", message: /magic/ },
  {
    name: "random bytes",
    spoil: (b) => Buffer.from(Array.from({ length: b.length }, (_, i) => (i * 193 + 11) & 0xff)),
    code: "TOOLWRIGHT_STATE_INVALID",
    message: /magic/,
  },
  {
    name: "another format version",
    spoil: (b) => {
      const c = Buffer.from(b);
      c.writeUInt32LE(99, 8);
      return c;
    },
    code: "TOOLWRIGHT_STATE_INVALID",
    message: /version 99/,
  },
  {
    name: "a flipped byte in the KV state",
    spoil: (b) => {
      const c = Buffer.from(b);
      c[c.length - 10]! ^= 0xff;
      return c;
    },
    code: "TOOLWRIGHT_STATE_INVALID",
    message: /checksum/,
  },
  {
    name: "bytes appended",
    spoil: (b) => Buffer.concat([b, Buffer.alloc(8)]),
    code: "TOOLWRIGHT_STATE_INVALID",
    message: /after the state/,
  },
];

describe("refused states", () => {
  test.each(SPOILED)("$name: SavedStateError $code naming the path", async ({ name, spoil, code, message }) => {
    const file = join(dir, `${name.replace(/\W+/g, "-")}.state`);
    writeFileSync(file, spoil(readFileSync(saved)));
    await using context = await model.createContext(CONTEXT);
    const error = await context.loadState(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SavedStateError);
    expect(error).toMatchObject({ code, path: file });
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toMatch(message);
    // Nothing was restored and the context works.
    expect(context.size).toBe(0);
    expect(await greedy(context, full)).toHaveLength(12);
  });

  test("a missing file: ENOENT", async () => {
    await using context = await model.createContext(CONTEXT);
    const file = join(dir, "missing.state");
    await expect(context.loadState(file)).rejects.toMatchObject({
      name: "SavedStateError",
      code: "ENOENT",
      path: file,
    });
  });

  test("another model's state: TOOLWRIGHT_STATE_MISMATCH naming both", async () => {
    // Same architecture, vocabulary and sizes, other weights: only the file's bytes tell them apart.
    await using other = await loadModel(await ensureTestModel({ vocab: "llama-spm", seed: 2 }));
    await using context = await other.createContext(CONTEXT);
    const error = await context.loadState(saved).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SavedStateError);
    expect(error).toMatchObject({ code: "TOOLWRIGHT_STATE_MISMATCH" });
    expect((error as Error).message).toMatch(/saved by another model \(llama, \d+ tokens/);
  });

  test("a state larger than the context: TOOLWRIGHT_STATE_MISMATCH", async () => {
    await using small = await model.createContext({ ...CONTEXT, contextSize: 256 });
    const big = join(dir, "big.state");
    await using large = await model.createContext(CONTEXT);
    const tokens = model.tokenize("word ".repeat(300));
    expect(tokens.length).toBeGreaterThan(256);
    await large.generate({ tokens, maxTokens: 0 }).text();
    await large.saveState(big);
    await expect(small.loadState(big)).rejects.toThrow(/holds \d+ tokens, more than the context size 256/);
  });

  test("a state saved under a LoRA adapter does not restore onto the base weights", async () => {
    const adapterPath = join(dir, "adapter.gguf");
    await writeLoraAdapter(modelPath, adapterPath, { seed: 3 });
    const adapter = await model.loadLora(adapterPath);
    await using adapted = await model.createContext({ ...CONTEXT, loras: [{ adapter, scale: 1 }] });
    await adapted.generate({ tokens: prefix, maxTokens: 0 }).text();
    const file = join(dir, "adapted.state");
    await adapted.saveState(file);
    await using plain = await model.createContext(CONTEXT);
    await expect(plain.loadState(file)).rejects.toMatchObject({ code: "TOOLWRIGHT_STATE_MISMATCH" });
    await using again = await model.createContext({ ...CONTEXT, loras: [{ adapter, scale: 1 }] });
    await expect(again.loadState(file)).resolves.toMatchObject({ sequence: 0 });
  });

  test("a sequence out of range: RangeError naming the option", async () => {
    await using context = await model.createContext(CONTEXT);
    await expect(context.loadState(saved, { sequence: 1 })).rejects.toThrow(
      /options\.sequence must be an integer in \[0, 0\]/,
    );
    await expect(context.saveState(join(dir, "x.state"), { seq: 0 } as never)).rejects.toThrow(TypeError);
  });
});

/**
 * llama.cpp's own bytes damaged under a valid header (as a bug or a hand-made file would): llama.cpp refuses them
 * or restores what it reads, the process does not crash, and the context goes on generating.
 */
const DAMAGED_LLAMA_BYTES: { name: string; damage: (data: Buffer) => Uint8Array }[] = [
  { name: "random bytes", damage: () => Uint8Array.from({ length: 5000 }, (_, i) => (i * 7919 + 13) & 0xff) },
  { name: "zeros", damage: () => new Uint8Array(100) },
  { name: "the first 20 bytes", damage: (d) => d.subarray(0, 20) },
  { name: "the first half", damage: (d) => d.subarray(0, d.length >> 1) },
  {
    name: "a count overwritten with 2^31 - 1",
    damage: (d) => {
      const c = Buffer.from(d);
      c.writeUInt32LE(0x7fffffff, 4);
      return c;
    },
  },
];

test.each(DAMAGED_LLAMA_BYTES)(
  "damaged llama.cpp state ($name): refused or restored, never a crash",
  async ({ damage }) => {
    const bytes = readFileSync(saved);
    const data = bytes.subarray(16 + bytes.readUInt32LE(12) + prefix.length * 4);
    const file = join(dir, "damaged-llama.state");
    writeFileSync(file, Buffer.concat(encodeState(await modelFingerprint(model), [], 1, prefix, damage(data))));
    await using context = await model.createContext(CONTEXT);
    const outcome = await context.loadState(file).catch((e: unknown) => e);
    if (outcome instanceof Error)
      expect(outcome).toMatchObject({ name: "SavedStateError", code: "TOOLWRIGHT_STATE_INVALID" });
    expect(await greedy(context, full)).toHaveLength(12);
  },
);
