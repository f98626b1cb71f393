/**
 * Truncated and invalid calls end to end (random-weight Llama 3.1 model): a call cut off by
 * maxTokens is no call: its text is the message's content, streamed as content, and nothing is
 * executed (finish reason "length"); the runner executes only calls whose arguments match the
 * schema and reports the others (result, steps, streamed chunk) while the model gets an error
 * tool message.
 */
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type ChatModel as Model } from "../../src/session/index.js";
import type { ChatChunk, ChatTool } from "../../src/session/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

// Open to more keys: random weights write long free keys, so maxTokens cuts inside the arguments.
const parameters = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: true,
};

let model: Model;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" }));
});
afterAll(() => model?.dispose());

const user = (content: string) => ({ role: "user" as const, content });

/** A required call to the weather tool, streamed: its chunks, their call deltas and the result. */
async function weatherStream(maxTokens: number, tools: ChatTool[], streamCalls: boolean) {
  const stream = model.streamChat({
    messages: [user("Weather?")],
    tools,
    toolChoice: "required",
    maxTokens,
    sampling: { seed: 3 },
    streamCalls,
  });
  const chunks: ChatChunk[] = [];
  for await (const c of stream) chunks.push(c);
  const parts = chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? []);
  return { chunks, parts, result: await stream.result };
}

describe("a call cut off by maxTokens", () => {
  it.each([48, 56, 64, 80, 96])(
    "is no call: its text is content, streamed as such, never run (maxTokens %i)",
    async (maxTokens) => {
      let ran = 0;
      const tools: ChatTool[] = [
        { type: "function", function: { name: "get_weather", parameters }, execute: () => ran++ },
      ];
      const { chunks, result: r } = await weatherStream(maxTokens, tools, false);
      expect(r.finishReason).toBe("length");
      expect(ran).toBe(0);
      expect(r.message.tool_calls).toBeUndefined();
      expect(chunks.some((c) => (c.choices[0].delta.tool_calls ?? []).length > 0)).toBe(false);
      // The required call the model started is kept as the text it wrote, and streamed the same.
      expect(r.message.content).toContain('"get_weather"');
      const streamed = chunks.map((c) => c.choices[0].delta.content ?? "").join("");
      expect(streamed).toBe(r.message.content);
      expect(r.toolErrors).toEqual([]);
    },
  );
});

describe("streamCalls: a call streams from its name on", () => {
  const weatherTool = (count: () => void): ChatTool[] => [
    { type: "function", function: { name: "get_weather", parameters }, execute: count },
  ];
  const streamed = (maxTokens: number, tools: ChatTool[]) => weatherStream(maxTokens, tools, true);

  it("a finished call: named in an early chunk, its arguments as written", async () => {
    const city = { type: "object", properties: { city: { type: "string", enum: ["Paris", "Oslo"] } } };
    const closed = { ...city, required: ["city"], additionalProperties: false };
    const { chunks, parts, result } = await streamed(200, [
      { type: "function", function: { name: "get_weather", parameters: closed } },
    ]);
    expect(result.finishReason).toBe("tool_calls");
    const call = result.message.tool_calls![0]!;
    expect(["Paris", "Oslo"]).toContain(JSON.parse(call.function.arguments).city);
    expect(call.function.name).toBe("get_weather");
    expect(parts[0]).toMatchObject({ index: 0, id: call.id, function: { name: "get_weather" } });
    expect(parts.map((p) => p.function.arguments ?? "").join("")).toBe(call.function.arguments);
    // Named long before the call ends: the chunks after the first one that carries it hold the rest.
    const firstAt = chunks.findIndex((c) => (c.choices[0].delta.tool_calls ?? []).length > 0);
    const argumentChunks = chunks.slice(firstAt + 1).filter((c) => c.choices[0].delta.tool_calls !== undefined);
    expect(argumentChunks.length).toBeGreaterThan(3);
  });

  it.each([48, 64])("a call maxTokens %i cuts stays a call, as far as written, and is never run", async (maxTokens) => {
    let ran = 0;
    const { chunks, parts, result } = await streamed(
      maxTokens,
      weatherTool(() => ran++),
    );
    expect(result.finishReason).toBe("length");
    expect(ran).toBe(0);
    const calls = result.message.tool_calls ?? [];
    expect(calls.map((c) => c.function.name)).toEqual(["get_weather"]);
    expect(() => JSON.parse(calls[0]!.function.arguments)).toThrow(SyntaxError);
    expect(parts.map((p) => p.function.arguments ?? "").join("")).toBe(calls[0]!.function.arguments);
    expect(chunks.map((c) => c.choices[0].delta.content ?? "").join("")).toBe(result.message.content ?? "");
  });
});

describe("the runner checks arguments against the schema", () => {
  it("executes only valid calls and reports the others to the caller and the model", async () => {
    // uniqueItems over strings matched by a pattern is beyond the grammar (it is exact only for
    // items from a small enum): the model writes ["a","a"] under it, and only the runner's schema
    // check keeps it from `execute`.
    const strict = {
      type: "object",
      properties: {
        tags: {
          type: "array",
          items: { type: "string", pattern: "^[ab]$" },
          minItems: 2,
          maxItems: 2,
          uniqueItems: true,
        },
      },
      required: ["tags"],
      additionalProperties: false,
    };
    const valid = new Ajv({ strict: false }).compile(strict);
    let invalidSeen = 0;
    for (const seed of [1, 2, 3, 4]) {
      const executed: unknown[] = [];
      const tools: ChatTool[] = [
        {
          type: "function",
          function: { name: "pick", parameters: strict },
          execute: (args) => (executed.push(args), "done"),
        },
      ];
      const stream = model.streamChat({
        messages: [user("Pick")],
        tools,
        toolChoice: "required",
        parallelToolCalls: false,
        maxTokens: 160,
        maxSteps: 2,
        sampling: { seed },
      });
      const chunks: ChatChunk[] = [];
      for await (const c of stream) chunks.push(c);
      const r = await stream.result;
      const first = r.steps[0]!;
      if (first.finishReason !== "tool_calls") continue;
      const call = first.message.tool_calls![0]!;
      const args = JSON.parse(call.function.arguments);
      if (valid(args)) {
        expect(executed).toEqual([args]);
        expect(first.toolErrors).toEqual([]);
        continue;
      }
      invalidSeen++;
      expect(executed).toEqual([]);
      expect(first.toolErrors).toHaveLength(1);
      expect(first.toolErrors[0]).toMatchObject({ kind: "invalid_arguments", toolCallId: call.id, name: "pick" });
      expect(first.toolErrors[0]!.error.code).toBe("TOOLWRIGHT_TOOL_ARGUMENTS");
      expect(first.toolMessages[0]!.content).toMatch(/^Error: .*duplicate items/);
      expect(r.toolErrors[0]).toBe(first.toolErrors[0]);
      const end = chunks.find((c) => c.step === 0 && c.choices[0].finish_reason !== null)!;
      expect(end.toolErrors).toEqual(first.toolErrors);
    }
    expect(invalidSeen).toBeGreaterThan(0);
  });
});
