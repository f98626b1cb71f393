/**
 * model.chat() / streamChat() end to end on tiny random-weight models (llama-spm vocabulary: the
 * cheapest mask for llama.cpp's grammar engine): tool calls under tool_choice required, JSON
 * schema answers, unconstrained reasoning with the grammar from its end on, prefix reuse across
 * turns, abort, the tool runner, streaming, and option validation.
 *
 * The Llama 3.1 template is used for calls: its required grammar is bounded (no free text before
 * the call), so random weights reach a complete call within the token budget.
 */
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { loadModel, type ChatModel as Model } from "../../src/session/index.js";
import type { ChatTool } from "../../src/session/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

const weather: ChatTool = {
  type: "function",
  function: {
    name: "get_weather",
    parameters: {
      type: "object",
      properties: { city: { type: "string", enum: ["Paris", "Oslo"] } },
      required: ["city"],
      additionalProperties: false,
    },
  },
};

const answerSchema = {
  type: "object",
  properties: { answer: { type: "string", enum: ["yes", "no"] }, score: { type: "integer", minimum: 0, maximum: 9 } },
  required: ["answer", "score"],
  additionalProperties: false,
};
const validAnswer = new Ajv({ strict: false }).compile(answerSchema);
const responseFormat = { type: "json_schema" as const, json_schema: { name: "answer", schema: answerSchema } };

let model: Model;
let thinking: Model;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" }));
  // Its generation prompt opens "<think>": reasoning is forced open.
  thinking = await loadModel(
    await ensureTestModel({ vocab: "llama-spm", template: "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B" }),
  );
});
afterAll(() => {
  model?.dispose();
  thinking?.dispose();
});

/** Tokens for a call: near-uniform logits pick the optional whitespace the grammar allows often. */
const CALL_TOKENS = 160;
const user = (content: string) => ({ role: "user" as const, content });

describe("chat()", () => {
  it("makes a tool call that parses under toolChoice required", async () => {
    const r = await model.chat({
      messages: [user("Weather in Paris?")],
      tools: [weather],
      toolChoice: "required",
      maxTokens: CALL_TOKENS,
      sampling: { seed: 1 },
    });
    expect(r.finishReason).toBe("tool_calls");
    const call = r.message.tool_calls![0]!;
    expect(call.function.name).toBe("get_weather");
    const args = JSON.parse(call.function.arguments);
    expect(["Paris", "Oslo"]).toContain(args.city);
    expect(r.usage.completionTokens).toBeGreaterThan(0);
    expect(r.usage.totalTokens).toBe(r.usage.promptTokens + r.usage.completionTokens);
    expect(r.timings.firstTokenMs).toBeGreaterThan(0);
  });

  it("answers with a valid JSON instance under response_format json_schema", async () => {
    for (const seed of [1, 2]) {
      const r = await model.chat({
        messages: [user("Is it sunny?")],
        responseFormat,
        maxTokens: 48,
        sampling: { seed },
      });
      expect(r.finishReason).toBe("stop");
      const value = JSON.parse(r.message.content as string);
      expect(validAnswer(value), JSON.stringify(validAnswer.errors)).toBe(true);
      expect(r.responseFormatError).toBeUndefined();
    }
  });

  it("a zod response_format schema: the same answers as its JSON Schema, valid for zod", async () => {
    const zodAnswer = z.object({ answer: z.enum(["yes", "no"]), score: z.int().min(0).max(9) });
    for (const seed of [1, 2]) {
      const zodFormat = { type: "json_schema" as const, json_schema: { name: "answer", schema: zodAnswer } };
      const r = await model.chat({
        messages: [user("Is it sunny?")],
        responseFormat: zodFormat,
        maxTokens: 48,
        sampling: { seed },
      });
      expect(r.finishReason).toBe("stop");
      expect(zodAnswer.safeParse(JSON.parse(r.message.content as string)).success, r.message.content as string).toBe(
        true,
      );
      expect(r.responseFormatError).toBeUndefined();
      const plain = await model.chat({
        messages: [user("Is it sunny?")],
        responseFormat,
        maxTokens: 48,
        sampling: { seed },
      });
      expect(r.message.content).toBe(plain.message.content);
    }
    // Cut off: the check of the answer runs on the zod schema's JSON Schema too.
    const cut = await model.chat({
      messages: [user("Is it sunny?")],
      responseFormat: { type: "json_schema", json_schema: { schema: zodAnswer } },
      maxTokens: 3,
      sampling: { seed: 1 },
    });
    expect(cut.responseFormatError?.error.code).toBe("TOOLWRIGHT_RESPONSE_FORMAT");
  });

  it("reports an answer cut off before its JSON ends in responseFormatError", async () => {
    const r = await model.chat({
      messages: [user("Is it sunny?")],
      responseFormat,
      maxTokens: 3,
      sampling: { seed: 1 },
    });
    expect(r.finishReason).toBe("length");
    expect(r.responseFormatError?.error.code).toBe("TOOLWRIGHT_RESPONSE_FORMAT");
    expect(r.responseFormatError?.error.message).toMatch(/not JSON/);
  });

  it("leaves reasoning unconstrained and applies the grammar once it ends", async () => {
    for (const seed of [1, 2]) {
      const r = await thinking.chat({
        messages: [user("Is it sunny?")],
        responseFormat,
        enableThinking: true,
        reasoningBudget: 6,
        maxTokens: 64,
        sampling: { seed },
      });
      // Random text: the JSON grammar would have rejected it from the first character.
      const reasoning = r.message.reasoning_content ?? "";
      expect(reasoning.trim()).not.toBe("");
      expect(reasoning.trimStart().startsWith("{")).toBe(false);
      expect(r.finishReason).toBe("stop");
      expect(validAnswer(JSON.parse(r.message.content as string)), JSON.stringify(r.message)).toBe(true);
    }
  });

  it("second turn evaluates only the new suffix", async () => {
    const messages = [user("Hello there, how are you doing today?")];
    const r1 = await model.chat({ messages, maxTokens: 8, sampling: { seed: 2 } });
    const turn2 = [...messages, { role: "assistant" as const, content: "Fine." }, user("Good.")];
    const r2 = await model.chat({ messages: turn2, maxTokens: 4, sampling: { seed: 3 } });
    expect(r1.usage.cachedPromptTokens).toBeGreaterThanOrEqual(0);
    // The first prompt up to the assistant turn is shared.
    expect(r2.usage.cachedPromptTokens).toBeGreaterThan(r1.usage.promptTokens - 8);
    expect(r2.usage.promptTokens - r2.usage.cachedPromptTokens).toBeLessThan(
      r2.usage.promptTokens - r1.usage.promptTokens + 8,
    );
  });

  it("abort returns the partial message and the next request works", async () => {
    const controller = new AbortController();
    const stream = model.streamChat({
      messages: [user("Tell me a story.")],
      maxTokens: 500,
      signal: controller.signal,
      sampling: { seed: 4 },
    });
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

  it("breaking out of a stream frees the context for the next request", async () => {
    const stream = model.streamChat({ messages: [user("Tell me a story.")], maxTokens: 200, sampling: { seed: 9 } });
    for await (const chunk of stream) {
      if (chunk.choices[0].delta.content) break;
    }
    await expect(stream.result).rejects.toThrow(/not read to the end/);
    const next = await model.chat({ messages: [user("Again?")], maxTokens: 3, sampling: { seed: 10 } });
    expect(next.usage.completionTokens).toBeGreaterThan(0);
  });

  it("runs execute tools until maxSteps", async () => {
    const seen: unknown[] = [];
    // The first call fails: the error goes back to the model as the tool result.
    const tool: ChatTool = {
      ...weather,
      execute: async (args) => {
        seen.push(args);
        if (seen.length === 1) throw new Error("station offline");
        return { temperature: 21 };
      },
    };
    const r = await model.chat({
      messages: [user("Weather?")],
      tools: [tool],
      toolChoice: "required",
      maxSteps: 2,
      maxTokens: CALL_TOKENS,
      sampling: { seed: 6 },
    });
    // Every step is forced to call: the runner stops at maxSteps with the last calls unexecuted.
    expect(r.steps).toHaveLength(2);
    expect(r.finishReason).toBe("tool_calls");
    expect(r.steps[0]!.finishReason).toBe("tool_calls");
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(r.messages.map((m) => m.role)).toEqual([
      "assistant",
      ...r.steps[0]!.toolMessages.map(() => "tool"),
      "assistant",
    ]);
    const toolMessages = r.messages.filter((m) => m.role === "tool");
    expect(toolMessages.length).toBe(seen.length);
    expect(toolMessages[0]).toMatchObject({ role: "tool", name: "get_weather", content: "Error: station offline" });
    expect(r.usage.completionTokens).toBe(r.steps.reduce((n, s) => n + s.usage.completionTokens, 0));
  });

  it("streamChat deltas add up to the final message", async () => {
    const stream = model.streamChat({
      messages: [user("Weather?")],
      tools: [weather],
      toolChoice: "required",
      maxTokens: CALL_TOKENS,
      sampling: { seed: 8 },
    });
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

  it("grammar: false leaves decoding free and still parses the output", async () => {
    const request = {
      messages: [user("Weather in Paris?")],
      tools: [weather],
      toolChoice: "required" as const,
      maxTokens: 48,
      sampling: { seed: 1 },
    };
    const free = await model.chat({ ...request, grammar: false });
    // A random-weight model never writes a well-formed call by itself: unconstrained, it rambles
    // to maxTokens, and what it wrote stays content.
    expect(free.finishReason).toBe("length");
    expect(free.message.tool_calls ?? []).toEqual([]);
    expect((free.message.content ?? "").length).toBeGreaterThan(0);
    expect(free.usage.completionTokens).toBe(48);
    const constrained = await model.chat({ ...request, maxTokens: CALL_TOKENS });
    expect(constrained.finishReason).toBe("tool_calls");
  });

  it("validates options, naming them", async () => {
    await expect(model.chat({ messages: [user("x")], grammar: "no" as never })).rejects.toThrow(/options\.grammar/);
    await expect(model.chat({ messages: [] })).rejects.toThrow(RangeError);
    await expect(model.chat({ messages: [user("x")], maxTokens: 0 })).rejects.toThrow(/options\.maxTokens/);
    await expect(model.chat({ messages: [user("x")], maxSteps: "2" as never })).rejects.toThrow(/options\.maxSteps/);
    await expect(model.chat({ messages: [user("x")], bogus: 1 } as never)).rejects.toThrow(/unknown key "bogus"/);
    await expect(model.chat({ messages: [user("x")], tools: [{ ...weather, execute: 3 as never }] })).rejects.toThrow(
      /tools\[0\]\.execute/,
    );
    expect(() => model.streamChat({ messages: "hi" as never })).toThrow(/options\.messages/);
    await expect(model.chat({ messages: [user("x")], reasoningBudget: -1 })).rejects.toThrow(
      /options\.reasoningBudget/,
    );
    await expect(model.chat({ messages: [user("x")], maxReasoningTokens: 1.5 })).rejects.toThrow(
      /options\.maxReasoningTokens/,
    );
    await expect(model.chat({ messages: [user("x")], reasoningBudget: 4, maxReasoningTokens: 8 })).rejects.toThrow(
      /disagree/,
    );
    await expect(model.chat({ messages: [user("x")], maxToolCalls: 0 })).rejects.toThrow(/options\.maxToolCalls/);
    await expect(model.chat({ messages: [user("x")], reasoningFormat: "raw" as never })).rejects.toThrow(
      /options\.reasoningFormat/,
    );
    await expect(model.chat({ messages: [user("x")], continueFinalMessage: 1 as never })).rejects.toThrow(
      /options\.continueFinalMessage/,
    );
    await expect(model.chat({ messages: [user("x")], continueFinalMessage: true })).rejects.toThrow(
      /needs a final assistant message/,
    );
  });
});

describe("continueFinalMessage and reasoningFormat through chat()", () => {
  const prefill = { role: "assistant" as const, content: "The answer is" };

  it("continues the final assistant message: the message holds the prefilled text, and replaces it", async () => {
    const r = await model.chat({
      messages: [user("Question?"), prefill],
      continueFinalMessage: true,
      maxTokens: 8,
      sampling: { seed: 3 },
    });
    expect(r.message.content).toMatch(/^The answer is/);
    expect((r.message.content as string).length).toBeGreaterThan("The answer is".length);
    expect(r.messages).toEqual([r.message]);
  });

  it("streamChat's deltas start with the prefilled text and add up to the message", async () => {
    const stream = model.streamChat({
      messages: [user("Question?"), prefill],
      addGenerationPrompt: false,
      maxTokens: 8,
      sampling: { seed: 3 },
    });
    let content = "";
    for await (const chunk of stream) content += chunk.choices[0].delta.content ?? "";
    const r = await stream.result;
    expect(content).toMatch(/^The answer is/);
    expect(content).toBe(r.message.content);
  });

  it('reasoningFormat "none" leaves forced-open reasoning in the content, opener included', async () => {
    for (const seed of [1, 2, 3]) {
      const r = await thinking.chat({
        messages: [user("Hi")],
        reasoningFormat: "none",
        enableThinking: true,
        maxTokens: 12,
        sampling: { seed },
      });
      expect(r.message.reasoning_content ?? null).toBeNull();
      expect(r.message.content).toMatch(/^<think>\n./s);
    }
    const separated = await thinking.chat({
      messages: [user("Hi")],
      enableThinking: true,
      maxTokens: 12,
      sampling: { seed: 1 },
    });
    expect(separated.message.content ?? "").not.toMatch(/^<think>/);
    expect((separated.message.reasoning_content ?? "").length).toBeGreaterThan(0);
  });
});

describe("reasoning budget", () => {
  const reasoningTokens = (m: Model, text: string | null | undefined) =>
    text ? m.tokenize(text, { addSpecial: false }).length : 0;

  it("closes forced-open reasoning after that many tokens and the answer follows", async () => {
    for (const seed of [1, 2, 3]) {
      const r = await thinking.chat({ messages: [user("Hi")], reasoningBudget: 5, maxTokens: 24, sampling: { seed } });
      // Random weights never write </think>: without the budget all 24 tokens would be reasoning.
      expect(reasoningTokens(thinking, r.message.reasoning_content)).toBeLessThanOrEqual(7);
      expect(r.message.content).not.toBeNull();
    }
  });

  it("maxReasoningTokens is the same option", async () => {
    const a = await thinking.chat({ messages: [user("Hi")], reasoningBudget: 3, maxTokens: 12, sampling: { seed: 7 } });
    const b = await thinking.chat({
      messages: [user("Hi")],
      maxReasoningTokens: 3,
      maxTokens: 12,
      sampling: { seed: 7 },
    });
    expect(b.message).toEqual({ ...a.message, tool_calls: a.message.tool_calls });
  });

  it("closes reasoning the model opens itself, and the required call follows", async () => {
    // Qwen3 with thinking on: the prompt leaves reasoning to the model (the grammar allows an optional <think> block).
    const qwen3 = await loadModel(await ensureTestModel({ vocab: "llama-spm", template: "Qwen-Qwen3-0.6B" }));
    try {
      let reasoned = 0;
      for (const seed of [1, 2, 3, 4, 5]) {
        const r = await qwen3.chat({
          messages: [user("Weather?")],
          tools: [weather],
          toolChoice: "required",
          parallelToolCalls: false,
          enableThinking: true,
          reasoningBudget: 4,
          maxTokens: 2 * CALL_TOKENS,
          sampling: { seed },
        });
        expect(r.finishReason).toBe("tool_calls");
        expect(r.message.tool_calls?.[0]?.function.name).toBe("get_weather");
        if (r.message.reasoning_content) {
          reasoned++;
          // 4 sampled tokens; tokenizing their text again may split it into more (byte-fallback
          // pieces merge differently), so the bound is twice the budget: unbudgeted reasoning
          // runs to maxTokens, far above it.
          expect(reasoningTokens(qwen3, r.message.reasoning_content)).toBeLessThanOrEqual(8);
        }
      }
      // Random weights open <think> for some seeds: the budget is what ends it.
      expect(reasoned).toBeGreaterThan(0);
    } finally {
      qwen3.dispose();
    }
  });

  it("0 means no reasoning, and a required call follows at once", async () => {
    const r = await thinking.chat({
      messages: [user("Weather?")],
      tools: [weather],
      toolChoice: "required",
      // One call, so the turn ends with it (random weights may start a second one and run out of tokens).
      parallelToolCalls: false,
      reasoningBudget: 0,
      maxTokens: CALL_TOKENS,
      sampling: { seed: 4 },
    });
    expect(r.message.reasoning_content ?? "").toBe("");
    expect(r.finishReason, JSON.stringify(r.message)).toBe("tool_calls");
    expect(r.message.tool_calls?.[0]?.function.name).toBe("get_weather");
  });
});

describe("parallel calls under tool_choice required", () => {
  it("maxToolCalls bounds the calls the grammar allows, so the turn ends", async () => {
    const hermes = await loadModel(await ensureTestModel({ vocab: "llama-spm", template: "Qwen-Qwen2.5-7B-Instruct" }));
    try {
      for (const seed of [1, 2]) {
        const r = await hermes.chat({
          messages: [user("Weather?")],
          tools: [weather],
          toolChoice: "required",
          parallelToolCalls: true,
          maxToolCalls: 2,
          maxTokens: 2 * CALL_TOKENS + 80,
          sampling: { seed },
        });
        expect(r.finishReason).toBe("tool_calls");
        expect(r.message.tool_calls!.length).toBeGreaterThanOrEqual(1);
        expect(r.message.tool_calls!.length).toBeLessThanOrEqual(2);
      }
    } finally {
      hermes.dispose();
    }
  }, 300_000);
});
