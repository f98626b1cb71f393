// Recurrent and hybrid models on the one token loop: Mamba (no KV cache, one state per sequence)
// and a Jamba-style hybrid (Mamba layers and attention layers with a KV cache). A recurrent state
// cannot drop a partial sequence or be copied, so prefix reuse must fall back to evaluating the
// whole prompt; whatever the path, a prompt gives the tokens a fresh context gives it, alone or
// batched with other sequences.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, loadModel, type Model } from "../../src/index.js";
import { type RecurrentModelSize, writeMambaModel } from "../helpers/arch-variants.js";
import { vocabPath } from "../helpers/test-models.js";

const dir = mkdtempSync(join(tmpdir(), "tw-recurrent-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MODELS: { name: string; size: RecurrentModelSize }[] = [
  { name: "mamba", size: { embeddingLength: 64, layers: 2, seed: 7 } },
  { name: "hybrid (jamba)", size: { embeddingLength: 64, layers: 3, seed: 7, attentionLayers: [1] } },
];

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

describe.each(MODELS)("a $name model on the token loop", ({ name, size }) => {
  let model: Model;
  let expected: number[][];
  beforeAll(async () => {
    const path = join(dir, `${name.replace(/\W+/g, "-")}.gguf`);
    await writeMambaModel(vocabPath("llama-spm"), path, size);
    model = await loadModel(path);
    expected = [];
    for (const prompt of PROMPTS) {
      await using context = await model.createContext({ contextSize: 256 });
      expected.push(await greedy(context, prompt));
    }
  });
  afterAll(() => model?.dispose());

  test("the model is recurrent and its output depends on the whole prompt", () => {
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

  // A rejected draft cannot leave a recurrent state.
  test("speculative decoding does nothing on it, and as a draft it is refused", async () => {
    await using context = await model.createContext({ contextSize: 256, speculative: { lookup: true } });
    const generation = context.generate({ prompt: PROMPTS[0]!, maxTokens: 8, sampling: { temperature: 0 } });
    const tokens: number[] = [];
    for await (const chunk of generation) tokens.push(chunk.token);
    expect(tokens).toEqual(expected[0]);
    expect(generation.stats.draftedTokens).toBe(0);
    const error = await model.createContext({ contextSize: 256, speculative: { draft: model } }).catch((e) => e);
    expect(error.code).toBe("TOOLWRIGHT_DRAFT_MISMATCH");
    expect(error.message).toMatch(/recurrent or hybrid model cannot be a draft/);
  });
});
