/**
 * The in-process OpenAI client (`toolwright/openai`): the same calls as the server test, with
 * OpenAI's own types from the `openai` package. `npm run typecheck` (strict) checks this file:
 * results are assigned to OpenAI's types, output messages go back in as OpenAI message params,
 * and `@ts-expect-error` marks shapes the types must refuse.
 */
import { Ajv } from "ajv";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatCompletionError, createOpenAIClient, type OpenAIClient } from "../../src/openai/index.js";
import { AbortError } from "../../src/runtime/index.js";
import { loadModel, type ChatModel, type ChatTool } from "../../src/session/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

const weatherSchema = {
  type: "object",
  properties: { city: { type: "string", enum: ["Paris", "Oslo"] } },
  required: ["city"],
  additionalProperties: false,
};
const validWeather = new Ajv({ strict: false }).compile(weatherSchema);
// OpenAI's own tool type, strict: null included.
const tools: ChatCompletionTool[] = [
  {
    type: "function",
    function: { name: "get_weather", description: "Weather", parameters: weatherSchema, strict: null },
  },
];
const LONG = {
  type: "json_schema" as const,
  json_schema: { name: "long", schema: { type: "string", minLength: 2000 } },
};

let model: ChatModel;
let client: OpenAIClient;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" }));
  client = createOpenAIClient(model, { modelId: "local" });
});
afterAll(() => model?.dispose());

describe("createOpenAIClient", () => {
  it("creates a ChatCompletion whose message goes back in as a message param", async () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
    ];
    const completion: ChatCompletion = await client.chat.completions.create({
      model: "local",
      messages,
      tools,
      tool_choice: "required",
      parallel_tool_calls: false,
      max_tokens: 160,
      seed: 1,
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("local");
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    const message: ChatCompletionMessage = choice.message;
    const call = message.tool_calls![0]!;
    if (call.type !== "function") throw new Error("expected a function call");
    expect(validWeather(JSON.parse(call.function.arguments)), call.function.arguments).toBe(true);
    const next: ChatCompletionMessageParam[] = [
      ...messages,
      message,
      { role: "tool", tool_call_id: call.id, content: '{"temperature": 21}' },
    ];
    const answer = await client.chat.completions.create({
      model: "local",
      messages: next,
      max_completion_tokens: 8,
      temperature: 0.7,
      top_p: 0.9,
      stop: ["\n\n"],
    });
    expect(answer.choices[0]!.message.role).toBe("assistant");
    expect(answer.usage!.total_tokens).toBe(answer.usage!.prompt_tokens + answer.usage!.completion_tokens);
  });

  it("takes OpenAI's tools as they are through model.chat() too", async () => {
    const chatTools: ChatTool[] = tools.flatMap((t) => (t.type === "function" ? [t] : []));
    const r = await model.chat({
      messages: [{ role: "user", content: "Weather?" }],
      tools: chatTools,
      toolChoice: "required",
      maxTokens: 160,
      sampling: { seed: 2 },
    });
    // toolwright's messages are OpenAI message params.
    const back: ChatCompletionMessageParam[] = [{ role: "user", content: "Weather?" }, ...r.messages];
    expect(back).toHaveLength(2);
  });

  it("streams ChatCompletionChunks with a usage chunk, tool calls included", async () => {
    const stream = await client.chat.completions.create({
      model: "local",
      messages: [{ role: "user", content: "Weather?" }],
      tools,
      tool_choice: "required",
      max_tokens: 160,
      seed: 3,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    let args = "";
    for (const c of chunks) for (const t of c.choices[0]?.delta.tool_calls ?? []) args += t.function?.arguments ?? "";
    expect(validWeather(JSON.parse(args)), args).toBe(true);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe("tool_calls");
    expect(chunks.at(-1)!.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it("aborts: create rejects with an AbortError; a stream being read just ends", async () => {
    await expect(
      client.chat.completions.create(
        { model: "local", messages: [{ role: "user", content: "Hi" }] },
        { signal: AbortSignal.abort() },
      ),
    ).rejects.toBeInstanceOf(AbortError);
    const controller = new AbortController();
    const pending = client.chat.completions.create(
      { model: "local", messages: [{ role: "user", content: "Hi" }], max_tokens: 400, response_format: LONG },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    const stream = await client.chat.completions.create({
      model: "local",
      messages: [{ role: "user", content: "Go" }],
      max_tokens: 400,
      response_format: LONG,
      stream: true,
    });
    let n = 0;
    for await (const _ of stream) if (++n === 3) stream.controller.abort();
    expect(n).toBeLessThan(10);
    // A stream aborted without being read gives the model back to the next request.
    const unread = await client.chat.completions.create({
      model: "local",
      messages: [{ role: "user", content: "Go" }],
      max_tokens: 400,
      response_format: LONG,
      stream: true,
    });
    unread.controller.abort();
    const after = await client.chat.completions.create({
      model: "local",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 2,
    });
    expect(after.choices).toHaveLength(1);
  });

  const REFUSED: { label: string; body: Record<string, unknown>; param: string }[] = [
    { label: "n > 1", body: { n: 3 }, param: "n" },
    { label: "audio", body: { audio: { voice: "alloy", format: "wav" } }, param: "audio" },
    {
      label: "an image part outside a user message",
      body: { messages: [{ role: "system", content: [{ type: "image_url", image_url: { url: "https://x/y.png" } }] }] },
      param: "messages[0].content[0]",
    },
    { label: "a custom tool", body: { tools: [{ type: "custom", custom: { name: "grep" } }] }, param: "tools[0].type" },
    {
      label: "max_tokens and max_completion_tokens that disagree",
      body: { max_tokens: 4, max_completion_tokens: 5 },
      param: "max_tokens",
    },
  ];
  it.each(REFUSED)("refuses $label with a 400 ChatCompletionError", async ({ body, param }) => {
    const params = {
      model: "local",
      messages: [{ role: "user", content: "Hi" }],
      ...body,
    } as ChatCompletionCreateParamsNonStreaming;
    const e = await client.chat.completions.create(params).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ChatCompletionError);
    expect(e).toMatchObject({ status: 400, param, type: "invalid_request_error", code: "TOOLWRIGHT_INVALID_REQUEST" });
    expect((e as ChatCompletionError).toJSON().error.param).toBe(param);
  });

  it("refuses an image for a model without a projector with a 400 naming messages", async () => {
    const url = "data:image/png;base64,AA==";
    const e = await client.chat.completions
      .create({ model: "local", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url } }] }] })
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ChatCompletionError);
    expect(e).toMatchObject({ status: 400, param: "messages", code: "TOOLWRIGHT_NO_PROJECTOR" });
  });

  it("types: OpenAI's shapes only", async () => {
    const typed = async () => {
      // @ts-expect-error max_tokens is a number
      await client.chat.completions.create({ model: "local", messages: [], max_tokens: "5" });
      // @ts-expect-error no such role
      await client.chat.completions.create({ model: "local", messages: [{ role: "robot", content: "x" }] });
      // @ts-expect-error a tool message needs tool_call_id
      await client.chat.completions.create({ model: "local", messages: [{ role: "tool", content: "x" }] });
      // @ts-expect-error a stream is not a ChatCompletion
      const c: ChatCompletion = await client.chat.completions.create({ model: "local", messages: [], stream: true });
      return c;
    };
    expect(typeof typed).toBe("function");
  });
});
