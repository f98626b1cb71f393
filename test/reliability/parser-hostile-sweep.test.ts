// A seeded sweep of hostile model outputs through the chat parser: for each template, random
// splices of its own markers, JSON punctuation, tool names and noise. Parsing the whole text and
// streaming it in random chunks must give the same message, and neither may throw. Pure
// TypeScript: run in-process.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate, ChatStreamParser, generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { AssistantMessage } from "../../src/types.js";
import { TOOLS, USER } from "../helpers/chat-roundtrip.js";
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
