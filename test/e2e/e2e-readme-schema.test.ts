/**
 * The README's tool on random-weight models: with `additionalProperties` unspecified the grammar
 * lets the model write only the declared key (`city`), in every call, under every seed; the same
 * schema with `additionalProperties: true` lets it invent keys (random weights do), which shows
 * the check can fail. A strict tool behaves the same, and its execute gets typed arguments.
 *
 * Requests run in a one-thread session (what `model.chat()` runs, on its own context): on a
 * loaded 2-core machine the default thread per core waits on the other at every step of every
 * token, which made a 128-token request take seconds instead of milliseconds on these tiny models.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatSession, defineTool, loadModel, type ChatModel } from "../../src/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

const README_SCHEMA = {
  type: "object",
  properties: { city: { type: "string", maxLength: 40 } },
  required: ["city"],
} as const;
const TEMPLATES = ["meta-llama-Llama-3.1-8B-Instruct", "Qwen-Qwen3-0.6B", "Mistral-Small-3.2-24B-Instruct-2506"];
const SEEDS = [1, 2, 3, 4, 5];

const models: ChatModel[] = [];
const sessions = new Map<string, ChatSession>();
beforeAll(async () => {
  for (const template of TEMPLATES) {
    const model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template }));
    models.push(model);
    sessions.set(template, new ChatSession(model, { context: { threads: 1 } }));
  }
});
afterAll(() => {
  for (const s of sessions.values()) s.dispose();
  for (const m of models) m.dispose();
});

/**
 * Per seed, the call the model writes: its argument keys, or "cut" when maxTokens cut it (the call
 * is then no call: its text is the content, finish reason "length").
 * One call per request: with parallel calls allowed, random weights open call after call until
 * maxTokens cuts the last one, whatever the schema, and that cut says nothing of the grammar.
 */
async function callsWritten(
  session: ChatSession,
  parameters: Record<string, unknown>,
  seeds: number[],
  strict = false,
): Promise<(string[] | "cut")[]> {
  const out: (string[] | "cut")[] = [];
  for (const seed of seeds) {
    const tool = {
      type: "function" as const,
      function: { name: "get_weather", description: "Current weather in a city", parameters, strict },
    };
    const r = await session.chat({
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [tool],
      toolChoice: "required",
      parallelToolCalls: false,
      maxTokens: 128,
      sampling: { seed },
    });
    for (const call of r.message.tool_calls ?? []) out.push(Object.keys(JSON.parse(call.function.arguments) as object));
    // Cut inside the call: its text is the content (a cut inside reasoning leaves no call at all).
    const content = typeof r.message.content === "string" ? r.message.content : "";
    if (r.finishReason === "length" && (r.message.tool_calls ?? []).length === 0 && content.includes("get_weather"))
      out.push("cut");
  }
  return out;
}

describe.each(TEMPLATES)("%s", (template) => {
  it("the README's schema: every call is complete and holds `city` and nothing else", async () => {
    const calls = await callsWritten(sessions.get(template)!, README_SCHEMA, SEEDS);
    expect(calls.length).toBeGreaterThanOrEqual(SEEDS.length);
    for (const c of calls) expect(c).toEqual(["city"]);
  });

  it("strict: true, the same", async () => {
    const calls = await callsWritten(sessions.get(template)!, README_SCHEMA, SEEDS.slice(0, 3), true);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    for (const c of calls) expect(c).toEqual(["city"]);
  });

  it("additionalProperties: true lets the model write other keys until maxTokens cuts the call (control)", async () => {
    const calls = await callsWritten(
      sessions.get(template)!,
      { ...README_SCHEMA, additionalProperties: true },
      SEEDS.slice(0, 3),
    );
    expect(calls.some((c) => c === "cut" || c.some((k) => k !== "city"))).toBe(true);
  });
});

it("the runner gives a defineTool's execute the checked arguments", async () => {
  const session = sessions.get(TEMPLATES[0]!)!;
  const seen: string[] = [];
  const tool = defineTool({
    name: "get_weather",
    parameters: README_SCHEMA,
    execute: ({ city }) => (seen.push(city), { city, temperature: 21 }),
  });
  const r = await session.chat({
    messages: [{ role: "user", content: "Weather in Paris?" }],
    tools: [tool],
    toolChoice: "required",
    maxTokens: 128,
    maxSteps: 2,
    sampling: { seed: 1 },
  });
  expect(r.steps[0]!.message.tool_calls?.length).toBeGreaterThan(0);
  const first = r.steps[0]!.message.tool_calls![0]!;
  if (!first.incomplete) expect(seen[0]).toBe((JSON.parse(first.function.arguments) as { city: string }).city);
  expect(r.toolErrors.filter((e) => e.kind === "invalid_arguments")).toEqual([]);
});
