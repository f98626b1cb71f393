/**
 * A bounded load test of the server on loopback: 200 requests from the real `openai` client at
 * concurrency 16, half streamed, one in four a tool call. Each request is marked so that an answer
 * delivered to another request is caught: tool calls under tool_choice "required" whose schema admits one ticket of
 * 8 (neighbours in flight differ; few grammars, so few grammar compilations), and plain chats
 * whose prompt length (16 kinds) shows in usage.prompt_tokens and whose max_tokens (6 kinds)
 * bounds their output. None may be lost, fail, or be mixed up; every call must be schema-valid.
 */
import { Ajv } from "ajv";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type ToolwrightServer } from "../../src/server/index.js";
import { loadModel, type ChatModel } from "../../src/session/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

const REQUESTS = 200;
const CONCURRENCY = 16;
const ajv = new Ajv({ strict: false });

let model: ChatModel;
let server: ToolwrightServer;
let client: OpenAI;
beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" }));
  server = createServer(model, { maxTokens: 256 });
  const { url } = await server.listen({ port: 0 });
  client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "none", maxRetries: 0, timeout: 600_000 });
  for (let k = 0; k < LENGTHS; k++) {
    const c = await client.chat.completions.create({
      model: server.modelId,
      messages: [{ role: "user", content: promptOf(k) }],
      max_tokens: 1,
    });
    expectedPromptTokens.push(c.usage!.prompt_tokens);
  }
  expect(new Set(expectedPromptTokens).size).toBe(LENGTHS);
});
afterAll(async () => {
  await server?.close({ timeoutMs: 0 });
  model?.dispose();
});

/** What one request got back, reduced to what the checks need. */
interface Outcome {
  ids: string[];
  finish: string | null;
  toolArgs: string | null;
  toolName: string | null;
  completionTokens: number;
  promptTokens: number;
}

const TICKETS = 8;
const LENGTHS = 16;
const promptOf = (i: number) => `Request ${"word ".repeat(i % LENGTHS)}`;
const maxTokensOf = (i: number) => 1 + (i % 6);
/** prompt_tokens of each prompt length, measured one request at a time. */
const expectedPromptTokens: number[] = [];

function ticketTool(i: number): OpenAI.Chat.ChatCompletionFunctionTool {
  return {
    type: "function",
    function: {
      name: "open_ticket",
      parameters: {
        type: "object",
        properties: { ticket: { type: "string", enum: [`t${(i >> 2) % TICKETS}`] } },
        required: ["ticket"],
        additionalProperties: false,
      },
    },
  };
}

async function one(i: number): Promise<Outcome> {
  const withTool = i % 4 === 0;
  const stream = i % 8 < 4;
  const params = {
    model: server.modelId,
    messages: [{ role: "user" as const, content: withTool ? `Ticket ${i}` : promptOf(i) }],
    seed: i,
    ...(withTool
      ? { tools: [ticketTool(i)], tool_choice: "required" as const, max_tokens: 160 }
      : { max_tokens: maxTokensOf(i) }),
  };
  if (!stream) {
    const c = await client.chat.completions.create(params);
    const call = c.choices[0]!.message.tool_calls?.[0];
    const fn = call?.type === "function" ? call.function : undefined;
    return {
      ids: [c.id],
      finish: c.choices[0]!.finish_reason,
      toolArgs: fn?.arguments ?? null,
      toolName: fn?.name ?? null,
      completionTokens: c.usage!.completion_tokens,
      promptTokens: c.usage!.prompt_tokens,
    };
  }
  const s = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
  const out: Outcome = { ids: [], finish: null, toolArgs: null, toolName: null, completionTokens: 0, promptTokens: 0 };
  for await (const chunk of s) {
    out.ids.push(chunk.id);
    out.finish = chunk.choices[0]?.finish_reason ?? out.finish;
    for (const t of chunk.choices[0]?.delta.tool_calls ?? []) {
      if (t.function?.name) out.toolName = (out.toolName ?? "") + t.function.name;
      if (t.function?.arguments) out.toolArgs = (out.toolArgs ?? "") + t.function.arguments;
    }
    if (chunk.usage) {
      out.completionTokens = chunk.usage.completion_tokens;
      out.promptTokens = chunk.usage.prompt_tokens;
    }
  }
  return out;
}

describe("the server under load", () => {
  it(`answers ${REQUESTS} requests at concurrency ${CONCURRENCY}: none lost, mixed up or invalid`, async () => {
    const outcomes = new Map<number, Outcome>();
    const failures: string[] = [];
    let next = 0;
    let active = 0;
    let peak = 0;
    const worker = async () => {
      while (next < REQUESTS) {
        const i = next++;
        active++;
        peak = Math.max(peak, active);
        try {
          outcomes.set(i, await one(i));
        } catch (e) {
          failures.push(`request ${i}: ${(e as Error).message}`);
        } finally {
          active--;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(failures).toEqual([]);
    expect(peak).toBe(CONCURRENCY);
    expect([...outcomes.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: REQUESTS }, (_, i) => i));
    const allIds = new Set<string>();
    for (const [i, o] of outcomes) {
      // One id per request, never shared with another request.
      expect(new Set(o.ids).size, `request ${i}`).toBe(1);
      expect(allIds.has(o.ids[0]!), `request ${i}`).toBe(false);
      allIds.add(o.ids[0]!);
      expect(o.completionTokens, `request ${i}`).toBeGreaterThan(0);
      if (i % 4 === 0) {
        expect(o.finish, `request ${i}`).toBe("tool_calls");
        expect(o.toolName, `request ${i}`).toBe("open_ticket");
        const args = JSON.parse(o.toolArgs!) as unknown;
        const valid = ajv.validate(ticketTool(i).function.parameters!, args);
        expect(valid, `request ${i}: ${o.toolArgs}`).toBe(true);
      } else {
        expect(["stop", "length"], `request ${i}`).toContain(o.finish);
        expect(o.toolArgs, `request ${i}`).toBeNull();
        expect(o.promptTokens, `request ${i}`).toBe(expectedPromptTokens[i % LENGTHS]);
        expect(o.completionTokens, `request ${i}`).toBeLessThanOrEqual(maxTokensOf(i));
        if (o.finish === "length") expect(o.completionTokens, `request ${i}`).toBe(maxTokensOf(i));
      }
    }
    expect(server.inFlight).toBe(0);
  }, 900_000);
});
