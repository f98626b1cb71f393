/**
 * The OpenAI-compatible server (createServer, what `toolwright serve` runs) driven by the real
 * `openai` npm client on 127.0.0.1, on tiny random-weight models: create, stream, tools under
 * tool_choice "required" with schema-valid arguments, JSON output, reasoning, abort, auth,
 * OpenAI error bodies and statuses, client disconnects and graceful shutdown.
 */
import { request } from "node:http";
import { Ajv } from "ajv";
import OpenAI, { APIUserAbortError, AuthenticationError, BadRequestError, NotFoundError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReasoningChatCompletion } from "../../src/openai/index.js";
import { createServer, type ToolwrightServer } from "../../src/server/index.js";
import { loadModel, type ChatModel } from "../../src/session/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

const weatherSchema = {
  type: "object",
  properties: { city: { type: "string", enum: ["Paris", "Oslo"] }, days: { type: "integer", minimum: 1, maximum: 7 } },
  required: ["city"],
  additionalProperties: false,
};
const weather: OpenAI.Chat.ChatCompletionTool = {
  type: "function",
  function: { name: "get_weather", parameters: weatherSchema, strict: null },
};
const validWeather = new Ajv({ strict: false }).compile(weatherSchema);
const answerSchema = {
  type: "object",
  properties: { answer: { type: "string", enum: ["yes", "no"] } },
  required: ["answer"],
  additionalProperties: false,
};
const validAnswer = new Ajv({ strict: false }).compile(answerSchema);

const user = (content: string) => ({ role: "user" as const, content });
/** A response format that keeps a random-weight model writing (no early end of turn). */
const LONG = {
  type: "json_schema" as const,
  json_schema: { name: "long", schema: { type: "string", minLength: 2000 } },
};
const API_KEY = "test-key-0123";

let model: ChatModel;
let thinking: ChatModel;
let server: ToolwrightServer;
let thinkingServer: ToolwrightServer;
let url: string;
let client: OpenAI;
const log: string[] = [];

beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" }));
  thinking = await loadModel(
    await ensureTestModel({ vocab: "llama-spm", template: "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B" }),
  );
  server = createServer(model, {
    apiKey: API_KEY,
    maxTokens: 512,
    maxBodyBytes: 64 * 1024,
    log: (line) => log.push(line),
  });
  ({ url } = await server.listen({ port: 0 }));
  client = new OpenAI({ baseURL: `${url}/v1`, apiKey: API_KEY, maxRetries: 0 });
  thinkingServer = createServer(thinking, { modelId: "thinker" });
});
afterAll(async () => {
  await server?.close({ timeoutMs: 0 });
  await thinkingServer?.close({ timeoutMs: 0 });
  model?.dispose();
  thinking?.dispose();
});

describe("the openai client against createServer", () => {
  it("listens on 127.0.0.1 by default and lists the model", async () => {
    expect(new URL(url).hostname).toBe("127.0.0.1");
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual([server.modelId]);
    expect(server.modelId).toMatch(/Llama-3\.1/);
    const one = await client.models.retrieve(server.modelId);
    expect(one.id).toBe(server.modelId);
  });

  it("creates a completion with OpenAI's fields, snake_case usage and llama-server's timings", async () => {
    const started = performance.now();
    const c = await client.chat.completions.create({
      model: server.modelId,
      messages: [user("Hi")],
      max_tokens: 12,
      seed: 1,
    });
    const elapsed = performance.now() - started;
    expect(c.id).toMatch(/^chatcmpl-/);
    expect(c.object).toBe("chat.completion");
    expect(c.model).toBe(server.modelId);
    expect(Number.isInteger(c.created)).toBe(true);
    expect(c.choices).toHaveLength(1);
    expect(c.choices[0]!.message.role).toBe("assistant");
    expect(["stop", "length"]).toContain(c.choices[0]!.finish_reason);
    expect(c.usage!.completion_tokens).toBeGreaterThan(0);
    expect(c.usage!.completion_tokens).toBeLessThanOrEqual(12);
    expect(c.usage!.total_tokens).toBe(c.usage!.prompt_tokens + c.usage!.completion_tokens);
    // llama-server's timings: the same counts as the usage, and times that add up to no more than the request.
    const t = (c as ReasoningChatCompletion).timings!;
    expect(t.predicted_n).toBe(c.usage!.completion_tokens);
    expect(t.prompt_n + t.cache_n).toBe(c.usage!.prompt_tokens);
    expect(t.prompt_ms).toBeGreaterThan(0);
    expect(t.prompt_ms + t.predicted_ms).toBeLessThan(elapsed);
  });

  it("streams chunks with one id, the role first, and a last usage chunk", async () => {
    const stream = await client.chat.completions.create({
      model: server.modelId,
      messages: [user("Tell a story")],
      max_completion_tokens: 16,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === server.modelId)).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.completion_tokens).toBeGreaterThan(0);
    const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finish).toHaveLength(1);
    const textChunks = chunks.filter((c) => c.choices[0]?.delta.content);
    expect(textChunks.length).toBeLessThanOrEqual(last.usage!.completion_tokens);
  });

  it("makes schema-valid tool calls under tool_choice required, streamed or not", async () => {
    for (const seed of [1, 2, 3]) {
      const c = await client.chat.completions.create({
        model: server.modelId,
        messages: [user("Weather?")],
        tools: [weather],
        tool_choice: "required",
        max_tokens: 160,
        seed,
      });
      expect(c.choices[0]!.finish_reason).toBe("tool_calls");
      const call = c.choices[0]!.message.tool_calls![0]!;
      expect(call.type).toBe("function");
      if (call.type !== "function") continue;
      expect(call.function.name).toBe("get_weather");
      expect(validWeather(JSON.parse(call.function.arguments)), call.function.arguments).toBe(true);
      // The message goes back into the conversation as it is, with a tool result.
      const next: OpenAI.Chat.ChatCompletionMessageParam[] = [
        user("Weather?"),
        c.choices[0]!.message,
        { role: "tool", tool_call_id: call.id, content: "21 C" },
      ];
      const after = await client.chat.completions.create({
        model: server.modelId,
        messages: next,
        max_tokens: 8,
        seed,
      });
      expect(after.choices[0]!.message.role).toBe("assistant");
    }
    const stream = await client.chat.completions.create({
      model: server.modelId,
      messages: [user("Weather?")],
      tools: [weather],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      max_tokens: 160,
      seed: 4,
      stream: true,
    });
    let args = "";
    let name = "";
    let finish: string | null = null;
    let callChunks = 0;
    for await (const chunk of stream) {
      const calls = chunk.choices[0]?.delta.tool_calls ?? [];
      if (calls.length > 0) callChunks++;
      for (const t of calls) {
        name += t.function?.name ?? "";
        args += t.function?.arguments ?? "";
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe("tool_calls");
    expect(name).toBe("get_weather");
    expect(validWeather(JSON.parse(args)), args).toBe(true);
    // Streamed as written, as OpenAI streams a call: its name first, then its arguments in pieces.
    expect(callChunks).toBeGreaterThan(2);
  });

  it("a call max_tokens cuts: content unstreamed; streamed, a call from its name on, kept as written", async () => {
    // From 20 tokens on (the shortest call: a smaller max_tokens is a 400, below); random weights write longer calls.
    for (const max_tokens of [20, 32]) {
      const params = {
        model: server.modelId,
        messages: [user("Weather?")],
        tools: [weather],
        tool_choice: "required" as const,
        max_tokens,
        seed: 1,
      };
      const c = await client.chat.completions.create(params);
      expect(c.choices[0]!.finish_reason).toBe("length");
      expect(c.choices[0]!.message.tool_calls ?? []).toEqual([]);
      // The model's text is kept: the start of the call the grammar made it write.
      expect(c.choices[0]!.message.content).toMatch(/^\{\s*"name"/);
      // Streamed, the call went out from its name on (as OpenAI streams a call's arguments): it stays a call,
      // its arguments as far as the model wrote them, with no content.
      let content = "";
      let name = "";
      let args = "";
      let finish: string | null = null;
      for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) {
        for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
          expect(call.index).toBe(0);
          name += call.function?.name ?? "";
          args += call.function?.arguments ?? "";
        }
        content += chunk.choices[0]?.delta.content ?? "";
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(finish).toBe("length");
      expect(name).toBe("get_weather");
      expect(content).toBe("");
      expect(() => JSON.parse(args)).toThrow(SyntaxError);
    }
  });

  it("a max_tokens with no room for the required call is a 400 naming it, streamed or not", async () => {
    const params = {
      model: server.modelId,
      messages: [user("Weather?")],
      tools: [weather],
      tool_choice: "required" as const,
      max_tokens: 8,
    };
    for (const stream of [false, true]) {
      const error = await client.chat.completions.create({ ...params, stream }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error).toMatchObject({ status: 400, param: "max_tokens", type: "invalid_request_error" });
      expect((error as Error).message).toMatch(/maxTokens \(8\) has no room for a tool call: .* takes 20 tokens/);
    }
  });

  it("answers JSON under response_format json_schema and json_object", async () => {
    const c = await client.chat.completions.create({
      model: server.modelId,
      messages: [user("Sunny?")],
      response_format: { type: "json_schema", json_schema: { name: "answer", schema: answerSchema, strict: true } },
      max_tokens: 48,
      seed: 1,
    });
    expect(validAnswer(JSON.parse(c.choices[0]!.message.content!))).toBe(true);
    const o = await client.chat.completions.create({
      model: server.modelId,
      messages: [user("JSON please")],
      response_format: { type: "json_object" },
      max_tokens: 160,
      seed: 1,
      temperature: 0.5,
      top_p: 0.9,
    });
    if (o.choices[0]!.finish_reason === "stop")
      expect(typeof JSON.parse(o.choices[0]!.message.content!)).toBe("object");
    else expect(o.choices[0]!.finish_reason).toBe("length");
  });

  it("returns reasoning in reasoning_content, as llama-server does", async () => {
    const t = await thinkingServer.listen({ port: 0 });
    const thinker = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const c = await thinker.chat.completions.create({
      model: "thinker",
      messages: [user("Think")],
      max_tokens: 24,
      seed: 1,
      reasoning_effort: "low",
    });
    const message = c.choices[0]!.message as OpenAI.Chat.ChatCompletionMessage & { reasoning_content?: string };
    expect(c.model).toBe("thinker");
    expect((message.reasoning_content ?? "").length).toBeGreaterThan(0);
    const stream = await thinker.chat.completions.create({
      model: "thinker",
      messages: [user("Think")],
      max_tokens: 24,
      seed: 1,
      reasoning_effort: "high",
      stream: true,
    });
    let reasoning = "";
    for await (const chunk of stream)
      reasoning += (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? "";
    expect(reasoning.length).toBeGreaterThan(0);
  });

  it("aborts a stream from the client side, and the server goes on serving", async () => {
    const before = log.length;
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: server.modelId, messages: [user("Go on")], max_tokens: 500, response_format: LONG, stream: true },
      { signal: controller.signal },
    );
    let seen = 0;
    // OpenAI's SDK ends an aborted stream quietly.
    for await (const _ of stream) if (++seen === 2) controller.abort();
    // Chunks already on the wire still arrive (more on a loaded machine); the 500 tokens do not.
    expect(seen).toBeLessThan(100);
    while (server.inFlight > 0) await new Promise((r) => setTimeout(r, 10));
    expect(log.slice(before).filter((l) => /\(aborted\)/.test(l))).toHaveLength(1);
    // Aborted before the response: APIUserAbortError.
    await expect(
      client.chat.completions.create(
        { model: server.modelId, messages: [user("Hi")] },
        { signal: AbortSignal.abort() },
      ),
    ).rejects.toBeInstanceOf(APIUserAbortError);
    const c = await client.chat.completions.create({ model: server.modelId, messages: [user("Hi")], max_tokens: 4 });
    expect(c.choices[0]!.message.role).toBe("assistant");
  });
});

describe("auth and errors", () => {
  it("requires the Bearer key on every route but /health", async () => {
    const wrong = new OpenAI({ baseURL: `${url}/v1`, apiKey: "nope", maxRetries: 0 });
    await expect(
      wrong.chat.completions.create({ model: server.modelId, messages: [user("Hi")] }),
    ).rejects.toBeInstanceOf(AuthenticationError);
    await expect(wrong.models.list()).rejects.toMatchObject({ status: 401, code: "invalid_api_key" });
    const none = await fetch(`${url}/v1/models`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { message: string } }).error.message).toMatch(/didn't provide an API key/);
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
  });

  const BAD: { label: string; params: Record<string, unknown>; param: string; message: RegExp }[] = [
    { label: "n > 1", params: { n: 2 }, param: "n", message: /one choice/ },
    {
      label: "audio output",
      params: { modalities: ["text", "audio"], audio: { voice: "alloy", format: "mp3" } },
      param: "audio",
      message: /audio/,
    },
    {
      label: "an image part",
      params: {
        messages: [
          { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AA==" } }] },
        ],
      },
      param: "messages",
      message: /has no projector/,
    },
    {
      label: "a custom tool",
      params: { tools: [{ type: "custom", custom: { name: "x" } }] },
      param: "tools[0].type",
      message: /custom tools are not supported/,
    },
    {
      label: "an unknown parameter",
      params: { temprature: 1 },
      param: "temprature",
      message: /Unrecognized request argument supplied: temprature \(did you mean 'temperature'\?\)/,
    },
    {
      label: "max_tokens over the server's limit",
      params: { max_tokens: 100_000 },
      param: "max_tokens",
      message: /more than this server allows \(512\)/,
    },
    { label: "a temperature out of range", params: { temperature: 3 }, param: "temperature", message: /out of range/ },
    { label: "logprobs", params: { logprobs: true }, param: "logprobs", message: /not supported/ },
    {
      label: "a tool_choice naming no tool",
      params: { tools: [weather], tool_choice: { type: "function", function: { name: "nope" } } },
      param: "tool_choice.function.name",
      message: /no function named "nope"/,
    },
    {
      label: "a tool message without tool_call_id",
      params: { messages: [{ role: "tool", content: "x" }] },
      param: "messages[0].tool_call_id",
      message: /Missing required parameter/,
    },
  ];
  it.each(BAD)("refuses $label with a 400 naming the parameter", async ({ params, param, message }) => {
    const body = {
      model: server.modelId,
      messages: [user("Hi")],
      ...params,
    } as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
    const error = await client.chat.completions.create(body).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, param, type: "invalid_request_error" });
    expect((error as Error).message).toMatch(message);
  });

  it("answers bad bodies, sizes, routes and methods with OpenAI error JSON", async () => {
    const auth = { Authorization: `Bearer ${API_KEY}`, "Content-Type": "application/json" };
    const post = (body: string) => fetch(`${url}/v1/chat/completions`, { method: "POST", headers: auth, body });
    const cases: { res: Response; status: number; code: string | null }[] = [
      { res: await post("{not json"), status: 400, code: "invalid_json" },
      { res: await post(""), status: 400, code: "invalid_json" },
      { res: await post("[1]"), status: 400, code: "invalid_value" },
      {
        res: await post(JSON.stringify({ model: server.modelId, messages: [user("x".repeat(70 * 1024))] })),
        status: 413,
        code: "request_too_large",
      },
      { res: await fetch(`${url}/v1/nothing`, { headers: auth }), status: 404, code: "unknown_url" },
      { res: await fetch(`${url}/v1/chat/completions`, { headers: auth }), status: 405, code: "method_not_allowed" },
    ];
    for (const { res, status, code } of cases) {
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
      const body = (await res.json()) as { error: { message: string; type: string; code: string | null } };
      expect(body.error.code).toBe(code);
      expect(body.error.message.length).toBeGreaterThan(10);
    }
    await expect(client.models.retrieve("other-model")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("a prompt over the context is a 400 (context_length_exceeded), not a crash", async () => {
    const local = createServer(model, { maxBodyBytes: 4 * 1024 * 1024 });
    const { url: u } = await local.listen({ port: 0 });
    try {
      const c = new OpenAI({ baseURL: `${u}/v1`, apiKey: "x", maxRetries: 0 });
      const huge = "word ".repeat(Math.ceil(model.info.trainContextSize * 1.5));
      await expect(
        c.chat.completions.create({ model: local.modelId, messages: [user(huge)], max_tokens: 4 }),
      ).rejects.toMatchObject({ status: 400, code: "context_length_exceeded" });
      const ok = await c.chat.completions.create({ model: local.modelId, messages: [user("Hi")], max_tokens: 4 });
      expect(ok.choices).toHaveLength(1);
    } finally {
      await local.close();
    }
  });
});

/** Posts a streaming request with node:http and destroys the socket after the first event. */
function disconnectAfterFirstEvent(base: string, body: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/v1/chat/completions`,
      { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${API_KEY}` } },
      (res) => {
        res.once("data", () => {
          req.destroy();
          resolve();
        });
        res.once("error", () => undefined);
      },
    );
    req.on("error", (e) => (req.destroyed ? undefined : reject(e)));
    req.end(JSON.stringify(body));
  });
}

describe("connections and shutdown", () => {
  it("a client that disconnects aborts its generation", async () => {
    const before = log.length;
    await disconnectAfterFirstEvent(url, {
      model: server.modelId,
      messages: [user("Go on and on")],
      max_tokens: 512,
      response_format: LONG,
      stream: true,
      seed: 3,
    });
    // The server logs the request when its handler ends: aborted, long before 512 tokens.
    while (server.inFlight > 0) await new Promise((r) => setTimeout(r, 10));
    const lines = log.slice(before).filter((l) => l.startsWith("POST /v1/chat/completions"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/\(aborted\)/);
    // A non-streaming request whose client goes away is aborted as well.
    const controller = new AbortController();
    const pending = fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify({ model: server.modelId, messages: [user("More")], max_tokens: 512, response_format: LONG }),
      signal: controller.signal,
    });
    while (server.inFlight === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    await expect(pending).rejects.toThrow();
    while (server.inFlight > 0) await new Promise((r) => setTimeout(r, 10));
    expect(log.at(-1)).toMatch(/^POST \/v1\/chat\/completions .*\(aborted\)/);
  });

  it("close() drains requests in flight and refuses new ones", async () => {
    const local = createServer(model);
    const { url: u } = await local.listen({ port: 0 });
    const c = new OpenAI({ baseURL: `${u}/v1`, apiKey: "x", maxRetries: 0 });
    const stream = await c.chat.completions.create({
      model: local.modelId,
      messages: [user("Long story")],
      max_tokens: 48,
      response_format: LONG,
      stream: true,
    });
    const closing = local.close();
    let finish: string | null = null;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe("length");
    expect(chunks).toBeGreaterThan(1);
    await closing;
    expect(local.httpServer.listening).toBe(false);
    await expect(c.chat.completions.create({ model: local.modelId, messages: [user("Hi")] })).rejects.toThrow();
  });
});
