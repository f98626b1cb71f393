/**
 * model.chat() / streamChat() end to end on a tiny random-weight model: tool calls under
 * tool_choice required, prefix reuse across turns, abort, the tool runner, streaming, and
 * option validation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type Model } from "../src/runtime/index.js";
import type { ChatTool } from "../src/chat/session/index.js";
import { ensureTestModel } from "./helpers/test-models.js";

const weather: ChatTool = {
  type: "function",
  function: {
    name: "get_weather",
    parameters: {
      type: "object",
      properties: { city: { type: "string", enum: ["Paris", "Oslo"] }, celsius: { type: "boolean" } },
      required: ["city", "celsius"],
      additionalProperties: false,
    },
  },
};

let model: Model;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template: "Qwen-Qwen3-0.6B" }));
});
afterAll(() => model?.dispose());

const user = (content: string) => ({ role: "user" as const, content });

describe("chat()", () => {
  it("makes a tool call that parses under toolChoice required", async () => {
    const r = await model.chat({ messages: [user("Weather in Paris?")], tools: [weather], toolChoice: "required", maxTokens: 64, sampling: { seed: 1 } });
    expect(r.finishReason).toBe("tool_calls");
    const call = r.message.tool_calls![0]!;
    expect(call.function.name).toBe("get_weather");
    const args = JSON.parse(call.function.arguments);
    expect(["Paris", "Oslo"]).toContain(args.city);
    expect(typeof args.celsius).toBe("boolean");
    expect(r.usage.completionTokens).toBeGreaterThan(0);
    expect(r.usage.totalTokens).toBe(r.usage.promptTokens + r.usage.completionTokens);
    expect(r.timings.firstTokenMs).toBeGreaterThan(0);
  });

  it("second turn evaluates only the new suffix", async () => {
    const messages = [user("Hello there, how are you doing today?")];
    const r1 = await model.chat({ messages, maxTokens: 8, sampling: { seed: 2 } });
    const turn2 = [...messages, { role: "assistant" as const, content: "Fine." }, user("Good.")];
    const r2 = await model.chat({ messages: turn2, maxTokens: 4, sampling: { seed: 3 } });
    expect(r1.usage.cachedPromptTokens).toBeGreaterThanOrEqual(0);
    // The first prompt up to the assistant turn is shared.
    expect(r2.usage.cachedPromptTokens).toBeGreaterThan(r1.usage.promptTokens - 8);
    expect(r2.usage.promptTokens - r2.usage.cachedPromptTokens).toBeLessThan(r2.usage.promptTokens - r1.usage.promptTokens + 8);
  });

  it("abort returns the partial message and the next request works", async () => {
    const controller = new AbortController();
    const stream = model.streamChat({ messages: [user("Tell me a story.")], maxTokens: 500, signal: controller.signal, sampling: { seed: 4 } });
    let chunks = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0].delta.content || chunk.choices[0].delta.reasoning_content) chunks++;
      if (chunks === 3) controller.abort();
    }
    const r = await stream.result;
    expect(r.finishReason).toBe("abort");
    expect(r.usage.completionTokens).toBeLessThan(500);
    expect((r.message.content ?? "") + (r.message.reasoning_content ?? "")).not.toBe("");
    const next = await model.chat({ messages: [user("Again?")], maxTokens: 4, sampling: { seed: 5 } });
    expect(next.finishReason).not.toBe("abort");
    expect(next.usage.completionTokens).toBeGreaterThan(0);
  });

  it("runs execute tools until maxSteps", async () => {
    const seen: unknown[] = [];
    const tool: ChatTool = { ...weather, execute: async (args) => (seen.push(args), { temperature: 21 }) };
    const r = await model.chat({ messages: [user("Weather?")], tools: [tool], toolChoice: "required", maxSteps: 3, maxTokens: 64, sampling: { seed: 6 } });
    // Every step is forced to call: the runner stops at maxSteps with the last calls unexecuted.
    expect(r.steps).toHaveLength(3);
    expect(r.finishReason).toBe("tool_calls");
    expect(seen.length).toBeGreaterThanOrEqual(2);
    const toolMessages = r.messages.filter((m) => m.role === "tool");
    expect(toolMessages.length).toBe(seen.length);
    expect(toolMessages[0]).toMatchObject({ role: "tool", name: "get_weather", content: '{"temperature":21}' });
    expect(r.usage.completionTokens).toBe(r.steps.reduce((n, s) => n + s.usage.completionTokens, 0));
  });

  it("returns tool errors to the model as the result text", async () => {
    const tool: ChatTool = { ...weather, execute: () => { throw new Error("station offline"); } };
    const r = await model.chat({ messages: [user("Weather?")], tools: [tool], toolChoice: "required", maxSteps: 2, maxTokens: 64, sampling: { seed: 7 } });
    expect(r.steps[0]!.toolMessages[0]!.content).toBe("Error: station offline");
  });

  it("streamChat deltas add up to the final message", async () => {
    const stream = model.streamChat({ messages: [user("Weather?")], tools: [weather], toolChoice: "required", maxTokens: 64, sampling: { seed: 8 } });
    let args = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const tc of chunk.choices[0].delta.tool_calls ?? []) args += tc.function.arguments ?? "";
      finish = chunk.choices[0].finish_reason ?? finish;
    }
    const r = await stream.result;
    expect(finish).toBe("tool_calls");
    expect(args).toBe(r.message.tool_calls!.map((c) => c.function.arguments).join(""));
  });

  it("validates options, naming them", async () => {
    await expect(model.chat({ messages: [] })).rejects.toThrow(RangeError);
    await expect(model.chat({ messages: [user("x")], maxTokens: 0 })).rejects.toThrow(/options\.maxTokens/);
    await expect(model.chat({ messages: [user("x")], maxSteps: "2" as never })).rejects.toThrow(/options\.maxSteps/);
    await expect(model.chat({ messages: [user("x")], bogus: 1 } as never)).rejects.toThrow(/unknown option "bogus"/);
    await expect(model.chat({ messages: [user("x")], tools: [{ ...weather, execute: 3 as never }] })).rejects.toThrow(/tools\[0\]\.execute/);
    expect(() => model.streamChat({ messages: "hi" as never })).toThrow(/options\.messages/);
  });
});
