// A seeded sweep of hostile model outputs through the chat parser: for each template, random
// splices of its own markers, JSON punctuation, tool names and noise; and mangled copies of valid
// outputs (characters flipped, deleted, duplicated, the text cut short). Parsing the whole text
// and streaming it in random chunks (and char by char) must give the same message, and neither
// may throw. Pure TypeScript: run in-process.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  accumulateDeltas,
  analyzeChatTemplate,
  ChatStreamParser,
  generateChatParams,
  parseChatOutput,
} from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { AssistantMessage } from "../../src/types.js";
import { generatedPart, SCENARIOS, scenarioFor, TOOLS, toolTemplates, USER } from "../helpers/chat-roundtrip.js";
import { lcgRandom } from "../helpers/seeded-random.js";

const TEMPLATES = join(import.meta.dirname, "../../deps/llama.cpp/models/templates");

const rng = lcgRandom;

const shape = (m: AssistantMessage) => ({
  content: m.content ?? null,
  reasoning: (m as { reasoning_content?: string | null }).reasoning_content ?? null,
  calls: (m.tool_calls ?? []).map((c) => [c.function.name, c.function.arguments]),
});

function streamed(params: ReturnType<typeof generateChatParams>, text: string, next: () => number): AssistantMessage {
  const s = new ChatStreamParser(params);
  for (let i = 0; i < text.length; ) {
    const k = 1 + Math.floor(next() * 6);
    s.feed(text.slice(i, i + k));
    i += k;
  }
  s.finish();
  return s.message();
}

function hostilePieces(name: string): string[] {
  const tool = TOOLS[0]!.function.name;
  return [
    `{"name": "${tool}", "parameters": {`,
    `{"name": "${tool}", "arguments": {`,
    `{"type": "function", "name": "${tool}", "parameters": `,
    '"city": "Paris"',
    "}}",
    "}",
    "{",
    "[",
    "]",
    '"',
    ":",
    ",",
    " ",
    "\n",
    "\\",
    "\\u00",
    "hello",
    "<|python_tag|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|start_header_id|>assistant<|end_header_id|>\n\n",
    'brave_search.call(query="x")',
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    name,
  ];
}

const CASES = [
  "meta-llama-Llama-3.1-8B-Instruct",
  "meta-llama-Llama-3.2-3B-Instruct",
  "NousResearch-Hermes-3-Llama-3.1-8B-tool_use",
  "Qwen-Qwen3-0.6B",
  "mistralai-Mistral-Nemo-Instruct-2407",
];

describe.each(CASES)("%s: hostile outputs", (name) => {
  let source: string;
  try {
    source = readFileSync(join(TEMPLATES, `${name}.jinja`), "utf8");
  } catch {
    it.skip(`template ${name} not in deps/llama.cpp`, () => {});
    return;
  }
  const template = new ChatTemplate(source, { compat: "auto" });
  const analysis = analyzeChatTemplate(source, { template, cache: false });
  const params = generateChatParams(analysis, template, { messages: [USER], tools: TOOLS });
  const pieces = hostilePieces(TOOLS[0]!.function.name);

  it("whole and streamed agree on 800 seeded outputs, and neither throws", () => {
    const next = rng(0x5eed ^ name.length);
    const mismatches: string[] = [];
    for (let n = 0; n < 800; n++) {
      let text = "";
      const len = 1 + Math.floor(next() * 14);
      for (let i = 0; i < len; i++) text += pieces[Math.floor(next() * pieces.length)];
      const whole = shape(parseChatOutput(params, text));
      const stream = shape(streamed(params, text, next));
      if (JSON.stringify(whole) !== JSON.stringify(stream))
        mismatches.push(
          `${JSON.stringify(text)}\n  whole ${JSON.stringify(whole)}\n  streamed ${JSON.stringify(stream)}`,
        );
    }
    expect(mismatches.slice(0, 5).join("\n")).toBe("");
  });

  it.each([50, 300, 400, 2000, 20000])("call arguments nested %i deep parse or fall back to content", (depth) => {
    const args = "[".repeat(depth) + "]".repeat(depth);
    const text = `{"name": "${TOOLS[0]!.function.name}", "parameters": {"city": ${args}}}`;
    const whole = shape(parseChatOutput(params, text));
    const stream = shape(streamed(params, text, rng(depth)));
    expect(stream).toEqual(whole);
    const unclosed = shape(
      parseChatOutput(
        params,
        `{"name": "${TOOLS[0]!.function.name}", "parameters": {"city": ${'{"a": '.repeat(depth)}`,
      ),
    );
    expect(unclosed).toBeDefined();
  });
});

/** One random change to `text`: a character replaced, bit-flipped, deleted or duplicated, a piece
 * of the text copied elsewhere (a marker twice), JSON punctuation broken, or the text cut short. */
function mangle(text: string, next: () => number): string {
  const r = (n: number) => Math.floor(next() * n);
  const i = r(text.length);
  const noise = '<>{}[]":,|/\\ \nax0=';
  switch (r(7)) {
    case 0:
      return text.slice(0, i) + noise[r(noise.length)] + text.slice(i + 1);
    case 1:
      return text.slice(0, i) + String.fromCharCode(text.charCodeAt(i) ^ (1 << r(7))) + text.slice(i + 1);
    case 2:
      return text.slice(0, i) + text.slice(i + 1 + r(3));
    case 3: {
      const from = r(text.length);
      return text.slice(0, i) + text.slice(from, from + 1 + r(12)) + text.slice(i);
    }
    case 4: {
      const at = [...text].flatMap((c, j) => ('{}[]":,'.includes(c) ? [j] : []));
      const j = at.length > 0 ? at[r(at.length)]! : i;
      return text.slice(0, j) + (r(2) === 0 ? "" : '{}[]":,'[r(7)]) + text.slice(j + 1);
    }
    case 5:
      return text.slice(0, i);
    default:
      return text.slice(0, i) + text.slice(i, i + 1 + r(6)) + text.slice(i);
  }
}

const MANGLED = ["Qwen-Qwen3-0.6B.jinja", "Qwen3-Coder.jinja", "moonshotai-Kimi-K2.jinja", "openai-gpt-oss-120b.jinja"];
/** Valid outputs in a shape the template does not render but models write (the channel before the recipient). */
const WRITTEN: Record<string, string[]> = {
  "openai-gpt-oss-120b.jinja": ['<|channel|>commentary to=functions.get_weather<|message|>{"city": "Paris"}'],
};

describe("mangled valid outputs: whole and streamed agree", () => {
  const templates = toolTemplates(undefined, (f) => MANGLED.includes(f));
  it("covers the templates", () => {
    expect(templates.map((t) => t.name).sort()).toEqual([...MANGLED].sort());
  });

  describe.each(templates)("$name", (t) => {
    // Valid outputs: each call scenario as the template renders it, read with and without parallel calls.
    const seeds = SCENARIOS.filter((s) => s.message.tool_calls).flatMap((s) =>
      [true, false].flatMap((parallelToolCalls) => {
        const params = generateChatParams(t.analysis, t.template, {
          messages: [USER],
          tools: TOOLS,
          parallelToolCalls,
        });
        const g = generatedPart(t, scenarioFor(t, s), params);
        const written = (WRITTEN[t.name] ?? []).map((output) => ({ params, output }));
        return "output" in g ? [{ params, output: g.output }, ...written] : written;
      }),
    );

    it("on 60 mangled copies of each valid output, in random chunks and char by char", () => {
      expect(seeds.length).toBeGreaterThan(0);
      const next = rng(0x3a7 ^ t.name.length);
      const ids = { generateCallId: (i: number) => `call${i}` };
      const mismatches: string[] = [];
      for (const { params, output } of seeds) {
        for (let n = 0; n < 60; n++) {
          let text = mangle(output, next);
          if (next() < 0.3) text = mangle(text, next);
          const whole = JSON.stringify(parseChatOutput(params, text, ids));
          for (const max of [1, 4]) {
            const s = new ChatStreamParser(params, ids);
            const deltas = [];
            for (let i = 0; i < text.length; ) {
              const k = 1 + Math.floor(next() * max);
              deltas.push(...s.feed(text.slice(i, i + k)));
              i += k;
            }
            deltas.push(...s.finish());
            const got = JSON.stringify(s.message());
            const sum = JSON.stringify(accumulateDeltas(deltas));
            if (got !== whole || sum !== whole)
              mismatches.push(`${JSON.stringify(text)}\n  whole ${whole}\n  streamed ${got}\n  deltas ${sum}`);
          }
        }
      }
      expect(mismatches.slice(0, 5).join("\n")).toBe("");
    });
  });
});
