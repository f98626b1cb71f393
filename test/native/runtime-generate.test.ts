/**
 * Generation on a tiny random-weight model (real llama-spm tokenizer): determinism, grammar,
 * UTF-8-safe streaming, stop strings, abort, prefix reuse, concurrency, responsiveness.
 */
import { ToolwrightError } from "../../src/errors.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, type GeneratedToken, type Generation, loadModel, type Model } from "../../src/index.js";
import { loadNative } from "../../src/runtime/binding.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: Model;
let context: Context;

// Contexts use one thread: the suite runs two test files at once on two cores, and ggml's
// threads spin-wait for each other, so oversubscribing makes every step crawl.
const CONTEXT = { contextSize: 512, threads: 1 } as const;

beforeAll(async () => {
  loadNative(); // a missing addon fails here, listing where it looked
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm" }));
  context = await model.createContext(CONTEXT);
});

afterAll(() => model?.dispose());

async function collect(generation: Generation): Promise<GeneratedToken[]> {
  const out: GeneratedToken[] = [];
  for await (const chunk of generation) out.push(chunk);
  return out;
}

const PROMPT = "Once upon a time, in a land far away,";

describe("determinism", () => {
  test("the same seed gives the same tokens; another seed gives others", async () => {
    const run = (seed: number) =>
      collect(context.generate({ prompt: PROMPT, maxTokens: 24, sampling: { temperature: 1, seed } }));
    const a = await run(7);
    const b = await run(7);
    const c = await run(8);
    expect(a.map((t) => t.token)).toEqual(b.map((t) => t.token));
    expect(a.length).toBe(24);
    expect(c.map((t) => t.token)).not.toEqual(a.map((t) => t.token));
  });

  test("greedy decoding repeats exactly, with or without a reused prefix", async () => {
    const run = (reusePrefix: boolean) =>
      collect(context.generate({ prompt: PROMPT, maxTokens: 16, sampling: { greedy: true }, reusePrefix }));
    const first = await run(false);
    const second = await run(true);
    expect(second.map((t) => t.token)).toEqual(first.map((t) => t.token));
  });

  test.each(["Once upon a time", "The weather today is", "Numbers 1 2 3"])(
    "greedy without a grammar picks the first highest logit, as llama.cpp's greedy sampler: %s",
    async (prompt) => {
      // A grammar that allows any text sends sampling through llama.cpp's sampler chain (its greedy
      // sampler, then the grammar's check of its pick); without one the logits' argmax is read directly.
      const run = (grammar?: { gbnf: string }) =>
        collect(
          context.generate({
            prompt,
            maxTokens: 24,
            sampling: { greedy: true },
            reusePrefix: false,
            ...(grammar ? { grammar } : {}),
          }),
        );
      const direct = (await run()).map((t) => t.token);
      expect(direct).toHaveLength(24);
      expect((await run({ gbnf: String.raw`root ::= [^\x00]*` })).map((t) => t.token)).toEqual(direct);
    },
  );
});

describe("grammar", () => {
  const JSON_GBNF =
    String.raw`
root   ::= "{" ws "\"name\"" ws ":" ws string ws "," ws "\"age\"" ws ":" ws number ws "," ` +
    String.raw`ws "\"tags\"" ws ":" ws tags ws "}"
string ::= "\"" [a-zA-Z0-9 é日🎉]{1,12} "\""
number ::= "-"? ("0" | [1-9] [0-9]{0,3}) ("." [0-9]{1,3})?
tags   ::= "[" ws (string (ws "," ws string){0,2})? ws "]"
ws     ::= " "?
`;

  test.each([1, 2, 3])("a JSON grammar makes the random model emit valid JSON (seed %i)", async (seed) => {
    const generation = context.generate({
      prompt: PROMPT,
      maxTokens: 200,
      grammar: { gbnf: JSON_GBNF },
      sampling: { seed, temperature: 1 },
    });
    const text = await generation.text();
    expect(generation.stopReason).toBe("eog");
    const value = JSON.parse(text) as { name: string; age: number; tags: string[] };
    expect(Object.keys(value)).toEqual(["name", "age", "tags"]);
    expect(typeof value.name).toBe("string");
    expect(typeof value.age).toBe("number");
    expect(Array.isArray(value.tags)).toBe(true);
  });

  test("multi-byte characters split over byte tokens arrive whole", async () => {
    // Forced text; the random model often spells it with byte-fallback tokens (<0xE6> ...).
    const target = "日本語🎉 é ü 𝄞 ok";
    let sawSplit = false;
    for (let seed = 1; seed <= 6 && !sawSplit; seed++) {
      const chunks = await collect(
        context.generate({
          prompt: PROMPT,
          maxTokens: 64,
          grammar: { gbnf: `root ::= ${JSON.stringify(target)}` },
          sampling: { seed, temperature: 2, topK: 0, topP: 1, minP: 0 },
        }),
      );
      expect(chunks.map((c) => c.text).join("")).toBe(target);
      for (const c of chunks) expect(c.text).not.toContain("\uFFFD");
      // A token that did not complete a character yields "" and the character comes with a later one.
      sawSplit = chunks.some((c) => c.text === "" && model.tokenKind(c.token) === "byte");
    }
    expect(sawSplit).toBe(true);
  });

  test("a lazy grammar leaves the output free until its trigger appears", async () => {
    const generation = context.generate({
      prompt: PROMPT,
      maxTokens: 24,
      sampling: { seed: 3, temperature: 1 },
      grammar: { gbnf: 'root ::= "x"', lazy: { patterns: ["NEVER-PRODUCED-TRIGGER"] } },
    });
    const text = await generation.text();
    expect(generation.stopReason).toBe("maxTokens");
    expect(text).not.toBe("x");
  });

  test.each(["tokens", "patterns"] as const)(
    "a lazy grammar takes over once its trigger (%s) appears",
    async (kind) => {
      const sampling = { greedy: true };
      const free = await collect(context.generate({ prompt: PROMPT, maxTokens: 6, sampling }));
      const trigger = free[2]!;
      expect(trigger.text.length).toBeGreaterThan(0);
      const lazy =
        kind === "tokens"
          ? { tokens: [trigger.token] }
          : { patterns: [`[\\s\\S]*?(${trigger.text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")})`] };
      // Once triggered, the grammar is fed the output from the trigger on and forces " done".
      const gbnf = `root ::= ${JSON.stringify(trigger.text)} " done"`;
      const generation = context.generate({ prompt: PROMPT, maxTokens: 40, sampling, grammar: { gbnf, lazy } });
      const text = await generation.text();
      expect(text).toBe(`${free[0]!.text}${free[1]!.text}${trigger.text} done`);
      expect(generation.stopReason).toBe("eog");
    },
  );

  test("an invalid grammar is thrown by generate() itself, naming the rule", async () => {
    let error: unknown;
    try {
      context.generate({ prompt: PROMPT, grammar: { gbnf: "root ::= missing-rule" } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ToolwrightError);
    expect(error).toMatchObject({ code: "TOOLWRIGHT_INVALID_GRAMMAR" });
    expect((error as Error).message).toMatch(/^generate: options\.grammar: .*missing-rule/);
    // The context is free again.
    expect(await context.generate({ prompt: PROMPT, maxTokens: 2 }).text()).toBeTypeOf("string");
  });
});

describe("stop strings and ends", () => {
  test("the text stops before a stop string, also when it spans tokens", async () => {
    const sampling = { greedy: true };
    const free = await collect(context.generate({ prompt: PROMPT, maxTokens: 40, sampling }));
    const full = free.map((c) => c.text).join("");
    // A stop string made of the end of one token's text and the start of the next one's.
    const boundary = free[0]!.text.length + free[1]!.text.length;
    const index = free.findIndex((c, i) => i > 3 && c.text.length >= 2 && free[i - 1]!.text.length >= 2);
    expect(index).toBeGreaterThan(0);
    const start = free.slice(0, index).reduce((n, c) => n + c.text.length, 0);
    const stop = full.slice(start - 2, start + 2);
    expect(boundary).toBeGreaterThan(0);
    const generation = context.generate({ prompt: PROMPT, maxTokens: 40, sampling, stop: [stop] });
    const text = await generation.text();
    expect(generation.stopReason).toBe("stop");
    expect(text).toBe(full.slice(0, full.indexOf(stop)));
  });

  test.each([
    { name: "to maxTokens", stop: undefined, reason: "maxTokens" },
    { name: "cut by a stop string", stop: "STOP", reason: "stop" },
    { name: "a break after 5 tokens", stop: undefined, reason: undefined, take: 5 },
  ])("deliverEvery hands over the same tokens, ends and cache: $name", async ({ stop, reason, take }) => {
    const sampling = { greedy: true };
    const free = await collect(context.generate({ prompt: PROMPT, maxTokens: 30, sampling }));
    // A stop string in the middle of the output: the tokens made after it in the same group are not kept.
    const stopAt =
      stop === undefined
        ? undefined
        : free
            .slice(0, 13)
            .reduce((t, c) => t + c.text, "")
            .slice(-3);
    const run = async (deliverEvery: number) => {
      context.clear();
      const g = context.generate({
        prompt: PROMPT,
        maxTokens: 30,
        sampling,
        deliverEvery,
        ...(stopAt ? { stop: [stopAt] } : {}),
      });
      const tokens: GeneratedToken[] = [];
      for await (const chunk of g) if (tokens.push(chunk) === take) break;
      return { tokens, stopReason: g.stopReason, generated: g.stats.tokensGenerated, cache: context.cachedTokens() };
    };
    const one = await run(1);
    const grouped = await run(8);
    expect({ ...grouped, cache: [] }).toEqual({ ...one, cache: [] });
    expect(one.stopReason).toBe(reason);
    // The cache holds the prompt and the tokens taken, the last one once decoded (a generation that runs ahead
    // has decoded it; one that stopped at it has not): never a token made after it.
    const prompt = Array.from(model.tokenize(PROMPT));
    for (const r of [one, grouped]) {
      const taken = [...prompt, ...r.tokens.map((t) => t.token)];
      expect([taken.length - 1, taken.length]).toContain(r.cache.length);
      expect(Array.from(r.cache)).toEqual(taken.slice(0, r.cache.length));
    }
  });

  test("deliverEvery is 1 to 16", () => {
    for (const deliverEvery of [0, 17, 2.5])
      expect(() => context.generate({ prompt: PROMPT, deliverEvery })).toThrow(/options\.deliverEvery/);
  });

  test("maxTokens and a full context end the generation", async () => {
    const capped = context.generate({ prompt: PROMPT, maxTokens: 5 });
    expect((await collect(capped)).length).toBe(5);
    expect(capped.stopReason).toBe("maxTokens");
    expect(capped.stats.tokensGenerated).toBe(5);

    const small = await model.createContext({ contextSize: 256, threads: 1 });
    try {
      const prompt = Array.from({ length: 250 }, (_, i) => 100 + i);
      const generation = small.generate({ tokens: prompt, maxTokens: 100 });
      const chunks = await collect(generation);
      expect(generation.stopReason).toBe("contextFull");
      // Every free cell holds a decoded token, plus the last sampled one (never decoded).
      expect(chunks.length).toBe(small.contextSize - prompt.length + 1);
      expect(small.size).toBe(small.contextSize);
      await expect(small.generate({ tokens: Array.from({ length: 300 }, () => 100) }).text()).rejects.toThrow(
        RangeError,
      );
    } finally {
      small.dispose();
    }
  });
});

describe("abort", () => {
  test("aborting mid-generation ends it cleanly and leaves the context usable", async () => {
    const controller = new AbortController();
    const generation = context.generate({ prompt: PROMPT, maxTokens: 200, signal: controller.signal });
    let count = 0;
    for await (const _ of generation) {
      if (++count === 5) controller.abort();
    }
    expect(count).toBe(5);
    expect(generation.stopReason).toBe("abort");
    const next = context.generate({ prompt: PROMPT, maxTokens: 3 });
    expect((await collect(next)).length).toBe(3);
  });

  test("aborting during a long prompt stops the decode and keeps the cache consistent", async () => {
    const big = await model.createContext({ contextSize: 4096, batchSize: 64, threads: 1 });
    try {
      const prompt = Array.from({ length: 4000 }, (_, i) => 200 + (i % 5000));
      const controller = new AbortController();
      const generation = big.generate({ tokens: prompt, maxTokens: 10, signal: controller.signal });
      setTimeout(() => controller.abort(), 5);
      expect(await collect(generation)).toEqual([]);
      expect(generation.stopReason).toBe("abort");
      // Whatever was decoded before the abort is exactly a prefix of the prompt.
      const cached = big.cachedTokens();
      expect(cached.length).toBeLessThan(prompt.length);
      expect(Array.from(cached)).toEqual(prompt.slice(0, cached.length));
      // ... and is reused by the next generation.
      const again = big.generate({ tokens: prompt, maxTokens: 2 });
      await collect(again);
      expect(again.stats.promptTokensReused).toBe(cached.length);
      expect(again.stopReason).toBe("maxTokens");
    } finally {
      big.dispose();
    }
  });
});

test("a follow-up prompt only evaluates the tokens after the shared prefix", async () => {
  const first = context.generate({ prompt: PROMPT, maxTokens: 4, sampling: { greedy: true } });
  await collect(first);
  const promptTokens = model.tokenize(PROMPT).length;
  expect(first.stats.promptTokens).toBe(promptTokens);
  const before = context.stats;
  const longer = `${PROMPT} there lived a dragon.`;
  const second = context.generate({ prompt: longer, maxTokens: 1 });
  await collect(second);
  const shared = commonPrefix(model.tokenize(PROMPT), model.tokenize(longer));
  expect(second.stats.promptTokensReused).toBe(shared);
  expect(second.stats.promptTokensEvaluated).toBe(model.tokenize(longer).length - shared);
  expect(context.stats.promptTokensEvaluated - before.promptTokensEvaluated).toBe(second.stats.promptTokensEvaluated);
});

test("a timer keeps firing while tokens are generated", async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    const started = performance.now();
    await context.generate({ prompt: PROMPT, maxTokens: 256 }).text();
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThan(10);
    expect(ticks).toBeGreaterThanOrEqual(3);
  } finally {
    clearInterval(timer);
  }
});

test("two contexts on one model generate at the same time", async () => {
  const a = await model.createContext(CONTEXT);
  const b = await model.createContext(CONTEXT);
  try {
    const order: string[] = [];
    const run = async (ctx: Context, label: string) => {
      for await (const _ of ctx.generate({ prompt: PROMPT, maxTokens: 32, sampling: { seed: 1 } })) order.push(label);
    };
    await Promise.all([run(a, "a"), run(b, "b")]);
    expect(order.filter((x) => x === "a").length).toBe(32);
    expect(order.filter((x) => x === "b").length).toBe(32);
    // Interleaved: each context produced tokens before the other one finished.
    expect(order.indexOf("b")).toBeLessThan(order.lastIndexOf("a"));
    expect(order.indexOf("a")).toBeLessThan(order.lastIndexOf("b"));
  } finally {
    a.dispose();
    b.dispose();
  }
});

test("one generation at a time per context", async () => {
  const first = context.generate({ prompt: PROMPT, maxTokens: 8 });
  const iterator = first[Symbol.asyncIterator]();
  await iterator.next();
  await expect(context.generate({ prompt: PROMPT, maxTokens: 1 }).text()).rejects.toMatchObject({
    code: "TOOLWRIGHT_CONTEXT_BUSY",
  });
  await iterator.return?.();
  expect(await context.generate({ prompt: PROMPT, maxTokens: 1 }).text()).toBeTypeOf("string");
  expect(() => first[Symbol.asyncIterator]()).toThrow(/only once/);
});

test("disposing a context mid-generation fails the next step cleanly", async () => {
  const ctx = await model.createContext(CONTEXT);
  const generation = ctx.generate({ prompt: PROMPT, maxTokens: 50 });
  const seen: number[] = [];
  await expect(
    (async () => {
      for await (const chunk of generation) {
        seen.push(chunk.token);
        if (seen.length === 3) ctx.dispose();
      }
    })(),
  ).rejects.toThrow(/disposed/);
  expect(seen.length).toBe(3);
});

test.each([
  { name: "no prompt", options: {}, error: TypeError, message: /prompt or options\.tokens/ },
  { name: "both prompt and tokens", options: { prompt: "a", tokens: [1] }, error: TypeError, message: /not both/ },
  { name: "token out of range", options: { tokens: [1e9] }, error: RangeError, message: /tokens\[0\]/ },
  { name: "negative maxTokens", options: { prompt: "a", maxTokens: -1 }, error: RangeError, message: /maxTokens/ },
  { name: "stop not an array", options: { prompt: "a", stop: "x" }, error: TypeError, message: /options\.stop/ },
  { name: "empty stop string", options: { prompt: "a", stop: [""] }, error: RangeError, message: /stop\[0\]/ },
  {
    name: "temperature negative",
    options: { prompt: "a", sampling: { temperature: -1 } },
    error: RangeError,
    message: /temperature/,
  },
  { name: "topP above 1", options: { prompt: "a", sampling: { topP: 2 } }, error: RangeError, message: /topP/ },
  {
    name: "seed not an integer",
    options: { prompt: "a", sampling: { seed: 1.5 } },
    error: RangeError,
    message: /seed/,
  },
  {
    name: "unknown sampling key",
    options: { prompt: "a", sampling: { temp: 1 } },
    error: TypeError,
    message: /unknown key "temp"/,
  },
  { name: "grammar without gbnf", options: { prompt: "a", grammar: {} }, error: TypeError, message: /grammar\.gbnf/ },
  {
    name: "lazy grammar without triggers",
    options: { prompt: "a", grammar: { gbnf: 'root ::= "x"', lazy: {} } },
    error: RangeError,
    message: /lazy/,
  },
  {
    name: "signal not an AbortSignal",
    options: { prompt: "a", signal: 1 },
    error: TypeError,
    message: /options\.signal/,
  },
])("generate option check: $name", ({ options, error, message }) => {
  expect(() => context.generate(options as never)).toThrow(error);
  expect(() => context.generate(options as never)).toThrow(message);
});

function commonPrefix(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}
