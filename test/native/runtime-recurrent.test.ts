// Recurrent models (Mamba: no KV cache, one state per sequence) on the one token loop. Their state
// cannot drop a partial sequence or be copied, so prefix reuse must fall back to evaluating the
// whole prompt; whatever the path, a prompt gives the tokens a fresh context gives it, alone or
// batched with other sequences.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, loadModel, type Model } from "../../src/index.js";
import { writeMambaModel } from "../helpers/arch-variants.js";
import { vocabPath } from "../helpers/test-models.js";

const dir = mkdtempSync(join(tmpdir(), "tw-recurrent-"));
let model: Model;

beforeAll(async () => {
  const path = join(dir, "mamba.gguf");
  await writeMambaModel(vocabPath("llama-spm"), path, { embeddingLength: 64, layers: 2, seed: 7 });
  model = await loadModel(path);
});
afterAll(async () => {
  await model?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const PROMPTS = [
  "The quick brown fox jumps over",
  "The quick brown fox sleeps under", // shares a prefix with the first: reuse must not keep a wrong state
  "A completely different start",
  "One quick brown fox jumps over", // the first prompt but its first word: differs only through the state
];

async function greedy(context: Context, prompt: string, reusePrefix = true): Promise<number[]> {
  const tokens: number[] = [];
  const generation = context.generate({ prompt, maxTokens: 8, sampling: { temperature: 0 }, reusePrefix });
  for await (const chunk of generation) tokens.push(chunk.token);
  return tokens;
}

async function fresh(prompt: string): Promise<number[]> {
  await using context = await model.createContext({ contextSize: 256 });
  return await greedy(context, prompt);
}

describe("a recurrent model on the token loop", () => {
  let expected: number[][];
  beforeAll(async () => {
    expected = [];
    for (const prompt of PROMPTS) expected.push(await fresh(prompt));
  });

  test("the model is recurrent and its output depends on the prompt", () => {
    expect(model.info.isRecurrent).toBe(true);
    expect(expected[0]).toHaveLength(8);
    expect(new Set(expected.map((t) => t.join(","))).size).toBe(PROMPTS.length);
    expect(new Set(expected[0]).size).toBeGreaterThan(1);
    expect(expected[3]).not.toEqual(expected[0]);
  });

  test("one context, prompts in turn (prefix reuse on and off): the tokens of a fresh context", async () => {
    await using context = await model.createContext({ contextSize: 256 });
    for (const reuse of [true, false]) {
      for (const [i, prompt] of PROMPTS.entries())
        expect(await greedy(context, prompt, reuse), prompt).toEqual(expected[i]);
      // The same prompt again: all of it is cached, and the next token still follows the whole prompt.
      expect(await greedy(context, PROMPTS[0]!, reuse)).toEqual(expected[0]);
    }
  });

  test("batched on four sequences: each the tokens it gives alone", async () => {
    await using context = await model.createContext({ contextSize: 256, sequences: 4 });
    for (let round = 0; round < 2; round++) {
      const results = await Promise.all(PROMPTS.map((prompt) => greedy(context, prompt)));
      expect(results).toEqual(expected);
    }
  });
});
