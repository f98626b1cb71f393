/**
 * `toolwright/ai-sdk` through the real `ai` package: generateText and streamText with a tool
 * (tool choice required, the SDK executing it), generateObject with a zod schema, and reasoning
 * parts, on tiny random-weight models.
 */
import { generateObject, generateText, jsonSchema, streamText, tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { toolwright } from "../../src/ai-sdk/index.js";
import { loadModel, type ChatModel } from "../../src/session/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: ChatModel;
let thinking: ChatModel;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" }));
  thinking = await loadModel(
    await ensureTestModel({ vocab: "llama-spm", template: "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B" }),
  );
});
afterAll(() => {
  model?.dispose();
  thinking?.dispose();
});

const CITIES = ["Paris", "Oslo"] as const;
function weatherTool(seen: string[]) {
  return tool({
    description: "Current weather in a city",
    inputSchema: z.object({ city: z.enum(CITIES) }),
    execute: async ({ city }) => {
      seen.push(city);
      return { city, celsius: 21 };
    },
  });
}

describe("the AI SDK provider", () => {
  it("reports the v3 specification and the model id", () => {
    const lm = toolwright(model, { modelId: "tiny" });
    expect(lm.specificationVersion).toBe("v3");
    expect(lm.provider).toBe("toolwright");
    expect(lm.modelId).toBe("tiny");
    expect(toolwright(model).modelId).toMatch(/Llama-3\.1/);
    expect(() => toolwright({} as ChatModel)).toThrow(TypeError);
  });

  it("generateText: a required tool call with schema-valid input, executed by the SDK", async () => {
    const seen: string[] = [];
    const r = await generateText({
      model: toolwright(model),
      prompt: "Weather in Paris?",
      tools: { get_weather: weatherTool(seen) },
      toolChoice: "required",
      maxOutputTokens: 160,
      seed: 1,
    });
    expect(r.finishReason).toBe("tool-calls");
    expect(r.toolCalls).toHaveLength(1);
    expect(r.toolCalls[0]!.toolName).toBe("get_weather");
    expect(CITIES).toContain((r.toolCalls[0]!.input as { city: string }).city);
    expect(seen).toEqual([(r.toolCalls[0]!.input as { city: string }).city]);
    expect(r.toolResults[0]!.output).toEqual({ city: seen[0], celsius: 21 });
    expect(r.usage.inputTokens).toBeGreaterThan(0);
    expect(r.usage.outputTokens).toBeGreaterThan(0);
  });

  it("generateText: a second step answers after the tool result", async () => {
    const seen: string[] = [];
    const r = await generateText({
      model: toolwright(model),
      messages: [
        { role: "system", content: "Use tools." },
        { role: "user", content: "Weather in Oslo?" },
      ],
      tools: { get_weather: weatherTool(seen) },
      // Required on the first step only, then free text.
      prepareStep: ({ stepNumber }) => ({ toolChoice: stepNumber === 0 ? "required" : "none" }),
      stopWhen: ({ steps }) => steps.length >= 2,
      maxOutputTokens: 160,
      seed: 2,
    });
    expect(r.steps).toHaveLength(2);
    expect(r.steps[0]!.finishReason).toBe("tool-calls");
    expect(seen).toHaveLength(1);
    expect(["stop", "length"]).toContain(r.steps[1]!.finishReason);
    expect(r.steps[1]!.toolCalls).toEqual([]);
  });

  it("streamText: text deltas, and a tool call streamed as input deltas", async () => {
    const plain = streamText({ model: toolwright(model), prompt: "Say something", maxOutputTokens: 12, seed: 3 });
    let text = "";
    for await (const delta of plain.textStream) text += delta;
    expect(text).toBe(await plain.text);
    expect((await plain.usage).outputTokens).toBeGreaterThan(0);

    const seen: string[] = [];
    const withTool = streamText({
      model: toolwright(model),
      prompt: "Weather?",
      tools: { get_weather: weatherTool(seen) },
      toolChoice: { type: "tool", toolName: "get_weather" },
      maxOutputTokens: 160,
      seed: 4,
    });
    const types: string[] = [];
    let input = "";
    for await (const part of withTool.fullStream) {
      types.push(part.type);
      if (part.type === "tool-input-delta") input += part.delta;
    }
    expect(types).toContain("tool-input-start");
    expect(types).toContain("tool-call");
    expect(types).toContain("tool-result");
    expect(CITIES).toContain((JSON.parse(input) as { city: string }).city);
    expect(seen).toHaveLength(1);
    expect(await withTool.finishReason).toBe("tool-calls");
  });

  it("generateObject: an object that matches the zod schema", async () => {
    for (const seed of [1, 2]) {
      const { object } = await generateObject({
        model: toolwright(model),
        schema: z.object({ answer: z.enum(["yes", "no"]), score: z.number().int().min(0).max(9) }),
        prompt: "Is it sunny?",
        maxOutputTokens: 64,
        seed,
      });
      expect(["yes", "no"]).toContain(object.answer);
      expect(Number.isInteger(object.score)).toBe(true);
    }
    const { object } = await generateObject({
      model: toolwright(model),
      schema: jsonSchema<{ ok: boolean }>({
        type: "object",
        properties: { ok: { type: "boolean" } },
        required: ["ok"],
        additionalProperties: false,
      }),
      prompt: "ok?",
      maxOutputTokens: 32,
      seed: 5,
    });
    expect(typeof object.ok).toBe("boolean");
  });

  it("returns reasoning as reasoning parts, streamed or not", async () => {
    const r = await generateText({
      model: toolwright(thinking),
      prompt: "Think",
      maxOutputTokens: 24,
      seed: 1,
      providerOptions: { toolwright: { enableThinking: true } },
    });
    expect((r.reasoningText ?? "").length).toBeGreaterThan(0);
    const s = streamText({
      model: toolwright(thinking),
      prompt: "Think",
      maxOutputTokens: 24,
      seed: 1,
      providerOptions: { toolwright: { enableThinking: true } },
    });
    let reasoning = "";
    for await (const part of s.fullStream) if (part.type === "reasoning-delta") reasoning += part.text;
    expect(reasoning.length).toBeGreaterThan(0);
  });

  it("an aborted call throws an AbortError, as a provider over fetch does (not a finish reason)", async () => {
    const lm = toolwright(model);
    const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "Write" }] }];
    // A string no shorter than the budget keeps a random-weight model writing until the abort.
    const responseFormat = { type: "json" as const, schema: { type: "string", minLength: 4000 } };
    const early = new AbortController();
    early.abort();
    await expect(
      lm.doGenerate({ prompt, maxOutputTokens: 512, responseFormat, abortSignal: early.signal }),
    ).rejects.toMatchObject({ name: "AbortError" });

    const controller = new AbortController();
    const { stream } = await lm.doStream({
      prompt,
      maxOutputTokens: 512,
      responseFormat,
      abortSignal: controller.signal,
    });
    const reader = stream.getReader();
    const seen: string[] = [];
    const failure = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        seen.push(value.type);
        if (value.type === "text-delta") controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: "AbortError" });
    expect(seen).toContain("text-delta");
    expect(seen).not.toContain("finish");
  });
});
