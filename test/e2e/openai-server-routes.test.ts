/**
 * The server's model names, CORS, /v1/embeddings, its maxTokens default and tool-schema errors,
 * through the real `openai` client and fetch on a tiny random-weight model: a name the server does
 * not serve is a 404 listing the names, aliases are accepted and listed, a request without `model`
 * gets the loaded one; CORS is off by default and answers preflights when on; embeddings match
 * model.embed() in float and base64; a request without max_tokens gets chat()'s default.
 */
import { basename } from "node:path";
import OpenAI, { BadRequestError, NotFoundError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type ToolwrightServer } from "../../src/server/index.js";
import { DEFAULT_MAX_TOKENS, loadModel, type ChatModel } from "../../src/session/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

const user = (content: string) => ({ role: "user" as const, content });
const ORIGIN = "https://app.example";

let model: ChatModel;
let plain: ToolwrightServer;
let named: ToolwrightServer;
let plainUrl: string;
let namedUrl: string;
let client: OpenAI;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" }));
  plain = createServer(model);
  ({ url: plainUrl } = await plain.listen({ port: 0 }));
  named = createServer(model, { modelId: "tiny", aliases: ["gpt-4o-mini"], cors: [ORIGIN], apiKey: "k" });
  ({ url: namedUrl } = await named.listen({ port: 0 }));
  client = new OpenAI({ baseURL: `${namedUrl}/v1`, apiKey: "k", maxRetries: 0 });
});
afterAll(async () => {
  await plain?.close({ timeoutMs: 0 });
  await named?.close({ timeoutMs: 0 });
  model?.dispose();
});

describe("model names", () => {
  it("/v1/models lists the id, the aliases and the file's name; each is accepted", async () => {
    const file = basename(model.path, ".gguf");
    expect(named.modelNames).toEqual(["tiny", "gpt-4o-mini", file]);
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(["tiny", "gpt-4o-mini", file]);
    expect((await client.models.retrieve("gpt-4o-mini")).id).toBe("gpt-4o-mini");
    for (const name of named.modelNames) {
      const c = await client.chat.completions.create({ model: name, messages: [user("Hi")], max_tokens: 2 });
      expect(c.choices).toHaveLength(1);
    }
  });

  it("a name the server does not serve is a 404 model_not_found listing the names it serves", async () => {
    const error = await client.chat.completions.create({ model: "gpt-5", messages: [user("Hi")], max_tokens: 2 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, param: "model", code: "model_not_found" });
    expect((error as Error).message).toMatch(
      /The model 'gpt-5' does not exist: this server serves 'tiny', 'gpt-4o-mini', /,
    );
    await expect(client.embeddings.create({ model: "gpt-5", input: "a" })).rejects.toMatchObject({
      status: 404,
      code: "model_not_found",
    });
    await expect(client.models.retrieve("gpt-5")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("a request without model gets the loaded one (OpenAI requires it; the server is lenient)", async () => {
    const res = await fetch(`${plainUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ messages: [user("Hi")], max_tokens: 2 }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { model: string }).model).toBe(plain.modelId);
  });
});

describe("CORS", () => {
  it("is off by default: no Access-Control headers, and a preflight is not answered as one", async () => {
    const res = await fetch(`${plainUrl}/v1/models`, { headers: { Origin: ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await fetch(`${plainUrl}/v1/chat/completions`, {
      method: "OPTIONS",
      headers: { Origin: ORIGIN, "Access-Control-Request-Method": "POST" },
    });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("with origins: an allowed origin gets its header (errors too); preflights need no key", async () => {
    const allowed = await fetch(`${namedUrl}/v1/models`, { headers: { Origin: ORIGIN, Authorization: "Bearer k" } });
    expect(allowed.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(allowed.headers.get("vary")).toMatch(/Origin/);
    const unauthorized = await fetch(`${namedUrl}/v1/models`, { headers: { Origin: ORIGIN } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    const other = await fetch(`${namedUrl}/v1/models`, {
      headers: { Origin: "https://evil.example", Authorization: "Bearer k" },
    });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await fetch(`${namedUrl}/v1/chat/completions`, {
      method: "OPTIONS",
      headers: {
        Origin: ORIGIN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(preflight.headers.get("access-control-allow-methods")).toMatch(/POST/);
    expect(preflight.headers.get("access-control-allow-headers")).toBe("authorization, content-type");
  });

  it('"*" allows any origin; a bad origin is refused when the server is made', async () => {
    const any = createServer(model, { cors: "*" });
    const { url } = await any.listen({ port: 0 });
    try {
      const res = await fetch(`${url}/health`, { headers: { Origin: "https://anything.example" } });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    } finally {
      await any.close();
    }
    expect(() => createServer(model, { cors: ["https://a.example/path"] })).toThrow(
      /createServer: options\.cors: "https:\/\/a\.example\/path" is not an origin/,
    );
  });
});

describe("/v1/embeddings", () => {
  const TEXTS = ["The cat sat on the mat.", "A ship at sea."];

  it("gives model.embed()'s vectors as floats or base64 (the openai client's default), with the tokens", async () => {
    const expected = await model.embed(TEXTS);
    const viaClient = await client.embeddings.create({ model: "tiny", input: TEXTS }); // base64 on the wire
    const res = await fetch(`${namedUrl}/v1/embeddings`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer k" },
      body: JSON.stringify({ model: "tiny", input: TEXTS, encoding_format: "float" }),
    });
    const floats = (await res.json()) as OpenAI.CreateEmbeddingResponse;
    for (const response of [viaClient, floats]) {
      expect(response.object).toBe("list");
      expect(response.model).toBe("tiny");
      expect(response.data.map((d) => d.index)).toEqual([0, 1]);
      response.data.forEach((d, i) => expect(Float32Array.from(d.embedding)).toEqual(expected[i]));
      const tokens = TEXTS.reduce((sum, t) => sum + model.tokenize(t).length, 0);
      expect(response.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    }
  });

  it("takes one string, token ids, and arrays of token ids (this model's)", async () => {
    const ids = Array.from(model.tokenize("a cat", { addSpecial: false }));
    const [fromIds] = await model.embed([model.detokenize(ids)]);
    const one = await client.embeddings.create({ model: "tiny", input: ids });
    const two = await client.embeddings.create({ model: "tiny", input: [ids, ids] });
    expect(Float32Array.from(one.data[0]!.embedding)).toEqual(fromIds);
    expect(two.data).toHaveLength(2);
    expect(one.usage.prompt_tokens).toBe(ids.length);
    const single = await client.embeddings.create({ model: "tiny", input: "a cat" });
    expect(single.data).toHaveLength(1);
  });

  const BAD: { label: string; body: Record<string, unknown>; param: string | null; message: RegExp }[] = [
    { label: "no input", body: {}, param: "input", message: /Missing required parameter: 'input'/ },
    { label: "an empty array", body: { input: [] }, param: "input", message: /empty array/ },
    { label: "an empty string", body: { input: ["a", ""] }, param: "input[1]", message: /nothing to embed/ },
    { label: "a number", body: { input: 5 }, param: "input", message: /Invalid type for 'input'/ },
    { label: "a token beyond the vocabulary", body: { input: [10_000_000] }, param: "input", message: /tokens/ },
    {
      label: "another encoding",
      body: { input: "a", encoding_format: "int8" },
      param: "encoding_format",
      message: /"float" and "base64"/,
    },
    { label: "other dimensions", body: { input: "a", dimensions: 3 }, param: "dimensions", message: /dimensions/ },
    { label: "an unknown parameter", body: { input: "a", pooling: "cls" }, param: "pooling", message: /Unrecognized/ },
  ];
  it.each(BAD)("refuses $label with a 400 naming the parameter", async ({ body, param, message }) => {
    const error = await client.embeddings.create({ model: "tiny", ...body } as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, param });
    expect((error as Error).message).toMatch(message);
  });
});

describe("requests", () => {
  it("a request without max_tokens gets chat()'s one default; the server sets no limit of its own", async () => {
    const c = new OpenAI({ baseURL: `${plainUrl}/v1`, apiKey: "x", maxRetries: 0 });
    const r = await c.chat.completions.create({
      model: plain.modelId,
      messages: [user("Write")],
      // A string longer than the default lets a random-weight model write until the limit.
      response_format: {
        type: "json_schema",
        json_schema: { name: "long", schema: { type: "string", minLength: 20_000 } },
      },
      temperature: 0,
    });
    expect(r.choices[0]!.finish_reason).toBe("length");
    expect(r.usage!.completion_tokens).toBe(DEFAULT_MAX_TOKENS);
  });

  it("a tool schema no grammar can be made from is a 400 naming the tool, with its JSON pointer in param", async () => {
    const broken = {
      type: "function" as const,
      function: {
        name: "get_time",
        parameters: { type: "object", properties: { zone: { $ref: "#/$defs/missing" } } },
      },
    };
    const ok = { type: "function" as const, function: { name: "noop", parameters: { type: "object" } } };
    const error = await client.chat.completions
      .create({ model: "tiny", messages: [user("Hi")], tools: [ok, broken], max_tokens: 2 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, param: "tools[1].function.parameters#/properties/zone" });
    expect((error as Error).message).toMatch(/tools\[1\] \("get_time"\).*\$defs\/missing/);
  });
});
