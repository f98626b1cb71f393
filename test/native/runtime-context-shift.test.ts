/**
 * Context shift (`generate({ contextShift: true })`, native/batch_shift.cc) on tiny random-weight
 * models: a prompt that is a sequence's cache with one span removed keeps the cached rest (moved
 * down) and evaluates only what follows it; anything else, or a model whose cache cannot move
 * positions (recurrent), takes the prefix path. Shifted output differs from a fresh evaluation (the
 * moved K cache saw the dropped span), so the tests assert what was evaluated and kept, not tokens.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, type Generation, loadModel, type Model } from "../../src/index.js";
import { convertTestModel, GEMMA2, writeMambaModel } from "../helpers/arch-variants.js";
import { ensureTestModel, vocabPath } from "../helpers/test-models.js";

const dir = mkdtempSync(join(tmpdir(), "tw-shift-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GREEDY = { greedy: true } as const;
const HEAD = "System: you are a terse assistant who answers every question in one short line.\n";
const OLD = "User: tell me about the old days of the river town and the mills along it.\n";
const KEPT = "User: and what happened to the bridge over the river after the great flood of that spring?\n";
const NEW = "User: thanks, one more thing.\n";

let model: Model;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm" }));
});
afterAll(() => model?.dispose());

const tok = (text: string) => Array.from(model.tokenize(text, { addSpecial: false }));

async function run(generation: Generation): Promise<Generation> {
  await generation.text();
  return generation;
}

function commonPrefix(a: number[], b: number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** Evaluates `tokens` into the context's cache (nothing generated, so the cache holds exactly them). */
async function prefill(context: Context, tokens: number[]): Promise<void> {
  const g = await run(context.generate({ tokens, maxTokens: 0, sampling: GREEDY }));
  expect(g.stats.promptTokensEvaluated).toBe(tokens.length);
}

describe("context shift on a transformer", () => {
  const parts = () => ({ head: tok(HEAD), old: tok(OLD), kept: tok(KEPT), next: tok(NEW) });

  test.each([1, 4])(
    "the cache minus a span keeps the rest: only the new tail is evaluated (%i sequences)",
    async (sequences) => {
      await using context = await model.createContext({ contextSize: 512, threads: 1, sequences });
      const { head, old, kept, next } = parts();
      // Another conversation on another sequence: the shifted request still finds its own cache.
      if (sequences > 1) await prefill(context, tok("A different conversation on another sequence entirely."));
      await prefill(context, [...head, ...old, ...kept]);
      const before = context.stats;
      const prompt = [...head, ...kept, ...next];
      const g = await run(context.generate({ tokens: prompt, maxTokens: 4, sampling: GREEDY, contextShift: true }));
      // Both turns start with "User:": those tokens are the shared prefix, the rest of `kept` is shifted.
      const shared = commonPrefix(old, kept);
      expect(g.stats).toMatchObject({
        promptTokens: prompt.length,
        promptTokensReused: head.length + kept.length,
        promptTokensShifted: kept.length - shared,
        promptTokensEvaluated: next.length,
      });
      expect(context.stats.promptTokensShifted - before.promptTokensShifted).toBe(kept.length - shared);
      expect(g.stopReason).toBe("maxTokens");
      // The cache holds the shifted prompt and what the reader took: the next turn continues it.
      const follow = [...prompt, ...(await generatedTokens(context, prompt)), ...next];
      const h = await run(context.generate({ tokens: follow, maxTokens: 2, sampling: GREEDY, contextShift: true }));
      expect(h.stats.promptTokensShifted).toBe(0);
      expect(h.stats.promptTokensEvaluated).toBeLessThanOrEqual(next.length + 4);
    },
  );

  test("a request placed beside a running one starts from a copy of the sequence it shifts", async () => {
    await using context = await model.createContext({ contextSize: 1024, threads: 1, sequences: 4 });
    const { head, old, kept, next } = parts();
    // The conversation on sequence 0, other prompts on 1 and 2, and a request running on 3.
    const on = async (tokens: number[]) =>
      (await run(context.generate({ tokens, maxTokens: 0, sampling: GREEDY }))).stats.sequence;
    expect(await on([...head, ...old, ...kept])).toBe(0);
    expect(await on(tok("Another conversation about something else entirely, on its own."))).toBe(1);
    expect(await on(tok("A third conversation, about cooking dinner for many guests tonight."))).toBe(2);
    const running = context.generate({ prompt: "Once upon a time", maxTokens: 48, sampling: GREEDY });
    const reader = running[Symbol.asyncIterator]();
    await reader.next(); // started: its sequence stays taken while it runs
    expect(running.stats.sequence).toBe(3);
    // Sequence 2 is beside the running one (one micro-batch): the request goes there, from a copy of 0.
    const prompt = [...head, ...kept, ...next];
    const g = await run(context.generate({ tokens: prompt, maxTokens: 4, sampling: GREEDY, contextShift: true }));
    expect(g.stats.sequence).toBe(2);
    expect(g.stats.promptTokensShifted).toBe(kept.length - commonPrefix(old, kept));
    expect(g.stats.promptTokensEvaluated).toBe(next.length);
    for (let r = await reader.next(); !r.done; r = await reader.next());
    expect(running.stopReason).toBe("maxTokens");
  });

  /** The tokens a greedy run of `prompt` writes after it on this context's state (the prefix path). */
  async function generatedTokens(context: Context, prompt: number[]): Promise<number[]> {
    const g = context.generate({ tokens: prompt, maxTokens: 4, sampling: GREEDY });
    const out: number[] = [];
    for await (const chunk of g) out.push(chunk.token);
    expect(g.stats.promptTokensEvaluated).toBe(1);
    return out;
  }

  // Prompts that are not the cache minus one span, or requests that do not allow a shift: the prefix path.
  const FALLBACKS: { name: string; prompt: (p: ReturnType<typeof parts>) => number[]; shift: boolean }[] = [
    { name: "contextShift off", prompt: (p) => [...p.head, ...p.kept, ...p.next], shift: false },
    { name: "the kept tail changed", prompt: (p) => [...p.head, ...p.kept.slice(0, 5), ...p.next], shift: true },
    { name: "a tail shorter than 16 tokens", prompt: (p) => [...p.head, ...p.kept.slice(-10), ...p.next], shift: true },
    { name: "the tail moved ahead of another span", prompt: (p) => [...p.head, ...p.next, ...p.old], shift: true },
  ];

  test.each(FALLBACKS)("$name: evaluated after the shared prefix, nothing shifted", async ({ prompt, shift }) => {
    await using context = await model.createContext({ contextSize: 512, threads: 1 });
    const p = parts();
    await prefill(context, [...p.head, ...p.old, ...p.kept]);
    const tokens = prompt(p);
    const g = await run(context.generate({ tokens, maxTokens: 2, sampling: GREEDY, contextShift: shift }));
    expect(g.stats.promptTokensShifted).toBe(0);
    expect(g.stats.promptTokensReused).toBeGreaterThanOrEqual(p.head.length);
    expect(g.stats.promptTokensReused).toBeLessThan(p.head.length + 5);
    expect(g.stats.promptTokensEvaluated).toBe(tokens.length - g.stats.promptTokensReused);
  });

  test("a long conversation over a small context shifts turn after turn and never fills it", async () => {
    await using context = await model.createContext({ contextSize: 256, threads: 1 });
    const head = tok(HEAD);
    const turns: number[][] = [];
    let shifts = 0;
    for (let i = 0; i < 24; i++) {
      turns.push(tok(`User: question number ${i} about the river, the bridge and the mills?\n`));
      // Drop the oldest turns until the prompt leaves room to answer (as chat()'s truncate-oldest does).
      while (head.length + turns.flat().length + 16 > 256) turns.shift();
      const prompt = [...head, ...turns.flat()];
      const g = context.generate({ tokens: prompt, maxTokens: 8, sampling: GREEDY, contextShift: true });
      const answer: number[] = [];
      for await (const chunk of g) answer.push(chunk.token);
      expect(g.stopReason === "maxTokens" || g.stopReason === "eog").toBe(true);
      expect(g.stats.promptTokensEvaluated).toBe(prompt.length - g.stats.promptTokensReused);
      if (g.stats.promptTokensShifted > 0) {
        shifts++;
        // Only the new turn (and the answer the prompt does not repeat) is evaluated, not the kept turns.
        expect(g.stats.promptTokensEvaluated).toBeLessThanOrEqual(turns.at(-1)!.length);
      }
      expect(context.size).toBeLessThanOrEqual(256);
    }
    expect(shifts).toBeGreaterThan(5);
  });
});

describe("context shift on a sliding-window model (gemma2; contexts keep full-size window caches)", () => {
  test("shifts like a transformer, and the next turn continues the shifted cache", async () => {
    const path = join(dir, "gemma2.gguf");
    await convertTestModel(await ensureTestModel({ vocab: "llama-spm" }), path, GEMMA2(32));
    await using gemma = await loadModel(path);
    const gtok = (text: string) => Array.from(gemma.tokenize(text, { addSpecial: false }));
    const [head, old, kept, next] = [HEAD, OLD, KEPT, NEW].map(gtok) as [number[], number[], number[], number[]];
    await using context = await gemma.createContext({ contextSize: 512, threads: 1 });
    await run(context.generate({ tokens: [...head, ...old, ...kept], maxTokens: 0, sampling: GREEDY }));
    const prompt = [...head, ...kept, ...next];
    const g = await run(context.generate({ tokens: prompt, maxTokens: 4, sampling: GREEDY, contextShift: true }));
    expect(g.stats.promptTokensShifted).toBe(kept.length - commonPrefix(old, kept));
    expect(g.stats.promptTokensEvaluated).toBe(next.length);
    const h = await run(context.generate({ tokens: [...prompt, ...next], maxTokens: 2, sampling: GREEDY }));
    expect(h.stats.promptTokensReused).toBeGreaterThanOrEqual(prompt.length - 1);
  });
});

describe("context shift on a recurrent model", () => {
  let mamba: Model;
  beforeAll(async () => {
    const path = join(dir, "mamba.gguf");
    await writeMambaModel(vocabPath("llama-spm"), path, { embeddingLength: 64, layers: 2, seed: 7 });
    mamba = await loadModel(path);
  });
  afterAll(() => mamba?.dispose());

  test("falls back to evaluating the prompt, with the tokens of a fresh context", async () => {
    const mtok = (text: string) => Array.from(mamba.tokenize(text, { addSpecial: false }));
    const [head, old, kept, next] = [HEAD, OLD, KEPT, NEW].map(mtok) as [number[], number[], number[], number[]];
    const prompt = [...head, ...kept, ...next];
    const greedy = async (context: Context, tokens: number[], contextShift: boolean) => {
      const g = context.generate({ tokens, maxTokens: 6, sampling: GREEDY, contextShift });
      const out: number[] = [];
      for await (const chunk of g) out.push(chunk.token);
      return { out, stats: g.stats };
    };
    await using fresh = await mamba.createContext({ contextSize: 512, threads: 1 });
    const expected = await greedy(fresh, prompt, false);
    await using context = await mamba.createContext({ contextSize: 512, threads: 1 });
    await greedy(context, [...head, ...old, ...kept], false);
    const shifted = await greedy(context, prompt, true);
    expect(shifted.stats.promptTokensShifted).toBe(0);
    expect(shifted.stats.promptTokensEvaluated).toBe(prompt.length);
    expect(shifted.out).toEqual(expected.out);
  });
});
