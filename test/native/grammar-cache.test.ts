/**
 * The native compiled-grammar cache: a grammar used again on the same model is not compiled again
 * and its generation starts with the first one's automaton and masks, with exactly the tokens a
 * cold compile gives; different vocabularies, roots or lazy triggers never share an entry; a
 * disposed model takes its entries with it; two contexts using one grammar at once stay exact.
 * Counted through grammarCacheStats(), never timed. Masks step by step (and from several threads
 * at once) are compared by toolwright-grammar-tool's `cache` mode.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  clearGrammarCache,
  type Context,
  type GrammarOptions,
  grammarCacheStats,
  loadModel,
  type Model,
  setGrammarCacheLimit,
} from "../../src/index.js";
import { GBNF_FIXTURES, LLAMA_GRAMMARS, runGrammarTool, vocabPath } from "../helpers/grammar-tool.js";
import { ensureTestModel } from "../helpers/test-models.js";

const JSONISH = String.raw`
root  ::= "{" ws "\"name\"" ws ":" ws str ws "," ws "\"n\"" ws ":" ws num ws "}"
other ::= "[" ws num (ws "," ws num){0,3} ws "]"
str   ::= "\"" [a-zA-Z0-9 é日]{1,12} "\""
num   ::= "-"? ("0" | [1-9] [0-9]{0,3})
ws    ::= " "?
`;
const DEFAULT_LIMIT = 256 * 1024 * 1024;

let model: Model;
let context: Context;

beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-bpe" }));
  context = await model.createContext({ contextSize: 512, threads: 1 });
});

afterAll(() => {
  setGrammarCacheLimit(DEFAULT_LIMIT);
  model?.dispose();
});

async function run(ctx: Context, grammar: GrammarOptions, seed: number): Promise<number[]> {
  const generation = ctx.generate({
    prompt: "Answer:",
    maxTokens: 48,
    grammar,
    sampling: { seed, temperature: 1.5, topK: 0, topP: 1, minP: 0 },
  });
  const tokens: number[] = [];
  for await (const chunk of generation) tokens.push(chunk.token);
  return tokens;
}

/** What a fresh compile gives: the same run with the cache off. */
async function uncached(ctx: Context, grammar: GrammarOptions, seed: number): Promise<number[]> {
  setGrammarCacheLimit(0);
  try {
    return await run(ctx, grammar, seed);
  } finally {
    setGrammarCacheLimit(DEFAULT_LIMIT);
  }
}

function delta<K extends keyof ReturnType<typeof grammarCacheStats>>(
  before: ReturnType<typeof grammarCacheStats>,
  key: K,
): number {
  return grammarCacheStats()[key] - before[key];
}

describe("compiled-grammar cache", () => {
  test("the same grammar again: one compile, the same tokens as a cold compile", async () => {
    const grammar = { gbnf: JSONISH };
    const reference = [await uncached(context, grammar, 1), await uncached(context, grammar, 2)];
    clearGrammarCache();
    const before = grammarCacheStats();
    const first = await run(context, grammar, 1);
    expect(delta(before, "misses")).toBe(1);
    expect(delta(before, "hits")).toBe(0);
    const second = await run(context, grammar, 1);
    const third = await run(context, grammar, 2);
    expect(delta(before, "hits")).toBe(2);
    expect(delta(before, "misses")).toBe(1);
    // (Warm engines are counted by the tool test below: here a sampler is freed when its last
    // native step lets go of it, which may be after the next request has started.)
    expect(grammarCacheStats().entries).toBe(1);
    expect(first).toEqual(reference[0]);
    expect(second).toEqual(reference[0]);
    expect(third).toEqual(reference[1]);
  });

  const VARIANTS: Array<{ name: string; grammar: GrammarOptions }> = [
    { name: "another root", grammar: { gbnf: JSONISH, root: "other" } },
    {
      name: "lazy, one trigger pattern",
      grammar: { gbnf: JSONISH, lazy: { patterns: ["^[\\s\\S]*?(\\{)[\\s\\S]*"] } },
    },
    {
      name: "lazy, another trigger pattern",
      grammar: { gbnf: JSONISH, lazy: { patterns: ["^[\\s\\S]*?(\\{ )[\\s\\S]*"] } },
    },
    { name: "lazy, a trigger token", grammar: { gbnf: JSONISH, lazy: { tokens: [90] } } },
    { name: "one more space in the text", grammar: { gbnf: `${JSONISH} ` } },
  ];

  test("grammars that differ in root, lazy triggers or text never share an entry", async () => {
    // Turning the cache off empties it: the cold references come first.
    const reference: number[][] = [];
    for (const v of VARIANTS) reference.push(await uncached(context, v.grammar, 3));
    clearGrammarCache();
    await run(context, { gbnf: JSONISH }, 1);
    const before = grammarCacheStats();
    for (const [i, v] of VARIANTS.entries()) {
      await run(context, v.grammar, 1);
      expect(delta(before, "misses"), v.name).toBe(i + 1);
      expect(delta(before, "hits"), v.name).toBe(0);
      expect(grammarCacheStats().entries, v.name).toBe(i + 2);
    }
    // Each is found again under its own key, with its own tokens.
    for (const [i, v] of VARIANTS.entries()) expect(await run(context, v.grammar, 3), v.name).toEqual(reference[i]);
    expect(delta(before, "hits")).toBe(VARIANTS.length);
  });

  test("another vocabulary compiles its own entry, and disposing its model drops it", async () => {
    const other = await loadModel(await ensureTestModel({ vocab: "llama-spm" }));
    try {
      const ctx = await other.createContext({ contextSize: 512, threads: 1 });
      const reference = await uncached(ctx, { gbnf: JSONISH }, 1);
      clearGrammarCache();
      await run(context, { gbnf: JSONISH }, 1);
      const before = grammarCacheStats();
      expect(await run(ctx, { gbnf: JSONISH }, 1)).toEqual(reference);
      expect(delta(before, "misses")).toBe(1);
      expect(delta(before, "hits")).toBe(0);
      expect(grammarCacheStats().entries).toBe(2);
      ctx.dispose();
    } finally {
      other.dispose();
    }
    expect(grammarCacheStats().entries).toBe(1);
    // The first model's entry is still there.
    const before = grammarCacheStats();
    await run(context, { gbnf: JSONISH }, 1);
    expect(delta(before, "hits")).toBe(1);
  });

  test("two contexts generating with one grammar at once give the tokens of cold compiles", async () => {
    const second = await model.createContext({ contextSize: 512, threads: 1 });
    try {
      const grammar = { gbnf: JSONISH };
      const seeds = [11, 12, 13, 14];
      const reference: number[][] = [];
      for (const s of seeds) reference.push(await uncached(context, grammar, s));
      clearGrammarCache();
      const before = grammarCacheStats();
      for (let round = 0; round < 2; round++) {
        const [a, b] = await Promise.all([
          (async () => [await run(context, grammar, seeds[0]!), await run(context, grammar, seeds[1]!)])(),
          (async () => [await run(second, grammar, seeds[2]!), await run(second, grammar, seeds[3]!)])(),
        ]);
        expect([...a!, ...b!]).toEqual([reference[0], reference[1], reference[2], reference[3]]);
      }
      expect(delta(before, "misses") + delta(before, "hits")).toBe(8);
      expect(delta(before, "misses")).toBeLessThanOrEqual(2);
      expect(grammarCacheStats().entries).toBe(1);
    } finally {
      second.dispose();
    }
  });

  test("the byte budget: 0 turns the cache off, a small one evicts, bad values are refused", async () => {
    clearGrammarCache();
    setGrammarCacheLimit(0);
    try {
      const before = grammarCacheStats();
      await run(context, { gbnf: JSONISH }, 1);
      await run(context, { gbnf: JSONISH }, 1);
      expect(delta(before, "misses")).toBe(2);
      expect(grammarCacheStats()).toMatchObject({ entries: 0, maxBytes: 0 });
      // A small budget: older grammars go, the newest stays, the total stays within it.
      const limit = 64 * 1024;
      setGrammarCacheLimit(limit);
      const grammars = Array.from({ length: 12 }, (_, i) => ({ gbnf: `${JSONISH}\nextra${i} ::= "x"{1,${i + 2}}\n` }));
      for (const g of grammars) {
        await run(context, g, 1);
        expect(grammarCacheStats().bytes).toBeLessThanOrEqual(limit);
      }
      expect(grammarCacheStats().evictions).toBeGreaterThan(0);
      expect(grammarCacheStats().entries).toBeGreaterThan(0);
      expect(grammarCacheStats().entries).toBeLessThan(grammars.length);
      const hits = grammarCacheStats().hits;
      await run(context, grammars.at(-1)!, 1);
      expect(grammarCacheStats().hits).toBe(hits + 1);
    } finally {
      setGrammarCacheLimit(DEFAULT_LIMIT);
    }
    expect(grammarCacheStats().maxBytes).toBe(DEFAULT_LIMIT);
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => setGrammarCacheLimit(bad)).toThrow(RangeError);
    for (const bad of ["1", undefined, null])
      expect(() => setGrammarCacheLimit(bad as unknown as number)).toThrow(TypeError);
  });
});

describe("chat requests that repeat their tools", () => {
  test("the second request compiles no grammar and gives the same answer", async () => {
    const chatModel = await loadModel(
      await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" }),
    );
    try {
      // A new tools array each time, as a server parses each request's body anew.
      const tools = () => [
        {
          type: "function" as const,
          function: {
            name: "get_weather",
            parameters: { type: "object", properties: { city: { type: "string", maxLength: 12 } }, required: ["city"] },
          },
        },
      ];
      const ask = () =>
        chatModel.chat({
          messages: [{ role: "user", content: "Weather in Paris?" }],
          tools: tools(),
          toolChoice: "required",
          maxTokens: 40,
          sampling: { seed: 5 },
        });
      setGrammarCacheLimit(0);
      const reference = await ask();
      setGrammarCacheLimit(DEFAULT_LIMIT);
      const before = grammarCacheStats();
      const first = await ask();
      const second = await ask();
      expect(delta(before, "misses")).toBe(1);
      expect(delta(before, "hits")).toBe(1);
      // Call ids are random; the rest of the message is what the grammar and sampler made.
      const made = (r: typeof first) => ({
        content: r.message.content,
        calls: r.message.tool_calls?.map((c) => c.function),
      });
      expect(made(second)).toEqual(made(first));
      expect(made(first)).toEqual(made(reference));
      expect(first.message.tool_calls?.[0]?.function.name).toBe("get_weather");
    } finally {
      chatModel.dispose();
    }
  });
});

describe("compiled-grammar cache, mask by mask (toolwright-grammar-tool cache)", () => {
  interface CacheResult {
    cases: number;
    skipped: number;
    mismatches: number;
    thread_mismatches: number;
    hits: number;
    misses: number;
    warm_engines: number;
    evictions: number;
    first_masks_active: number;
    first_masks_cached: number;
  }
  test.each(["llama-bpe", "qwen2"])(
    "warm masks equal cold ones at every step, from 4 threads at once too (%s)",
    async (vocab) => {
      const { code, result } = await runGrammarTool<CacheResult>([
        "cache",
        "--vocab",
        vocabPath(vocab),
        "--threads",
        "4",
        "--walk-steps",
        "24",
        GBNF_FIXTURES,
        LLAMA_GRAMMARS,
      ]);
      expect(result.cases).toBeGreaterThan(10);
      expect(result.mismatches).toBe(0);
      expect(result.thread_mismatches).toBe(0);
      expect(code).toBe(0);
      // Per grammar: one compile, then the warm run and the 4 threads hit (the warm run gets the
      // engine the cold one gave back); each thread's commented copy is compiled once.
      expect(result.misses).toBe(result.cases + result.skipped + result.cases * 4);
      expect(result.hits).toBe(result.cases * 5);
      expect(result.warm_engines).toBeGreaterThanOrEqual(result.cases);
    },
  );

  test("a new grammar's first masks are computed off the compiling thread: awaited, each is cached", async () => {
    // As when a prompt takes longer to decode than the warm-up: the cold sampler waits for it.
    const { code, result } = await runGrammarTool<CacheResult>([
      "cache",
      "--vocab",
      vocabPath("llama-bpe"),
      "--await-warmup",
      "--walk-steps",
      "24",
      GBNF_FIXTURES,
      LLAMA_GRAMMARS,
    ]);
    expect(result.cases).toBeGreaterThan(10);
    expect(result.mismatches).toBe(0);
    expect(code).toBe(0);
    expect(result.first_masks_active).toBeGreaterThan(10);
    expect(result.first_masks_cached).toBe(result.first_masks_active);
  });

  test("under a budget too small for most grammars, from 4 threads: evicted or not kept, same masks", async () => {
    const { code, result } = await runGrammarTool<CacheResult>([
      "cache",
      "--vocab",
      vocabPath("llama-bpe"),
      "--threads",
      "4",
      "--cache-bytes",
      "20000",
      GBNF_FIXTURES,
      LLAMA_GRAMMARS,
    ]);
    expect(result.mismatches).toBe(0);
    expect(result.thread_mismatches).toBe(0);
    expect(code).toBe(0);
    // Grammars over half the budget are not kept (their warm run and threads compile again); the
    // threads' copies evict one another.
    expect(result.misses).toBeGreaterThan(result.cases + result.skipped);
    expect(result.evictions).toBeGreaterThan(0);
    expect(result.hits + result.misses).toBe(result.cases + result.skipped + result.cases * 9);
  });
});
