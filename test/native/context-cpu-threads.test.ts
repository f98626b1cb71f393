// CPU threads and pool polling of a context: options, their defaults from the environment, and
// that polling is only a scheduling knob (the same greedy tokens whatever its level).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadModel, type Model } from "../../src/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: Model;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "qwen2" }));
});
afterAll(() => model?.dispose());

/** Runs `work` with environment variables set, then restores them. */
async function withEnv<T>(vars: Record<string, string | undefined>, work: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const assign = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  assign(vars);
  try {
    return await work();
  } finally {
    assign(saved);
  }
}

async function greedy(options: { threads: number; poll: number }): Promise<number[]> {
  await using context = await model.createContext({ contextSize: 256, ...options });
  const tokens: number[] = [];
  const generation = context.generate({ prompt: "Once upon a time", maxTokens: 12, sampling: { temperature: 0 } });
  for await (const chunk of generation) tokens.push(chunk.token);
  return tokens;
}

describe("context CPU threads", () => {
  test("polling levels 0, 50 and 100 give the same greedy tokens", async () => {
    const tokens = await greedy({ threads: 2, poll: 50 });
    expect(tokens.length).toBeGreaterThan(0);
    expect(await greedy({ threads: 2, poll: 0 })).toEqual(tokens);
    expect(await greedy({ threads: 1, poll: 100 })).toEqual(tokens);
  });

  test("TOOLWRIGHT_THREADS sets the default thread count; an option overrides it", async () => {
    await withEnv({ TOOLWRIGHT_THREADS: "3" }, async () => {
      await using byEnv = await model.createContext({ contextSize: 256 });
      expect(byEnv.threads).toBe(3);
      await using byOption = await model.createContext({ contextSize: 256, threads: 2 });
      expect(byOption.threads).toBe(2);
    });
  });

  test.each([
    { vars: { TOOLWRIGHT_THREADS: "0" }, message: /TOOLWRIGHT_THREADS must be an integer in \[1, 1024\], got "0"/ },
    { vars: { TOOLWRIGHT_THREADS: "two" }, message: /TOOLWRIGHT_THREADS must be an integer/ },
    { vars: { TOOLWRIGHT_POLL: "101" }, message: /TOOLWRIGHT_POLL must be an integer in \[0, 100\], got "101"/ },
  ])("a bad $vars is a RangeError naming the variable", async ({ vars, message }) => {
    await withEnv(vars, async () => {
      await expect(model.createContext({ contextSize: 256 })).rejects.toThrow(RangeError);
      await expect(model.createContext({ contextSize: 256 })).rejects.toThrow(message);
    });
  });

  test.each([
    { poll: -1, message: /options\.poll/ },
    { poll: 101, message: /options\.poll/ },
    { poll: 1.5, message: /options\.poll/ },
  ])("poll $poll is a RangeError naming the option", async ({ poll, message }) => {
    await expect(model.createContext({ contextSize: 256, poll })).rejects.toThrow(message);
  });
});
