/**
 * A long conversation over a small context with `contextOverflow: "truncate-oldest"` on a tiny
 * random-weight model: once the oldest turns are left out, the turns after them stay in the KV
 * cache by a context shift, so each turn evaluates only its new tail, and `usage` says so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatSession, loadModel, type ChatModel } from "../../src/index.js";
import type { ChatMessage } from "../../src/types.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: ChatModel;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template: "Qwen-Qwen3-0.6B" }), { gpu: false });
});
afterAll(() => model?.dispose());

const SMALL = 512;
const system: ChatMessage = { role: "system", content: "You are a terse assistant." };

describe('"truncate-oldest" shifts the kept turns in the cache', () => {
  it("a long chat keeps working turn after turn, evaluating only each turn's new tail", async () => {
    const session = new ChatSession(model, { contextOverflow: "truncate-oldest", context: { threads: 1 } });
    try {
      const messages: ChatMessage[] = [system];
      let shiftedTurns = 0;
      for (let i = 0; i < 20; i++) {
        messages.push({ role: "user", content: `Question ${i}: ${"what about the weather tomorrow ".repeat(4)}` });
        const r = await session.chat({ messages, maxTokens: 8, contextSize: SMALL, sampling: { greedy: true } });
        const u = r.usage;
        expect(u.cachedPromptTokens + u.evaluatedPromptTokens).toBe(u.promptTokens);
        expect(u.shiftedPromptTokens).toBeLessThanOrEqual(u.cachedPromptTokens);
        expect(u.promptTokens).toBeLessThan(SMALL);
        if (r.droppedMessages > 0) {
          // The kept turns moved in the cache: only the newest question (and the last answer as the
          // template renders it) is evaluated, not the kept conversation.
          expect(u.shiftedPromptTokens).toBeGreaterThan(u.promptTokens / 2);
          expect(u.evaluatedPromptTokens).toBeLessThan(u.promptTokens / 4);
          shiftedTurns++;
        } else {
          expect(u.shiftedPromptTokens).toBe(0);
        }
        messages.push(r.message);
      }
      expect(shiftedTurns).toBeGreaterThan(3);
    } finally {
      session.dispose();
    }
  });

  it('"error" never shifts: a prompt that fits is evaluated after its cached prefix', async () => {
    const session = new ChatSession(model, { context: { threads: 1 } });
    try {
      const messages: ChatMessage[] = [system, { role: "user", content: "Hello there." }];
      const r = await session.chat({ messages, maxTokens: 4, contextSize: SMALL });
      expect(r.usage.shiftedPromptTokens).toBe(0);
      expect(r.usage.evaluatedPromptTokens).toBe(r.usage.promptTokens - r.usage.cachedPromptTokens);
    } finally {
      session.dispose();
    }
  });
});
