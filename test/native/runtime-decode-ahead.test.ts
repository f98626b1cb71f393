/**
 * Decode-ahead: a step asked to settles once its token is sampled, and the context's own thread
 * then decodes that token. Checks that generate() gives the same tokens as a plain step loop, that the
 * cache and stats stay the truth, and that cancel/clear/truncate/dispose during a decode-ahead
 * are safe and leave the context usable.
 */
import { existsSync, readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, loadModel, type Model } from "../../src/index.js";
import { loadNative } from "../../src/runtime/binding.js";
import type { NativeContext, NativeSampler } from "../../src/runtime/binding.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: Model;
let context: Context;

// One thread: the suite runs test files in parallel on two cores.
const CONTEXT = { contextSize: 512, threads: 1 } as const;
const PROMPT = "Once upon a time, in a land far away,";

beforeAll(async () => {
  loadNative();
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm" }));
  context = await model.createContext(CONTEXT);
});

afterAll(() => model?.dispose());

function sampler(seed: number): NativeSampler {
  return new (loadNative().Sampler)(model.native, { temperature: 1, seed });
}

/** The reference loop: every step decodes the previous token itself (no decode-ahead). */
async function plainLoop(ctx: NativeContext, prompt: Int32Array, n: number, seed: number): Promise<number[]> {
  ctx.clear();
  const s = sampler(seed);
  const out: number[] = [];
  let pending: Int32Array | number = prompt;
  try {
    for (let i = 0; i < n; i++) {
      const step = await ctx.step(s, pending);
      out.push(step.token);
      if (step.eog) break;
      pending = step.token;
    }
  } finally {
    s.dispose();
  }
  return out;
}

describe("generate() with decode-ahead", () => {
  test("gives the same tokens as a loop without decode-ahead, and the cache holds exactly them", async () => {
    const prompt = model.tokenize(PROMPT);
    const generated = [];
    for await (const t of context.generate({
      tokens: prompt,
      maxTokens: 20,
      sampling: { temperature: 1, seed: 3 },
      reusePrefix: false,
    })) {
      generated.push(t.token);
    }
    const ctx = context.native;
    // maxTokens: the last token is not decoded ahead, so the cache is prompt + all but the last.
    expect(Array.from(ctx.tokens())).toEqual([...prompt, ...generated.slice(0, -1)]);
    expect(ctx.size).toBe(prompt.length + generated.length - 1);
    const reference = await plainLoop(ctx, prompt, 20, 3);
    expect(generated).toEqual(reference);
  });

  test("a stop string leaves the last token decoded, counted once; the next prompt reuses the cache", async () => {
    const prompt = model.tokenize(PROMPT);
    const probe = await context
      .generate({ tokens: prompt, maxTokens: 12, sampling: { greedy: true }, reusePrefix: false })
      .text();
    const stop = probe
      .slice(Math.floor(probe.length / 2))
      .trim()
      .slice(0, 2);
    expect(stop.length).toBeGreaterThan(0);

    const before = context.stats.evaluatedTokens;
    const generation = context.generate({
      tokens: prompt,
      maxTokens: 12,
      stop: [stop],
      sampling: { greedy: true },
      reusePrefix: false,
    });
    const tokens = [];
    for await (const t of generation) tokens.push(t.token);
    expect(generation.stopReason).toBe("stop");
    const n = generation.stats.tokensGenerated;
    expect(n).toBeLessThan(12);
    // The stopping token was decoded ahead: the cache holds the prompt and every generated token.
    const cached = context.cachedTokens();
    expect(cached.length).toBe(prompt.length + n);
    expect(context.size).toBe(cached.length);
    expect(context.stats.evaluatedTokens - before).toBe(prompt.length + n);

    const follow = context.generate({ tokens: cached, maxTokens: 1, sampling: { greedy: true } });
    await follow.text();
    expect(follow.stats.promptTokensReused).toBe(cached.length - 1);
  });

  test("a consumer that breaks out leaves the context settled and usable", async () => {
    for await (const _ of context.generate({ prompt: PROMPT, maxTokens: 50, sampling: { greedy: true } })) break;
    const size = context.size;
    expect(context.cachedTokens().length).toBe(size);
    context.truncate(3);
    expect(context.size).toBe(3);
    const again = context.generate({ prompt: PROMPT, maxTokens: 4, sampling: { greedy: true } });
    await again.text();
    expect(again.stopReason === "maxTokens" || again.stopReason === "eog").toBe(true);
  });

  test("aborting from a token handler ends with 'abort' and the context stays usable", async () => {
    const controller = new AbortController();
    const generation = context.generate({
      prompt: PROMPT,
      maxTokens: 200,
      sampling: { greedy: true },
      signal: controller.signal,
    });
    let seen = 0;
    for await (const _ of generation) if (++seen === 3) controller.abort();
    expect(generation.stopReason).toBe("abort");
    expect(context.cachedTokens().length).toBe(context.size);
    const after = await context.generate({ prompt: PROMPT, maxTokens: 3, sampling: { greedy: true } }).text();
    expect(typeof after).toBe("string");
  });
});

describe("the overlap", () => {
  test("steps settle while their token is still being decoded ahead", async () => {
    // On a decode that takes milliseconds the promise settles long before it ends: the count of
    // such steps shows JS really ran during the decode (without the early settle it stays 0).
    // A loaded machine may starve JS for a whole generation: up to five generations, and the
    // count must never exceed the steps that decoded ahead.
    let early = 0;
    for (let attempt = 0; attempt < 5 && early === 0; attempt++) {
      const before = context.native.stats().stepsSettledEarly;
      const generation = context.generate({
        prompt: PROMPT,
        maxTokens: 24,
        sampling: { greedy: true },
        reusePrefix: false,
      });
      const tokens = [];
      for await (const t of generation) tokens.push(t);
      early = context.native.stats().stepsSettledEarly - before;
      // Each step but the last decodes ahead; most of them settle during that decode.
      expect(early).toBeLessThanOrEqual(tokens.length - 1);
    }
    expect(early).toBeGreaterThan(0);
  });

  test("every decode of a context runs on the context's own thread", async () => {
    // Consecutive decodes on one OS thread are measurably faster than hopping between libuv pool
    // threads; prompt decodes, steps and decode-aheads all count here.
    const own = await model.createContext(CONTEXT);
    try {
      expect(own.native.stats().decodeThreads).toBe(0);
      await own.decode(model.tokenize(PROMPT));
      for (let i = 0; i < 3; i++) {
        await own
          .generate({ prompt: PROMPT, maxTokens: 12, sampling: { temperature: 1, seed: i }, reusePrefix: i > 0 })
          .text();
      }
      expect(own.stats.evaluatedTokens).toBeGreaterThan(20);
      expect(own.native.stats().decodeThreads).toBe(1);
    } finally {
      own.dispose();
    }
  });

  test("clear, truncate, cachedTokens and decode refuse while a generation runs", async () => {
    const generation = context.generate({ prompt: PROMPT, maxTokens: 6, sampling: { greedy: true } });
    for await (const _ of generation) {
      for (const call of [() => context.clear(), () => context.truncate(1), () => context.cachedTokens()]) {
        expect(call).toThrow(expect.objectContaining({ code: "TOOLWRIGHT_CONTEXT_BUSY" }));
      }
      await expect(context.decode([1])).rejects.toMatchObject({ code: "TOOLWRIGHT_CONTEXT_BUSY" });
    }
    expect(context.cachedTokens().length).toBe(context.size);
  });
});

describe("native step with decodeAhead", () => {
  test("the next step waits for the decode, then samples from its logits", async () => {
    const ctx = context.native;
    ctx.clear();
    const prompt = model.tokenize(PROMPT);
    const s = sampler(5);
    try {
      const first = await ctx.step(s, prompt, { decodeAhead: true });
      const second = await ctx.step(s, null, { decodeAhead: true });
      expect(first.eog || second.token >= 0).toBe(true);
      // tokens() waits for the running decode-ahead, so it is the truth.
      expect(Array.from(ctx.tokens())).toEqual([...prompt, first.token, second.token]);
      expect(ctx.size).toBe(prompt.length + 2);
    } finally {
      s.dispose();
    }
  });

  test("cancel() during a decode-ahead: the next step rejects with ABORT_ERR; the cache stays consistent", async () => {
    const ctx = context.native;
    ctx.clear();
    const prompt = model.tokenize(PROMPT);
    const s = sampler(5);
    try {
      await ctx.step(s, prompt, { decodeAhead: true });
      ctx.cancel();
      await expect(ctx.step(s, null)).rejects.toMatchObject({ code: "ABORT_ERR" });
      const cached = ctx.tokens();
      // Either the cancel came too late to stop the decode, or the token was dropped.
      expect([prompt.length, prompt.length + 1]).toContain(cached.length);
      expect(ctx.size).toBe(cached.length);
      // Usable afterwards: a fresh step decodes and samples.
      const next = await ctx.step(s, cached.length === prompt.length ? [1] : null);
      expect(Number.isInteger(next.token)).toBe(true);
    } finally {
      s.dispose();
    }
  });

  test("clear() and truncate() during a decode-ahead cancel it and leave exactly what they say", async () => {
    const ctx = context.native;
    const prompt = model.tokenize(PROMPT);
    const s = sampler(9);
    try {
      ctx.clear();
      await ctx.step(s, prompt, { decodeAhead: true });
      ctx.clear();
      expect(ctx.size).toBe(0);
      expect(ctx.tokens().length).toBe(0);

      await ctx.step(s, prompt, { decodeAhead: true });
      expect(ctx.truncate(2)).toBe(true);
      expect(Array.from(ctx.tokens())).toEqual(Array.from(prompt.subarray(0, 2)));
      // No stale failure from the cancelled decode-ahead: the next decode succeeds.
      await expect(ctx.decode(prompt.subarray(2))).resolves.toBe(prompt.length);
    } finally {
      s.dispose();
    }
  });

  test("a decode-ahead that has no room is reported by the next step as TOOLWRIGHT_CONTEXT_FULL", async () => {
    const small = await model.createContext({ contextSize: 256, threads: 1 });
    const ctx = small.native;
    const s = sampler(1);
    try {
      const filler = new Int32Array(small.contextSize).fill(model.tokenize("a")[0] ?? 1);
      await ctx.step(s, filler, { decodeAhead: true });
      await expect(ctx.step(s, null)).rejects.toMatchObject({ code: "TOOLWRIGHT_CONTEXT_FULL" });
      expect(ctx.size).toBe(small.contextSize);
    } finally {
      s.dispose();
      small.dispose();
    }
  });

  test("dispose() during a decode-ahead is safe", async () => {
    const own = await model.createContext(CONTEXT);
    const s = sampler(2);
    try {
      await own.native.step(s, model.tokenize(PROMPT), { decodeAhead: true });
      own.dispose();
      expect(own.disposed).toBe(true);
    } finally {
      s.dispose();
    }
    // The model still works after the disposed context's worker finished in the background.
    const text = await context.generate({ prompt: PROMPT, maxTokens: 2 }).text();
    expect(typeof text).toBe("string");
  });

  // Each context owns a thread; it must end with the context, also when the context's last
  // reference is dropped by its own thread (dispose() while a decode-ahead runs there).
  test.runIf(existsSync("/proc/self/task"))("disposed contexts leave no thread behind", async () => {
    // Thread ids, not a count: other threads of the process may end meanwhile.
    const threads = () => new Set(readdirSync("/proc/self/task"));
    await context.generate({ prompt: PROMPT, maxTokens: 2 }).text(); // the libuv pool is up
    const before = threads();
    const added = () => [...threads()].filter((t) => !before.has(t));
    const s = sampler(4);
    try {
      for (let i = 0; i < 6; i++) {
        const own = await model.createContext(CONTEXT);
        expect(added().length).toBeGreaterThan(0); // its thread
        if (i % 3 === 1) await own.native.step(s, model.tokenize(PROMPT), { decodeAhead: true });
        if (i % 3 === 2) void own.decode(model.tokenize(PROMPT)).catch(() => undefined);
        own.dispose();
      }
    } finally {
      s.dispose();
    }
    // A thread whose context was freed by its own last job ends right after that job.
    for (let i = 0; i < 100 && added().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(added()).toEqual([]);
  });
});
