// createContext's warmUp: one token through the model (and its draft model) at creation, as llama-server does at
// startup. It must leave no trace: an empty cache and the same tokens as a context made without it, with one
// sequence or several, and with drafts.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, loadModel, type Model } from "../../src/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: Model;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "qwen2" }));
});
afterAll(() => model?.dispose());

async function greedy(context: Context, prompt: string): Promise<number[]> {
  const tokens: number[] = [];
  const generation = context.generate({ prompt, maxTokens: 12, sampling: { temperature: 0 } });
  for await (const chunk of generation) tokens.push(chunk.token);
  return tokens;
}

describe("createContext warmUp", () => {
  test.each([1, 3])("%i sequence(s): an empty cache, then the tokens of a context without it", async (sequences) => {
    const options = { contextSize: 256, threads: 2, poll: 0, sequences } as const;
    await using cold = await model.createContext(options);
    await using warm = await model.createContext({ ...options, warmUp: true });
    if (sequences === 1) expect([...warm.cachedTokens()]).toEqual([]);
    for (const prompt of ["Once upon a time", "The weather today"]) {
      const expected = await greedy(cold, prompt);
      expect(expected.length).toBeGreaterThan(0);
      expect(await greedy(warm, prompt)).toEqual(expected);
    }
  });

  test("with a draft model (warmed up too): the tokens of a context without it, drafts taken", async () => {
    const options = { contextSize: 256, threads: 2, poll: 0, speculative: { draft: model, minProbability: 0 } };
    await using cold = await model.createContext(options);
    await using warm = await model.createContext({ ...options, warmUp: true });
    const expected = await greedy(cold, "Once upon a time");
    const generation = warm.generate({ prompt: "Once upon a time", maxTokens: 12, sampling: { temperature: 0 } });
    const tokens: number[] = [];
    for await (const chunk of generation) tokens.push(chunk.token);
    expect(tokens).toEqual(expected);
    expect(generation.stats.acceptedDraftTokens).toBeGreaterThan(0);
  });

  test("warmUp must be a boolean", async () => {
    await expect(model.createContext({ contextSize: 256, warmUp: "yes" as never })).rejects.toThrow(TypeError);
    await expect(model.createContext({ contextSize: 256, warmUp: 1 as never })).rejects.toThrow(/options\.warmUp/);
  });
});
