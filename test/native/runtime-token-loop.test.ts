/**
 * The token loop on a single-sequence context: its generations run in the context's batch
 * scheduler (one slot), on the context's own thread, ahead of the reader. Checks that generate()
 * gives the same tokens as one request per token, that the cache and stats stay the truth, that
 * the context's thread runs ahead of a slow reader and pauses, and that clear/truncate/dispose
 * around generations are safe and leave the context usable.
 */
import { existsSync, readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, loadModel, type Model } from "../../src/index.js";
import { loadNative } from "../../src/runtime/binding.js";
import { READ_AHEAD } from "../../src/runtime/sequence-generation.js";
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

/** Polls `done` between turns of the event loop (no wall-clock bound: a count of turns). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe("generate() on one sequence", () => {
  test("gives the same tokens as one fresh request per token, and the cache holds exactly them", async () => {
    const prompt = Array.from(model.tokenize(PROMPT));
    const generated: number[] = [];
    for await (const t of context.generate({ tokens: prompt, maxTokens: 20, sampling: { greedy: true } })) {
      generated.push(t.token);
    }
    // maxTokens: the last token is not decoded, so the cache is prompt + all but the last.
    expect(Array.from(context.cachedTokens())).toEqual([...prompt, ...generated.slice(0, -1)]);
    expect(context.size).toBe(prompt.length + generated.length - 1);
    const reference: number[] = [];
    while (reference.length < generated.length) {
      const one = context.generate({ tokens: [...prompt, ...reference], maxTokens: 1, sampling: { greedy: true } });
      for await (const t of one) reference.push(t.token);
      if (one.stopReason === "eog") break;
    }
    expect(generated).toEqual(reference);
  });

  test("a stop string ends it; the cache keeps the prompt and the tokens taken, reused next", async () => {
    const prompt = model.tokenize(PROMPT);
    const probe = await context
      .generate({ tokens: prompt, maxTokens: 12, sampling: { greedy: true }, reusePrefix: false })
      .text();
    const stop = probe
      .slice(Math.floor(probe.length / 2))
      .trim()
      .slice(0, 2);
    expect(stop.length).toBeGreaterThan(0);

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
    // The tokens generated ahead of the reader are dropped; the last one taken may not be decoded yet.
    const cached = Array.from(context.cachedTokens());
    expect([prompt.length + n - 1, prompt.length + n]).toContain(cached.length);
    expect(cached).toEqual([...prompt, ...tokens].slice(0, cached.length));
    expect(context.size).toBe(cached.length);

    const follow = context.generate({ tokens: cached, maxTokens: 1, sampling: { greedy: true } });
    await follow.text();
    expect(follow.stats.promptTokensReused).toBe(cached.length - 1);
  });

  test("a reader that falls behind to the end and then stops: the cache keeps only the tokens it took", async () => {
    const prompt = model.tokenize(PROMPT);
    // Fewer tokens than the read-ahead: the request runs to maxTokens while the reader holds its first token.
    const generation = context.generate({
      tokens: prompt,
      maxTokens: 6,
      sampling: { greedy: true },
      reusePrefix: false,
    });
    const reader = generation[Symbol.asyncIterator]();
    const first = await reader.next();
    expect(first.done).toBe(false);
    while (context.native.stats().requestsRunning > 0) await new Promise((r) => setTimeout(r, 5));
    // Ended natively: all its tokens but the last are in the cache.
    expect(context.native.tokens().length).toBe(prompt.length + 5);
    await reader.return!(undefined); // the reader stops, as a stop string or a break does
    expect(Array.from(context.cachedTokens())).toEqual([...prompt, first.value!.token]);
    expect(context.size).toBe(prompt.length + 1);
    // The native call behind it: a request that no sequence ended is left alone; bad arguments are named.
    expect(context.native.trimUntaken(2 ** 40, 0)).toBe(false);
    expect(() => context.native.trimUntaken(-1, 0)).toThrow(/Context\.trimUntaken.*id/);
    expect(() => context.native.trimUntaken(1, "2" as unknown as number)).toThrow(/Context\.trimUntaken.*taken/);
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

describe("the context's thread", () => {
  test("runs ahead of a slow reader, then pauses until the reader takes more", async () => {
    const generation = context.generate({
      prompt: PROMPT,
      maxTokens: 4 * READ_AHEAD,
      sampling: { temperature: 1, seed: 7 },
      reusePrefix: false,
    });
    const it = generation[Symbol.asyncIterator]();
    const before = context.native.stats().sampledTokens;
    const sampled = () => context.native.stats().sampledTokens - before;
    try {
      const first = await it.next();
      if (first.done) return; // ended at once (an end-of-generation token)
      // The reader holds one token; the context's thread goes on to READ_AHEAD more, then waits. (Under
      // load it may pause once at READ_AHEAD, before the first token's consumed() arrives, and go on after.)
      await until(() => sampled() === READ_AHEAD + 1 && context.native.stats().requestsPaused === 1);
      expect(context.native.stats().requestsPaused).toBe(1);
      expect(sampled()).toBe(READ_AHEAD + 1);
      for (let i = 0; i < 4; i++) await it.next();
      await until(() => sampled() === READ_AHEAD + 5 && context.native.stats().requestsPaused === 1);
      expect(sampled()).toBe(READ_AHEAD + 5);
    } finally {
      await it.return?.();
    }
  });

  test("every decode of a context runs on the context's own thread", async () => {
    // Consecutive decodes on one OS thread are measurably faster than hopping between libuv pool
    // threads; prompt decodes and generated tokens all count here.
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

describe("the single-sequence API between generations", () => {
  test("clear() and truncate() leave exactly what they say; decode appends", async () => {
    const ctx = context.native;
    const prompt = model.tokenize(PROMPT);
    await context.generate({ tokens: prompt, maxTokens: 4, sampling: { greedy: true } }).text();
    ctx.clear();
    expect(ctx.size).toBe(0);
    expect(ctx.tokens().length).toBe(0);

    await context.generate({ tokens: prompt, maxTokens: 4, sampling: { greedy: true } }).text();
    expect(ctx.truncate(2)).toBe(true);
    expect(Array.from(ctx.tokens())).toEqual(Array.from(prompt.subarray(0, 2)));
    await expect(ctx.decode(prompt.subarray(2))).resolves.toBe(prompt.length);
    const next = context.generate({ tokens: prompt, maxTokens: 1, sampling: { greedy: true } });
    await next.text();
    expect(next.stats.promptTokensReused).toBe(prompt.length - 1);
  });

  test("a decode that does not fit rejects with TOOLWRIGHT_CONTEXT_FULL and adds nothing", async () => {
    const small = await model.createContext({ contextSize: 256, threads: 1 });
    try {
      const filler = new Int32Array(small.contextSize - 1).fill(model.tokenize("a")[0] ?? 1);
      await small.decode(filler);
      await expect(small.decode([1, 1])).rejects.toMatchObject({ code: "TOOLWRIGHT_CONTEXT_FULL" });
      expect(small.size).toBe(small.contextSize - 1);
    } finally {
      small.dispose();
    }
  });

  test("dispose() during a generation is safe", async () => {
    const own = await model.createContext(CONTEXT);
    const it = own.generate({ prompt: PROMPT, maxTokens: 100 })[Symbol.asyncIterator]();
    await it.next();
    own.dispose();
    expect(own.disposed).toBe(true);
    await expect(
      (async () => {
        while (!(await it.next()).done);
      })(),
    ).rejects.toMatchObject({ code: "TOOLWRIGHT_DISPOSED" });
    // The model still works after the disposed context's round finished in the background.
    const text = await context.generate({ prompt: PROMPT, maxTokens: 2 }).text();
    expect(typeof text).toBe("string");
  });

  // Each context owns a thread; it must end with the context, also when the context's last
  // reference is dropped by its own thread (dispose() while a round runs there).
  test.runIf(existsSync("/proc/self/task"))("disposed contexts leave no thread behind", async () => {
    // Thread ids, not a count: other threads of the process may end meanwhile.
    const threads = () => new Set(readdirSync("/proc/self/task"));
    await context.generate({ prompt: PROMPT, maxTokens: 2 }).text(); // the libuv pool is up
    const before = threads();
    const added = () => [...threads()].filter((t) => !before.has(t));
    for (let i = 0; i < 6; i++) {
      const own = await model.createContext(CONTEXT);
      expect(added().length).toBeGreaterThan(0); // its thread
      if (i % 3 === 1) {
        const it = own.generate({ prompt: PROMPT, maxTokens: 50 })[Symbol.asyncIterator]();
        await it.next();
        void it.next().catch(() => undefined);
      }
      if (i % 3 === 2) void own.decode(model.tokenize(PROMPT)).catch(() => undefined);
      own.dispose();
    }
    // A thread whose context was freed by its own last job ends right after that job.
    for (let i = 0; i < 100 && added().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(added()).toEqual([]);
  });
});
