/**
 * ChatSession.save / restore on a tiny random-weight chat model: a new session restored from a saved one
 * answers the next turn as the original does while evaluating only the new turn; a state from another
 * model or a damaged file is a SavedStateError, and the session goes on working.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatSession, loadModel, SavedStateError, type ChatModel } from "../../src/index.js";
import type { ChatMessage } from "../../src/types.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: ChatModel;
let dir: string;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template: "Qwen-Qwen3-0.6B" }), { gpu: false });
  dir = mkdtempSync(join(tmpdir(), "toolwright-session-state-"));
});
afterAll(() => {
  model?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const GREEDY = { greedy: true } as const;
const OPTIONS = { context: { contextSize: 1024, threads: 1 } } as const;
const system: ChatMessage = {
  role: "system",
  content: `You are a terse assistant. ${"Follow the house rules. ".repeat(20)}`,
};
const first: ChatMessage[] = [system, { role: "user", content: "Hello there, how are you?" }];

describe("ChatSession.save / restore", () => {
  it("a restored session answers the next turn as the original, evaluating only the new turn", async () => {
    const original = new ChatSession(model, OPTIONS);
    const r1 = await original.chat({ messages: first, maxTokens: 8, sampling: GREEDY });
    const file = join(dir, "chat.state");
    await original.save(file);
    const next: ChatMessage[] = [...first, r1.message, { role: "user", content: "And tomorrow?" }];
    const expected = await original.chat({ messages: next, maxTokens: 8, sampling: GREEDY });
    original.dispose();

    const restored = new ChatSession(model, OPTIONS);
    await restored.restore(file);
    const again = await restored.chat({ messages: next, maxTokens: 8, sampling: GREEDY });
    expect(again.message.content).toBe(expected.message.content);
    expect(again.usage.cachedPromptTokens).toBe(expected.usage.cachedPromptTokens);
    // The first turn's prompt at least (the template may render the answer differently in history).
    expect(again.usage.cachedPromptTokens).toBeGreaterThanOrEqual(r1.usage.promptTokens - 1);
    restored.dispose();
  });

  it("prepare() makes the context before any request: save then works; one that does not fit fails there", async () => {
    const session = new ChatSession(model, OPTIONS);
    await session.prepare();
    const empty = await session.save(join(dir, "prepared.state"));
    expect(empty.tokens).toHaveLength(0);
    const r = await session.chat({ messages: first, maxTokens: 2, sampling: GREEDY });
    expect(r.usage.promptTokens).toBeGreaterThan(0);
    session.dispose();
    const train = model.info.trainContextSize;
    const tooLong = new ChatSession(model, { context: { contextSize: train * 2, threads: 1 } });
    await expect(tooLong.prepare()).rejects.toThrow(/exceeds the model's training context/);
    // The request gets the same error.
    await expect(tooLong.chat({ messages: first, maxTokens: 1 })).rejects.toThrow(/exceeds the model's training/);
  });

  it("save before any request is a RangeError; a damaged or foreign state is a SavedStateError", async () => {
    const session = new ChatSession(model, OPTIONS);
    await expect(session.save(join(dir, "none.state"))).rejects.toThrow(/no request has run/);
    await session.chat({ messages: first, maxTokens: 2, sampling: GREEDY });
    const file = join(dir, "damaged.state");
    await session.save(file);
    writeFileSync(file, readFileSync(file).subarray(0, 64));
    await expect(session.restore(file)).rejects.toBeInstanceOf(SavedStateError);
    await using other = await loadModel(
      await ensureTestModel({ vocab: "llama-spm", seed: 3, template: "Qwen-Qwen3-0.6B" }),
    );
    const foreign = new ChatSession(other, OPTIONS);
    await foreign.chat({ messages: first, maxTokens: 2, sampling: GREEDY });
    await foreign.save(join(dir, "foreign.state"));
    foreign.dispose();
    await expect(session.restore(join(dir, "foreign.state"))).rejects.toMatchObject({
      code: "TOOLWRIGHT_STATE_MISMATCH",
    });
    const after = await session.chat({ messages: first, maxTokens: 2, sampling: GREEDY });
    expect(after.usage.completionTokens).toBeGreaterThan(0);
    session.dispose();
  });
});
