/**
 * Context size and long conversations through model.chat() on a tiny random-weight model: the
 * contextSize option (a new size means a new context, the same size keeps the cache), the
 * automatic size, the training-context check, and a conversation that outgrows a small context:
 * a ContextOverflowError by default, the oldest turns left out with "truncate-oldest" (tool
 * calls kept with their results, the system prompt kept), on model.chat and on a ChatSession.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatSession, ContextOverflowError, loadModel, type ChatModel } from "../../src/index.js";
import type { ChatMessage } from "../../src/types.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: ChatModel;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template: "Qwen-Qwen3-0.6B" }), { gpu: false });
});
afterAll(() => model?.dispose());

const user = (content: string): ChatMessage => ({ role: "user", content });
const assistant = (content: string): ChatMessage => ({ role: "assistant", content });
const system: ChatMessage = { role: "system", content: "You are a terse assistant." };
/** A conversation of `turns` long question/answer pairs, then a short last question. */
function longConversation(turns: number): ChatMessage[] {
  const out: ChatMessage[] = [system];
  for (let i = 0; i < turns; i++)
    out.push(
      user(`Question ${i}: ${"tell me more about the weather ".repeat(6)}`),
      assistant(`Answer ${i}: ${"it is sunny and warm ".repeat(6)}`),
    );
  out.push(user("And tomorrow?"));
  return out;
}
const SMALL = 512;
const GREEDY = { greedy: true } as const;

describe("contextSize", () => {
  it("the same size keeps the cache (the prefix is reused); another size starts a new context", async () => {
    const messages = [user("Hello there, how are you doing today?")];
    await model.chat({ messages, maxTokens: 2, sampling: GREEDY, contextSize: 1024 });
    const same = await model.chat({ messages, maxTokens: 2, sampling: GREEDY, contextSize: 1024 });
    expect(same.usage.cachedPromptTokens).toBe(same.usage.promptTokens - 1);
    const unchanged = await model.chat({ messages, maxTokens: 2, sampling: GREEDY });
    expect(unchanged.usage.cachedPromptTokens).toBe(unchanged.usage.promptTokens - 1);
    const other = await model.chat({ messages, maxTokens: 2, sampling: GREEDY, contextSize: 2048 });
    expect(other.usage.cachedPromptTokens).toBe(0);
  });

  it("beyond the training context: a RangeError; chat's or the session's allowBeyondTraining allows it", async () => {
    const train = model.info.trainContextSize;
    await expect(model.chat({ messages: [user("Hi")], maxTokens: 1, contextSize: train * 2 })).rejects.toThrow(
      new RegExp(`exceeds the model's training context \\(${train} tokens\\).*Pass allowBeyondTraining`),
    );
    // The option the error suggests is one of chat()'s.
    const beyond = await model.chat({
      messages: [user("Hi")],
      maxTokens: 1,
      contextSize: train * 2,
      allowBeyondTraining: true,
    });
    expect(beyond.finishReason).toBeDefined();
    await expect(model.chat({ messages: [user("Hi")], allowBeyondTraining: "yes" as never })).rejects.toThrow(
      /chat: options\.allowBeyondTraining must be a boolean/,
    );
    const session = new ChatSession(model, { context: { allowBeyondTraining: true, threads: 1 } });
    const r = await session.chat({ messages: [user("Hi")], maxTokens: 1, contextSize: train * 2 });
    expect(r.finishReason).toBeDefined();
    session.dispose();
  });
});

describe("a conversation that outgrows the context", () => {
  it("by default: a ContextOverflowError naming the tokens needed, the context size and what to change", async () => {
    const messages = longConversation(12);
    const err = await model.chat({ messages, maxTokens: 4, contextSize: SMALL }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContextOverflowError);
    const e = err as ContextOverflowError;
    expect(e.code).toBe("TOOLWRIGHT_CONTEXT_OVERFLOW");
    expect(e.contextSize).toBe(SMALL);
    expect(e.needed).toBeGreaterThan(SMALL);
    expect(e.message).toContain(`the prompt needs ${e.needed} tokens`);
    expect(e.message).toMatch(
      /larger contextSize \(the model was trained for 4096\).*contextOverflow: "truncate-oldest"/,
    );
    // The same conversation fits a larger context.
    const r = await model.chat({ messages, maxTokens: 4, contextSize: 4096, sampling: GREEDY });
    expect(r.droppedMessages).toBe(0);
    expect(r.usage.promptTokens).toBe(e.needed - 1);
  });

  it('"truncate-oldest": drops whole old turns until the prompt fits with room to answer, and answers', async () => {
    const messages = longConversation(12);
    const r = await model.chat({
      messages,
      maxTokens: 8,
      contextSize: SMALL,
      contextOverflow: "truncate-oldest",
      sampling: GREEDY,
    });
    expect(r.droppedMessages).toBeGreaterThan(0);
    expect(r.droppedMessages % 2).toBe(0); // question/answer pairs
    expect(r.usage.promptTokens).toBeLessThanOrEqual(SMALL - Math.min(8, SMALL / 4));
    expect(r.usage.completionTokens).toBeGreaterThan(0);
    // The prompt is the conversation without its oldest turns: rendering that alone gives the same count.
    const kept = [system, ...messages.slice(1 + r.droppedMessages)];
    const again = await model.chat({ messages: kept, maxTokens: 1, contextSize: SMALL, sampling: GREEDY });
    expect(again.droppedMessages).toBe(0);
    expect(again.usage.promptTokens).toBe(r.usage.promptTokens);
  });

  it('"truncate-oldest" keeps a tool call with its results, and the ChatSession option sets the default', async () => {
    const call = (id: string): ChatMessage => ({
      role: "assistant",
      content: "",
      tool_calls: [{ id, type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
    });
    const messages: ChatMessage[] = [system];
    for (let i = 0; i < 8; i++) {
      messages.push(
        user(`Question ${i}: ${"what is the weather ".repeat(8)}`),
        call(`call_${i}`),
        { role: "tool", tool_call_id: `call_${i}`, content: `{"temperature": ${i}, "sky": "clear"}` },
        assistant(`It is ${i} degrees. ${"sunny ".repeat(8)}`),
      );
    }
    messages.push(user("Thanks."));
    const session = new ChatSession(model, { contextOverflow: "truncate-oldest", context: { threads: 1 } });
    const r = await session.chat({ messages, maxTokens: 4, contextSize: SMALL, sampling: GREEDY });
    expect(r.droppedMessages).toBeGreaterThan(0);
    expect(r.droppedMessages % 4).toBe(0); // user, call, result, answer: a tool round goes whole
    await expect(
      session.chat({ messages, maxTokens: 4, contextSize: SMALL, contextOverflow: "error" }),
    ).rejects.toBeInstanceOf(ContextOverflowError);
    session.dispose();
  });

  it('"truncate-oldest" when the latest turn alone does not fit: the error says so', async () => {
    const messages = [system, user("old"), assistant("old"), user("word ".repeat(600))];
    const err = await model
      .chat({ messages, maxTokens: 4, contextSize: SMALL, contextOverflow: "truncate-oldest" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContextOverflowError);
    expect((err as Error).message).toMatch(/latest turn alone do not fit/);
  });

  it("streamChat fails the same way", async () => {
    const stream = model.streamChat({ messages: longConversation(12), maxTokens: 4, contextSize: SMALL });
    const read = async () => {
      for await (const _ of stream) {
        // nothing arrives before the check
      }
    };
    await expect(read()).rejects.toBeInstanceOf(ContextOverflowError);
    await expect(stream.result).rejects.toBeInstanceOf(ContextOverflowError);
  });
});
