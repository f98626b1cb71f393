/**
 * A required call and a finite maxTokens (tiny random-weight models, qwen2 vocabulary): reasoning
 * that never ends (random weights never write </think>) is closed early enough that the call's
 * grammar still has the tokens of the shortest call, and a maxTokens that cannot hold even that
 * fails before any token is generated.
 *
 * Random weights write calls far longer than the shortest (free whitespace, one character per
 * token), so the call they start in that room is mostly cut: what these tests check is that the
 * output leaves reasoning and reaches the call, where without the room it would be reasoning only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatSession, loadModel, type ChatModel } from "../../src/session/index.js";
import type { ChatOptions, ChatResult } from "../../src/session/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

const ping = {
  type: "function" as const,
  function: { name: "ping", parameters: { type: "object", properties: {}, additionalProperties: false } },
};
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

let qwen3Model: ChatModel;
let r1Model: ChatModel;
/** Qwen3: the model may open <think> itself (the grammar allows an optional reasoning block). */
let qwen3: ChatSession;
/** DeepSeek R1: the prompt opens <think>: every output starts inside reasoning. */
let r1: ChatSession;
beforeAll(async () => {
  qwen3Model = await loadModel(await ensureTestModel({ vocab: "qwen2", template: "Qwen-Qwen3-0.6B" }));
  r1Model = await loadModel(
    await ensureTestModel({ vocab: "qwen2", template: "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B" }),
  );
  qwen3 = new ChatSession(qwen3Model, { context: { threads: 1 } });
  r1 = new ChatSession(r1Model, { context: { threads: 1 } });
});
afterAll(() => {
  qwen3?.dispose();
  r1?.dispose();
  qwen3Model?.dispose();
  r1Model?.dispose();
});

const request = (maxTokens: number, seed = 1): ChatOptions => ({
  messages: [{ role: "user", content: "Ping?" }],
  tools: [ping],
  toolChoice: "required",
  enableThinking: true,
  maxTokens,
  sampling: { seed },
});

/** The tokens of the shortest call, as the up-front error names them. */
async function shortestCall(session: ChatSession): Promise<number> {
  const error = await session.chat(request(1)).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RangeError);
  const needed = /takes (\d+) tokens/.exec((error as Error).message);
  expect(needed, (error as Error).message).not.toBeNull();
  return Number(needed![1]);
}

/** The output left reasoning and went on to the call: a call, or the text of the call it started. */
const reachedTheCall = (r: ChatResult) => (r.message.tool_calls?.length ?? 0) > 0 || (r.message.content ?? "") !== "";

describe("a maxTokens too small for the required call", () => {
  it("fails up front, naming maxTokens, the tokens needed and the tool", async () => {
    const needed = await shortestCall(qwen3);
    expect(needed).toBeGreaterThan(3);
    await expect(qwen3.chat(request(3))).rejects.toThrow(
      new RegExp(`^chat: options\\.maxTokens \\(3\\) has no room for a tool call: .* takes ${needed} tokens$`),
    );
    const named = { ...request(needed - 1), toolChoice: { type: "function" as const, function: { name: "ping" } } };
    await expect(qwen3.chat(named)).rejects.toThrow(/maxTokens \(\d+\) has no room for a call to ping/);
    // streamChat fails the same way, before any chunk.
    const chunks: unknown[] = [];
    const read = async () => {
      for await (const c of qwen3.streamChat(request(needed - 1))) chunks.push(c);
    };
    await expect(read()).rejects.toThrow(RangeError);
    expect(chunks).toEqual([]);
    // Exactly the shortest call's tokens is enough to try.
    const r = await qwen3.chat(request(needed));
    expect(reachedTheCall(r)).toBe(true);
  });
});

describe("reasoning that never ends under a required call", () => {
  it("model-opened: closed in time, and the call follows it", async () => {
    let reasoned = 0;
    for (const seed of SEEDS) {
      const r = await qwen3.chat(request(64, seed));
      if (r.message.reasoning_content) reasoned++;
      // Without the room, a seed that opens reasoning spends all 64 tokens in it.
      expect(reachedTheCall(r), JSON.stringify(r.message)).toBe(true);
    }
    // Random weights open <think> for some seeds.
    expect(reasoned).toBeGreaterThan(0);
  });

  it("model-opened, no room even for the opener: the call's grammar from the first token", async () => {
    const needed = await shortestCall(qwen3);
    for (const seed of SEEDS) {
      const r = await qwen3.chat(request(needed, seed));
      expect(r.message.reasoning_content ?? "").toBe("");
      expect(reachedTheCall(r), JSON.stringify(r.message)).toBe(true);
    }
  });

  it("forced open: reasoning gets what the call leaves, then the call follows", async () => {
    const needed = await shortestCall(r1);
    for (const seed of SEEDS.slice(0, 4)) {
      const r = await r1.chat(request(needed + 2, seed));
      // 2 sampled tokens of reasoning (their text tokenized again may split further): without the
      // room, all of maxTokens.
      expect(r1Model.tokenize(r.message.reasoning_content ?? "", { addSpecial: false }).length).toBeLessThanOrEqual(4);
      expect(reachedTheCall(r), JSON.stringify(r.message)).toBe(true);
      const longer = await r1.chat(request(needed + 48, seed));
      expect((longer.message.reasoning_content ?? "").length).toBeGreaterThan(0);
      expect(reachedTheCall(longer), JSON.stringify(longer.message)).toBe(true);
    }
  });
});
