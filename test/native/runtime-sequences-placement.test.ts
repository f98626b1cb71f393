/**
 * Where a parallel context's batch scheduler (native/batch_scheduler.h) places requests: next to
 * the running ones, so the running sequences stay on consecutive sequence ids (llama.cpp decodes
 * a batch over per-sequence caches in one micro-batch per run of consecutive ids), filling a gap
 * a finished request left, and otherwise on the least recently used sequence. A conversation
 * moved next to the running ones takes its cached prefix along (a copy), and every placement
 * gives the tokens each request gives alone.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, type Generation, loadModel, type Model } from "../../src/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: Model;

// One thread: the suite runs two test files at once on two cores.
const CONTEXT = { contextSize: 1024, threads: 1, sequences: 6 } as const;
const GREEDY = { greedy: true } as const;

beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm" }));
});

afterAll(() => model?.dispose());

const PROMPTS = [
  "Once upon a time",
  "The weather today is",
  "Dear diary,",
  "In the beginning",
  "Lists:",
  "Numbers 1 2 3",
  "Hello world",
];

async function tokensOf(generation: Generation): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of generation) out.push(chunk.token);
  return out;
}

/**
 * A running generation, its first token taken: it holds its sequence (paused by its reader once
 * READ_AHEAD tokens ahead, before maxTokens) until read on or ended.
 */
async function started(context: Context, prompt: string, maxTokens: number) {
  const generation = context.generate({ prompt, maxTokens, sampling: GREEDY, reusePrefix: false });
  const it = generation[Symbol.asyncIterator]();
  const first = await it.next();
  const rest = async () => {
    const out = first.done ? [] : [first.value.token];
    for (let next = await it.next(); !next.done; next = await it.next()) out.push(next.value.token);
    return out;
  };
  /** Ends it early (an abort): its sequence is free once this resolves. */
  const end = async () => void (await it.return?.());
  return { generation, rest, end };
}

describe("requests join next to the running ones", () => {
  test("a request fills the gap a finished one left, where the least recently used sequence lies apart", async () => {
    const context = await model.createContext(CONTEXT);
    try {
      // Seven lone requests on an idle context take the least recently used sequence each: 0..5, then 0.
      const lone: number[][] = [];
      const loneSequences: number[] = [];
      for (const prompt of PROMPTS) {
        const generation = context.generate({ prompt, maxTokens: 24, sampling: GREEDY, reusePrefix: false });
        lone.push(await tokensOf(generation));
        loneSequences.push(generation.stats.sequence);
      }
      expect(loneSequences).toEqual([0, 1, 2, 3, 4, 5, 0]);
      // Least recently used now: 1, 2, 3, 4, 5, 0. a takes 1; b, c, d join next to it.
      const a = await started(context, PROMPTS[0]!, 24);
      const b = await started(context, PROMPTS[1]!, 24);
      const c = await started(context, PROMPTS[2]!, 24);
      const d = await started(context, PROMPTS[3]!, 24);
      expect([a, b, c, d].map((r) => r.generation.stats.sequence)).toEqual([1, 2, 3, 4]);
      await b.end();
      // b has ended: 2 is free between 1 and 3. e takes it, where least recently used would give 5.
      const e = await started(context, PROMPTS[4]!, 24);
      expect(e.generation.stats.sequence).toBe(2);
      const rest = await Promise.all([a.rest(), c.rest(), d.rest(), e.rest()]);
      expect(rest).toEqual([lone[0], lone[2], lone[3], lone[4]]);
    } finally {
      context.dispose();
    }
  });

  test("a continued conversation joins next to the running one and takes its cached prefix along", async () => {
    const context = await model.createContext({ ...CONTEXT, sequences: 4 });
    try {
      const first = Array.from(
        model.tokenize("Conversation A: you are a helpful assistant. Answer briefly and stay on topic, please."),
      );
      const a1 = context.generate({ tokens: first, maxTokens: 4, sampling: GREEDY });
      const reply = await tokensOf(a1);
      const other = context.generate({ prompt: PROMPTS[1]!, maxTokens: 2, sampling: GREEDY });
      await tokensOf(other);
      expect([a1.stats.sequence, other.stats.sequence]).toEqual([0, 1]);
      const running = await started(context, PROMPTS[2]!, 24); // least recently used: 2 (never used)
      expect(running.generation.stats.sequence).toBe(2);
      const continued = [...first, ...reply, ...Array.from(model.tokenize(" And then?", { addSpecial: false }))];
      const a2 = context.generate({ tokens: continued, maxTokens: 12, sampling: GREEDY });
      const a2Tokens = await tokensOf(a2);
      // Sequence 0 holds the conversation but lies apart from 2; 3 joins the run and gets a copy of
      // sequence 0's cache: the prompt and the reply but its last token, which was never decoded.
      expect(a2.stats.sequence).toBe(3);
      expect(a2.stats.promptTokensReused).toBe(first.length + reply.length - 1);
      expect(a2.stats.promptTokensEvaluated).toBe(continued.length - a2.stats.promptTokensReused);
      await running.rest();
      expect(a2Tokens).toEqual(
        await tokensOf(context.generate({ tokens: continued, maxTokens: 12, sampling: GREEDY, reusePrefix: false })),
      );
    } finally {
      context.dispose();
    }
  });

  test("of slots that share only a system prompt, the one that also holds the message start is taken", async () => {
    const context = await model.createContext({ ...CONTEXT, sequences: 3 });
    try {
      const system = "System: answer in one short line.";
      const lone = async (prompt: string) => {
        const generation = context.generate({ prompt: `${system} ${prompt}`, maxTokens: 16, sampling: GREEDY });
        await tokensOf(generation);
        return generation.stats;
      };
      // Empty sequences come first, though each holds less than half of the next prompt's prefix.
      const placed = [await lone("Topic alpha."), await lone("Topic beta."), await lone("Topic gamma.")];
      expect(placed.map((s) => s.sequence)).toEqual([0, 1, 2]);
      // Least recently used is 0, but 1 holds the system prompt and "Topic beta".
      const again = await lone("Topic beta, again.");
      expect(again.sequence).toBe(1);
      const shared = commonPrefix(
        model.tokenize(`${system} Topic beta.`),
        model.tokenize(`${system} Topic beta, again.`),
      );
      expect(again.promptTokensReused).toBe(shared);
      // Only the system prompt in common with every sequence: the least recently used, 0.
      expect((await lone("Something else entirely.")).sequence).toBe(0);
    } finally {
      context.dispose();
    }
  });

  test("a request that starts like the last one takes its sequence, however long the answer held there", async () => {
    const context = await model.createContext({ ...CONTEXT, sequences: 3 });
    try {
      const system = "System: answer in one short line.";
      const lone = async (prompt: string, maxTokens: number) => {
        const generation = context.generate({ prompt: `${system} ${prompt}`, maxTokens, sampling: GREEDY });
        await tokensOf(generation);
        return generation.stats;
      };
      // Short answers everywhere: each sequence holds the system prompt and not much more.
      for (const topic of ["alpha", "beta", "gamma"]) await lone(`Warm-up ${topic}.`, 2);
      const first = await lone("Request 1-0: tell me about topic number 0.", 48);
      expect(first.tokensGenerated).toBe(48);
      // Its answer makes that sequence's cache over twice what it shares with the next prompt; the prompt
      // part is what counts, so it is taken, with its longer prefix.
      const next = await lone("Request 1-1: tell me about topic number 1.", 48);
      expect(next.sequence).toBe(first.sequence);
      const shared = commonPrefix(
        model.tokenize(`${system} Request 1-0: tell me about topic number 0.`),
        model.tokenize(`${system} Request 1-1: tell me about topic number 1.`),
      );
      expect(next.promptTokensReused).toBe(shared);
    } finally {
      context.dispose();
    }
  });
});

function commonPrefix(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}
