/**
 * Parallel contexts (`sequences > 1`, native/batch_scheduler.h) on a tiny random-weight model:
 * concurrent generations give the tokens each gives alone, each keeps its own grammar and stop
 * state, aborting one leaves the others as they were, a request joins a running batch, prefix
 * reuse per sequence, the option's validation, and generations that need no libuv pool thread.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, type Generation, type GenerateOptions, loadModel, type Model } from "../../src/index.js";
import { describeOutcome, isolated } from "../helpers/isolated.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: Model;
let context: Context;
let path: string;

// One thread: the suite runs two test files at once on two cores.
const CONTEXT = { contextSize: 1024, threads: 1, sequences: 4 } as const;

beforeAll(async () => {
  path = await ensureTestModel({ vocab: "llama-spm" });
  model = await loadModel(path);
  context = await model.createContext(CONTEXT);
});

afterAll(() => model?.dispose());

async function tokensOf(generation: Generation): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of generation) out.push(chunk.token);
  return out;
}

const PROMPTS = [
  "Once upon a time",
  "The weather today is",
  "Dear diary,",
  "In the beginning",
  "Lists:",
  "Numbers 1 2 3",
];

/** Generation options per case: greedy, and seeded sampling (each sequence has its own sampler). */
const SAMPLINGS: { name: string; sampling: GenerateOptions["sampling"] }[] = [
  { name: "greedy", sampling: { greedy: true } },
  { name: "seeded", sampling: { temperature: 1, seed: 42 } },
];

describe("determinism per sequence", () => {
  test.each(SAMPLINGS)("$name: concurrent generations give the tokens each gives alone", async ({ sampling }) => {
    const run = (prompt: string) => tokensOf(context.generate({ prompt, maxTokens: 12, sampling, reusePrefix: false }));
    const alone: number[][] = [];
    for (const prompt of PROMPTS) alone.push(await run(prompt));
    // Six requests on four sequences: two wait, then join the running batch.
    const together = await Promise.all(PROMPTS.map(run));
    expect(together).toEqual(alone);
    for (const tokens of alone) expect(tokens).toHaveLength(12);
  });
});

describe("each sequence keeps its own state", () => {
  test("a grammar per sequence is respected while the others generate freely", async () => {
    const digits = context.generate({ prompt: PROMPTS[0]!, maxTokens: 8, grammar: { gbnf: "root ::= [0-9]{6}" } });
    const word = context.generate({
      prompt: PROMPTS[1]!,
      maxTokens: 12,
      grammar: { gbnf: 'root ::= ("yes" | "no") " " [a-z]{3,5}' },
    });
    const free = context.generate({
      prompt: PROMPTS[2]!,
      maxTokens: 12,
      sampling: { greedy: true },
      reusePrefix: false,
    });
    const [a, b, c] = await Promise.all([digits.text(), word.text(), tokensOf(free)]);
    expect(a).toMatch(/^[0-9]{6}$/);
    expect(b).toMatch(/^(yes|no) [a-z]{3,5}$/);
    expect(c).toEqual(
      await tokensOf(
        context.generate({ prompt: PROMPTS[2]!, maxTokens: 12, sampling: { greedy: true }, reusePrefix: false }),
      ),
    );
  });

  test("stop strings end one sequence only", async () => {
    const base = await context.generate({ prompt: PROMPTS[3]!, maxTokens: 12, sampling: { greedy: true } }).text();
    const stop = base.slice(4, 7);
    const stopped = context.generate({ prompt: PROMPTS[3]!, maxTokens: 12, sampling: { greedy: true }, stop: [stop] });
    const other = context.generate({ prompt: PROMPTS[4]!, maxTokens: 12, sampling: { greedy: true } });
    const [s, o] = await Promise.all([stopped.text(), tokensOf(other)]);
    expect(stopped.stopReason).toBe("stop");
    expect(s).toBe(base.slice(0, base.indexOf(stop)));
    expect(other.stopReason).toBe("maxTokens");
    expect(o).toHaveLength(12);
  });

  test("aborting one generation does not disturb the others", async () => {
    const greedy = { greedy: true } as const;
    const alone = [];
    for (const prompt of PROMPTS.slice(0, 3))
      alone.push(await tokensOf(context.generate({ prompt, maxTokens: 16, sampling: greedy, reusePrefix: false })));
    const ac = new AbortController();
    const victim = context.generate({ prompt: PROMPTS[3]!, maxTokens: 200, sampling: greedy, signal: ac.signal });
    const victimTokens: number[] = [];
    const others = PROMPTS.slice(0, 3).map((prompt) =>
      tokensOf(context.generate({ prompt, maxTokens: 16, sampling: greedy, reusePrefix: false })),
    );
    for await (const chunk of victim) if (victimTokens.push(chunk.token) === 3) ac.abort();
    expect(victim.stopReason).toBe("abort");
    expect(victimTokens.length).toBeLessThan(200);
    expect(await Promise.all(others)).toEqual(alone);
  });

  test("aborting a generation still waiting for a free sequence ends it before the running ones", async () => {
    const ctx = await model.createContext({ ...CONTEXT, sequences: 2 });
    try {
      // Token prompts: each generation is submitted when its iteration starts, in this order.
      const order: string[] = [];
      const tokens = (i: number) => model.tokenize(PROMPTS[i]!);
      const ac = new AbortController();
      const run = async (i: number) => {
        // The first token of a running generation: the queued one waits now; abort it.
        for await (const _ of ctx.generate({ tokens: tokens(i), maxTokens: 200, sampling: { greedy: true } }))
          ac.abort();
        order.push(`running ${i}`);
      };
      const running = [0, 1].map(run);
      const queued = ctx.generate({ tokens: tokens(2), maxTokens: 60, signal: ac.signal });
      const done = tokensOf(queued).then((t) => (order.push("queued"), t));
      expect(await done).toEqual([]);
      await Promise.all(running);
      expect(queued.stopReason).toBe("abort");
      expect(order[0]).toBe("queued");
    } finally {
      ctx.dispose();
    }
  });

  test("a request submitted while another runs gives its lone tokens, and so does the running one", async () => {
    const greedy = { greedy: true } as const;
    const longAlone = await tokensOf(
      context.generate({ prompt: PROMPTS[0]!, maxTokens: 40, sampling: greedy, reusePrefix: false }),
    );
    const shortAlone = await tokensOf(
      context.generate({ prompt: PROMPTS[5]!, maxTokens: 6, sampling: greedy, reusePrefix: false }),
    );
    const long = context.generate({ prompt: PROMPTS[0]!, maxTokens: 40, sampling: greedy, reusePrefix: false });
    const longTokens: number[] = [];
    let joined: Promise<number[]> | undefined;
    for await (const chunk of long) {
      longTokens.push(chunk.token);
      if (longTokens.length === 5) {
        // Joins while the long one runs; its tokens come in between the long one's.
        joined = tokensOf(
          context.generate({ prompt: PROMPTS[5]!, maxTokens: 6, sampling: greedy, reusePrefix: false }),
        );
      }
    }
    // Which finishes first depends on how far the native loop ran ahead of this consumer (no
    // clock in tests): what must hold is that neither disturbs the other.
    expect(longTokens).toEqual(longAlone);
    expect(await joined).toEqual(shortAlone);
  });
});

describe("prefix reuse per sequence", () => {
  test("a continued prompt reuses its sequence's cache while another conversation runs", async () => {
    const ctx = await model.createContext({ ...CONTEXT, sequences: 2 });
    try {
      const a1 = ctx.generate({
        prompt: "Conversation A: hello there, how are you",
        maxTokens: 4,
        sampling: { greedy: true },
      });
      const b1 = ctx.generate({
        prompt: "Conversation B is about something else entirely",
        maxTokens: 4,
        sampling: { greedy: true },
      });
      await Promise.all([a1.text(), b1.text()]);
      const a2 = ctx.generate({
        prompt: "Conversation A: hello there, how are you today?",
        maxTokens: 4,
        sampling: { greedy: true },
      });
      const b2 = ctx.generate({
        prompt: "Conversation B is about something else entirely, again",
        maxTokens: 4,
        sampling: { greedy: true },
      });
      await Promise.all([a2.text(), b2.text()]);
      // Each continuation found its own earlier prompt (not only the shared BOS) in its sequence.
      expect(a2.stats.promptTokensReused).toBe(a1.stats.promptTokens);
      expect(b2.stats.promptTokensReused).toBe(b1.stats.promptTokens);
    } finally {
      ctx.dispose();
    }
  });
  // A short prefix too: the copy moves the donor's cells alone, so a few tokens already pay for it.
  test.each(["You are a helpful assistant. Answer briefly and stay on topic, please, always.", "Hi there"])(
    "a prompt sharing a prefix with another sequence's cache starts from a copy, same tokens as alone: %s",
    async (text) => {
      const ctx = await model.createContext({ ...CONTEXT, sequences: 3 });
      try {
        const shared = Array.from(model.tokenize(text));
        const greedy = { greedy: true } as const;
        // A's generated tail is longer than the shared part: B does not continue A's sequence but
        // takes a free one, and copies the shared prefix into it.
        const a = ctx.generate({ tokens: [...shared, 100], maxTokens: 2 * shared.length, sampling: greedy });
        await a.text();
        const b = ctx.generate({ tokens: [...shared, 200], maxTokens: 12, sampling: greedy });
        const bTokens = await tokensOf(b);
        expect(b.stats.promptTokensReused).toBe(shared.length);
        expect(b.stats.promptTokensEvaluated).toBe(1);
        const alone = await tokensOf(
          ctx.generate({ tokens: [...shared, 200], maxTokens: 12, sampling: greedy, reusePrefix: false }),
        );
        expect(bTokens).toEqual(alone);
      } finally {
        ctx.dispose();
      }
    },
  );
});

describe("the sequences option", () => {
  test.each([0, 257, 1.5, -1])("sequences %s is a RangeError naming the option", async (sequences) => {
    await expect(model.createContext({ sequences })).rejects.toThrow(/options\.sequences/);
    await expect(model.createContext({ sequences })).rejects.toBeInstanceOf(RangeError);
  });

  test("a non-number is a TypeError; an unknown key suggests sequences", async () => {
    await expect(model.createContext({ sequences: "4" as unknown as number })).rejects.toBeInstanceOf(TypeError);
    await expect(model.createContext({ sequence: 4 } as object)).rejects.toThrow(/sequences/);
  });

  test("the single-sequence methods say so on a parallel context", () => {
    expect(context.sequences).toBe(4);
    expect(() => context.cachedTokens()).toThrow(/single-sequence/);
    expect(() => context.clear()).toThrow(/single-sequence/);
  });
});

describe("no libuv pool thread per generation", () => {
  test("with UV_THREADPOOL_SIZE=1, 8 concurrent generations all complete", async () => {
    const body = `const model = await lib.loadModel(${JSON.stringify(path)});
      const ctx = await model.createContext({ contextSize: 1024, threads: 1, sequences: 8 });
      const tokens = Array.from(model.tokenize("Once upon a time"));
      const counts = await Promise.all(Array.from({ length: 8 }, async (_, i) => {
        let n = 0; for await (const _t of ctx.generate({ tokens: [...tokens, 100 + i], maxTokens: 10, sampling: {
          greedy: true } })) n++; return n;
      }));
      return counts;`;
    const r = await isolated(body, { timeoutMs: 120_000, env: { UV_THREADPOOL_SIZE: "1" } });
    expect(r.kind, describeOutcome(r)).toBe("returned");
    expect(r.value).toEqual(Array(8).fill(10));
  });
});
