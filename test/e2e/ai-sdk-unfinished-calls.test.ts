/**
 * The AI SDK provider keeps the rule for unfinished calls (a random-weight Llama 3.1 model, tool
 * choice required so the grammar makes it write a call): a call maxOutputTokens or a stop sequence
 * cuts is no call, in doGenerate and doStream alike: no tool-call part, its raw text kept as text,
 * finish reason "length" (or "stop"), never "tool-calls"; a finished call is one tool-call part,
 * finish reason "tool-calls", with no call markup in the text.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { Ajv } from "ajv";
import { generateText, jsonSchema, ToolChoiceViolationError, tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolwright } from "../../src/ai-sdk/index.js";
import { loadModel, type ChatModel } from "../../src/session/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

const weatherSchema = {
  type: "object",
  properties: { city: { type: "string", enum: ["Paris", "Oslo"] } },
  required: ["city"],
  additionalProperties: false,
};
const validWeather = new Ajv({ strict: false }).compile(weatherSchema);

let model: ChatModel;
let lm: LanguageModelV3;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" }));
  lm = toolwright(model);
});
afterAll(() => model?.dispose());

/** Provider call options: one user turn, the weather tool, tool choice required. */
function callOptions(maxOutputTokens: number, seed: number, stopSequences?: string[]): LanguageModelV3CallOptions {
  return {
    prompt: [{ role: "user", content: [{ type: "text", text: "Weather?" }] }],
    tools: [{ type: "function", name: "get_weather", inputSchema: weatherSchema }],
    toolChoice: { type: "required" },
    maxOutputTokens,
    seed,
    ...(stopSequences ? { stopSequences } : {}),
  };
}

/** What a doGenerate or a doStream gave, in the same shape. */
interface Outcome {
  text: string;
  calls: { toolName: string; input: string }[];
  finish: string;
}

function outcomeOf(content: LanguageModelV3Content[], finish: string): Outcome {
  const text = content.map((p) => (p.type === "text" ? p.text : "")).join("");
  const calls = content.flatMap((p) => (p.type === "tool-call" ? [{ toolName: p.toolName, input: p.input }] : []));
  return { text, calls, finish };
}

async function generated(options: LanguageModelV3CallOptions): Promise<Outcome> {
  const r = await lm.doGenerate(options);
  return outcomeOf(r.content, r.finishReason.unified);
}

/** Reads a doStream through; tool-input parts count as calls too (the SDK shows them as they come). */
async function streamed(options: LanguageModelV3CallOptions): Promise<Outcome & { inputStarts: number }> {
  const { stream } = await lm.doStream(options);
  const parts: LanguageModelV3StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  const errors = parts.filter((p) => p.type === "error");
  expect(errors).toEqual([]);
  const finish = parts.find((p) => p.type === "finish");
  const text = parts.map((p) => (p.type === "text-delta" ? p.delta : "")).join("");
  const calls = parts.flatMap((p) => (p.type === "tool-call" ? [{ toolName: p.toolName, input: p.input }] : []));
  const inputStarts = parts.filter((p) => p.type === "tool-input-start").length;
  return { text, calls, finish: finish?.type === "finish" ? finish.finishReason.unified : "none", inputStarts };
}

describe("the AI SDK provider and unfinished calls", () => {
  // Where the output ends inside the call the grammar makes the model write (seed 1): some tokens
  // in, or at a stop sequence the call holds (the same end as an end of sequence inside it).
  const CUTS = [
    // (The shortest call takes 20 tokens: fewer is an error, below.)
    { label: "maxOutputTokens 20", maxTokens: 20, stop: undefined, finish: "length" },
    { label: "maxOutputTokens 32", maxTokens: 32, stop: undefined, finish: "length" },
    { label: 'the stop sequence "}"', maxTokens: 160, stop: ["}"], finish: "stop" },
  ];
  it.each(CUTS)(
    "a call cut by $label is no call: its text kept, finish $finish",
    async ({ maxTokens, stop, finish }) => {
      const options = callOptions(maxTokens, 1, stop);
      // Both reads below then start from the same cached prompt: a prompt evaluated in one batch and one
      // found in the cache can differ in the last bits of the logits, which on random weights can flip a
      // near-tie token (seen with one thread: `"name":` against `"name": `).
      await generated(options);
      const whole = await generated(options);
      expect(whole.finish).toBe(finish);
      expect(whole.calls).toEqual([]);
      // The model's raw text is kept: the start of the call the grammar made it write (this template's prompt
      // teaches {"name", "parameters"}; models answer with OpenAI's "type" first too, which the grammar allows).
      expect(whole.text).toMatch(/^\{\s*"(name|type)"/);
      const stream = await streamed(options);
      expect(stream).toEqual({ ...whole, inputStarts: 0 });
    },
  );

  it("a maxOutputTokens with no room for the shortest call fails before any token", async () => {
    await expect(lm.doGenerate(callOptions(8, 1))).rejects.toThrow(/maxTokens \(8\) has no room for a tool call/);
    const { stream } = await lm.doStream(callOptions(8, 1));
    const parts: LanguageModelV3StreamPart[] = [];
    for await (const part of stream) parts.push(part);
    expect(parts.some((p) => p.type === "text-delta" || p.type === "tool-call")).toBe(false);
    const error = parts.find((p) => p.type === "error");
    expect(error?.type === "error" ? String(error.error) : "").toMatch(/has no room for a tool call/);
  });

  it("a finished call is one tool-call part, finish tool-calls, no call markup in the text", async () => {
    const options = callOptions(160, 1);
    const whole = await generated(options);
    expect(whole.finish).toBe("tool-calls");
    expect(whole.calls).toHaveLength(1);
    expect(whole.calls[0]!.toolName).toBe("get_weather");
    expect(validWeather(JSON.parse(whole.calls[0]!.input)), whole.calls[0]!.input).toBe(true);
    expect(whole.text).not.toMatch(/get_weather|"name"|python_tag/);
    const stream = await streamed(options);
    expect(stream).toEqual({ ...whole, inputStarts: 1 });
  });

  it("generateText runs no tool for a cut call: the SDK sees no call where one was required", async () => {
    const seen: unknown[] = [];
    const run = generateText({
      model: lm,
      prompt: "Weather?",
      tools: {
        get_weather: tool({
          inputSchema: jsonSchema<{ city: string }>(weatherSchema),
          execute: async (input) => (seen.push(input), "21 C"),
        }),
      },
      toolChoice: "required",
      maxOutputTokens: 20,
      seed: 1,
    });
    const error = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(ToolChoiceViolationError.isInstance(error), String(error)).toBe(true);
    expect(seen).toEqual([]);
  });
});
