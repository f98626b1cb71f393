/**
 * LoRA adapters (native/lora.cc, Context.setLoras) on a tiny random-weight model with random-weight
 * adapters written by test/helpers/lora-adapters.ts: a zero scale or no adapter gives the base tokens,
 * a nonzero one changes them, removing it restores the base exactly, contexts with and without one run at
 * once, a change empties the prefix cache, and every refusal is a LoraError naming the path and llama.cpp's reason.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, type LoraAdapter, LoraError, loadModel, type Model } from "../../src/index.js";
import { writeLoraAdapter } from "../helpers/lora-adapters.js";
import { ensureTestModel } from "../helpers/test-models.js";

const CONTEXT = { contextSize: 512, threads: 1 } as const;
const PROMPT = "Once upon a time";

let dir: string;
let modelPath: string;
let model: Model;
let other: Model;
let adapter: LoraAdapter;
let base: number[];

async function greedy(context: Context, prompt = PROMPT): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of context.generate({ prompt, maxTokens: 16, sampling: { greedy: true } }))
    out.push(chunk.token);
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "toolwright-lora-"));
  modelPath = await ensureTestModel({ vocab: "llama-spm" });
  await writeLoraAdapter(modelPath, join(dir, "adapter.gguf"), { seed: 7 });
  model = await loadModel(modelPath);
  other = await loadModel(await ensureTestModel({ vocab: "llama-spm", seed: 2 }));
  adapter = await model.loadLora(join(dir, "adapter.gguf"));
  await using context = await model.createContext(CONTEXT);
  base = await greedy(context);
});

afterAll(() => {
  model?.dispose();
  other?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe("applying an adapter", () => {
  test("the adapter's metadata is read", () => {
    expect(adapter.alpha).toBe(4);
    expect(adapter.path).toBe(join(dir, "adapter.gguf"));
  });

  test("scale 0 gives the base tokens; a nonzero scale changes them; removing it restores the base", async () => {
    await using context = await model.createContext({ ...CONTEXT, loras: [{ adapter, scale: 0 }] });
    expect(await greedy(context)).toEqual(base);
    await context.setLoras([{ adapter, scale: 1 }]);
    const adapted = await greedy(context);
    expect(adapted).not.toEqual(base);
    await context.setLoras([]);
    expect(context.loras).toEqual([]);
    expect(await greedy(context)).toEqual(base);
    await context.setLoras([{ adapter }]);
    expect(await greedy(context)).toEqual(adapted);
  });

  test("a context with the adapter and one without generate at once, each as it does alone", async () => {
    await using plain = await model.createContext(CONTEXT);
    await using adapted = await model.createContext({ ...CONTEXT, loras: [{ adapter, scale: 1 }] });
    const alone = await greedy(adapted);
    const [a, b] = await Promise.all([greedy(plain), greedy(adapted)]);
    expect(a).toEqual(base);
    expect(b).toEqual(alone);
    expect(b).not.toEqual(base);
  });

  test("changing the adapters empties the prefix cache (its KV came from other weights)", async () => {
    await using context = await model.createContext(CONTEXT);
    await greedy(context);
    const again = context.stats;
    await greedy(context);
    expect(context.stats.promptTokensReused - again.promptTokensReused).toBeGreaterThan(0);
    await context.setLoras([{ adapter, scale: 0.5 }]);
    expect(context.size).toBe(0);
    const before = context.stats;
    await greedy(context);
    expect(context.stats.promptTokensReused - before.promptTokensReused).toBe(0);
  });

  test("an adapter disposed while a context applies it stays applied until the context lets it go", async () => {
    const local = await model.loadLora(join(dir, "adapter.gguf"));
    await using context = await model.createContext({ ...CONTEXT, loras: [{ adapter: local, scale: 1 }] });
    const adapted = await greedy(context);
    local.dispose();
    expect(local.disposed).toBe(true);
    expect(await greedy(context)).toEqual(adapted);
    await context.setLoras([]);
    expect(await greedy(context)).toEqual(base);
  });
});

interface BadAdapter {
  name: string;
  write?: (path: string) => Promise<void>;
  code: string;
  message: RegExp;
}

const BAD_ADAPTERS: BadAdapter[] = [
  { name: "a missing file", code: "ENOENT", message: /no such file/ },
  {
    name: "a model, not an adapter",
    write: async (path) => {
      const { copyFile } = await import("node:fs/promises");
      await copyFile(modelPath, path);
    },
    code: "TOOLWRIGHT_LORA_INVALID",
    message: /general\.type.*adapter.*llama_adapter_lora_init failed/,
  },
  {
    name: "an adapter for another architecture",
    write: (path) => writeLoraAdapter(modelPath, path, { architecture: "qwen2" }),
    code: "TOOLWRIGHT_LORA_INVALID",
    message: /arch.*mismatch.*llama_adapter_lora_init failed/,
  },
  {
    name: "an adapter whose tensors have another shape",
    write: (path) => writeLoraAdapter(modelPath, path, { outputSize: 96 }),
    code: "TOOLWRIGHT_LORA_INVALID",
    message: /incorrect shape.*llama_adapter_lora_init failed/,
  },
  {
    name: "random bytes",
    write: async (path) => {
      const { writeFile } = await import("node:fs/promises");
      await writeFile(path, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) & 0xff)));
    },
    code: "TOOLWRIGHT_LORA_INVALID",
    message: /llama_adapter_lora_init failed/,
  },
];

describe("refused adapters", () => {
  test.each(BAD_ADAPTERS)("$name: LoraError $code naming the path", async ({ name, write, code, message }) => {
    const path = join(dir, `${name.replace(/\W+/g, "-")}.gguf`);
    await write?.(path);
    const error = await model.loadLora(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LoraError);
    expect(error).toMatchObject({ code, path });
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(message);
    // The model is unharmed.
    await using context = await model.createContext(CONTEXT);
    expect(await greedy(context)).toEqual(base);
  });

  test("an adapter from a disposed model: TOOLWRIGHT_DISPOSED", async () => {
    const doomed = await loadModel(modelPath);
    const loaded = await doomed.loadLora(join(dir, "adapter.gguf"));
    doomed.dispose();
    expect(loaded.disposed).toBe(true);
    await expect(doomed.loadLora(join(dir, "adapter.gguf"))).rejects.toMatchObject({ code: "TOOLWRIGHT_DISPOSED" });
    await using context = await model.createContext(CONTEXT);
    await expect(context.setLoras([{ adapter: loaded }])).rejects.toMatchObject({ code: "TOOLWRIGHT_DISPOSED" });
  });

  test("another model's adapter on a context: RangeError naming the option", async () => {
    await using context = await other.createContext(CONTEXT);
    await expect(context.setLoras([{ adapter }])).rejects.toThrow(/loras\[0\]\.adapter .* another model/);
    await expect(other.createContext({ ...CONTEXT, loras: [{ adapter }] })).rejects.toThrow(RangeError);
  });
});

const BAD_OPTIONS: {
  name: string;
  loras: () => unknown;
  error: typeof TypeError | typeof RangeError;
  message: RegExp;
}[] = [
  { name: "not an array", loras: () => "adapter.gguf", error: TypeError, message: /options\.loras must be an array/ },
  {
    name: "a path instead of an adapter",
    loras: () => [{ adapter: "a.gguf" }],
    error: TypeError,
    message: /loras\[0\]\.adapter/,
  },
  { name: "an unknown key", loras: () => [{ adapter, weight: 1 }], error: TypeError, message: /loras\[0\].*weight/ },
  { name: "a scale that is not a number", loras: () => [{ adapter, scale: "1" }], error: TypeError, message: /scale/ },
  { name: "a NaN scale", loras: () => [{ adapter, scale: Number.NaN }], error: RangeError, message: /scale/ },
];

test.each(BAD_OPTIONS)("createContext({ loras }): $name", async ({ loras, error, message }) => {
  const rejected = await model.createContext({ ...CONTEXT, loras: loras() as never }).catch((e: unknown) => e);
  expect(rejected).toBeInstanceOf(error);
  expect((rejected as Error).message).toMatch(message);
});
