// Output that does not follow the format (truncated, unknown tool, broken JSON, text where a
// call was required, trailing text) never throws and loses no text: finished calls are kept; a
// call the model did not finish, or a malformed one, is never a call: its text is content.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  analyzeChatTemplate,
  ChatStreamParser,
  accumulateDeltas,
  generateChatParams,
  parseChatOutput,
  type ChatParams,
  type ChatRequest,
} from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { AssistantMessage } from "../../src/types.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";
import { SCENARIOS, TOOLS, USER, generatedPart, scenarioParams, toolTemplates } from "../helpers/chat-roundtrip.js";

const cache = new Map<string, ChatParams>();
function params(name: string, extra: Partial<ChatRequest> = {}): ChatParams {
  const key = name + JSON.stringify(extra);
  let p = cache.get(key);
  if (!p) {
    const source = readFileSync(join(TEMPLATES_DIR, name), "utf8");
    const template = new ChatTemplate(source);
    p = generateChatParams(analyzeChatTemplate(source, { template }), template, {
      messages: [USER],
      tools: TOOLS,
      ...extra,
    });
    cache.set(key, p);
  }
  return p;
}

const QWEN = "Qwen-Qwen3-0.6B.jinja";
const CODER = "Qwen3-Coder.jinja";
const MISTRAL = "Mistral-Small-3.2-24B-Instruct-2506.jinja";
const LLAMA = "meta-llama-Llama-3.1-8B-Instruct.jinja";
const GPT_OSS = "openai-gpt-oss-120b.jinja";

/** The expected message is the output as content: no call was finished. */
const AS_WRITTEN = "as written";

const call = (name: string, args: unknown, id = "id0") => ({
  id,
  type: "function" as const,
  function: { name, arguments: JSON.stringify(args) },
});

interface Case {
  name: string;
  template: string;
  request?: Partial<ChatRequest>;
  output: string;
  expected: AssistantMessage | typeof AS_WRITTEN;
}

const CASES: Case[] = [
  {
    name: "truncated inside a JSON string argument: not a call",
    template: QWEN,
    output: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par',
    expected: AS_WRITTEN,
  },
  {
    name: "truncated inside an escape sequence",
    template: QWEN,
    output: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "a\\',
    expected: AS_WRITTEN,
  },
  {
    name: "truncated after the function name",
    template: QWEN,
    output: '<tool_call>\n{"name": "get_weather"',
    expected: AS_WRITTEN,
  },
  {
    name: "truncated inside a number, after reasoning: the call's text is content",
    template: QWEN,
    output: '<think>\nok\n</think>\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "X", "days": 1',
    expected: {
      role: "assistant",
      content: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "X", "days": 1',
      reasoning_content: "ok",
    },
  },
  {
    name: "truncated inside the function name: the text stays content",
    template: QWEN,
    output: 'Let me see. <tool_call>\n{"name": "get_wea',
    expected: { role: "assistant", content: 'Let me see. <tool_call>\n{"name": "get_wea' },
  },
  {
    name: "truncated inside the call marker",
    template: QWEN,
    output: "Let me see. <tool_ca",
    expected: { role: "assistant", content: "Let me see. <tool_ca" },
  },
  {
    name: "reasoning never closed",
    template: QWEN,
    output: "<think>\nStill thinking about",
    expected: { role: "assistant", content: "", reasoning_content: "Still thinking about" },
  },
  {
    name: "unknown tool name: all content",
    template: QWEN,
    output: 'Hi <tool_call>\n{"name": "nope", "arguments": {}}\n</tool_call>',
    expected: { role: "assistant", content: 'Hi <tool_call>\n{"name": "nope", "arguments": {}}\n</tool_call>' },
  },
  {
    name: "broken JSON: not a call, all content",
    template: QWEN,
    output: '<tool_call>\n{"name": "get_weather", "arguments": {"city": Paris}}\n</tool_call>',
    expected: AS_WRITTEN,
  },
  {
    name: "text after the calls becomes content",
    template: QWEN,
    output: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "X"}}\n</tool_call>\nDone, anything else?',
    expected: { role: "assistant", content: "Done, anything else?", tool_calls: [call("get_weather", { city: "X" })] },
  },
  {
    name: "Python-literal arguments are converted to JSON",
    template: QWEN,
    output: "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {'city': 'Paris', 'days': None}}\n</tool_call>",
    expected: { role: "assistant", content: null, tool_calls: [call("get_weather", { city: "Paris", days: null })] },
  },
  {
    name: "tool_choice required but the model answered in text",
    template: QWEN,
    request: { toolChoice: "required" },
    output: "I cannot call tools.",
    expected: { role: "assistant", content: "I cannot call tools." },
  },
  {
    name: "tagged: truncated inside a string value",
    template: CODER,
    output: "<tool_call>\n<function=get_weather>\n<parameter=city>\nPar",
    expected: AS_WRITTEN,
  },
  {
    name: "tagged: truncated inside a JSON value",
    template: CODER,
    output: "<tool_call>\n<function=get_weather>\n<parameter=city>\nX\n</parameter>\n<parameter=days>\n1",
    expected: AS_WRITTEN,
  },
  {
    name: "tagged: an undeclared argument is kept (argument checks report it)",
    template: CODER,
    output: "<tool_call>\n<function=get_weather>\n<parameter=town>\nParis\n</parameter>\n</function>\n</tool_call>",
    expected: { role: "assistant", content: null, tool_calls: [call("get_weather", { town: "Paris" })] },
  },
  {
    name: "call id read from the output, truncated arguments",
    template: MISTRAL,
    output: '[TOOL_CALLS]get_weather[CALL_ID]abc123XYZ[ARGS]{"city": "Pa',
    expected: AS_WRITTEN,
  },
  {
    name: "call id left out by the model: generated",
    template: MISTRAL,
    output: '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
    expected: { role: "assistant", content: null, tool_calls: [call("get_weather", { city: "Paris" })] },
  },
  {
    name: "markerless JSON calls: JSON in plain text stays content",
    template: LLAMA,
    output: 'Use {"foo": 1} as config.',
    expected: { role: "assistant", content: 'Use {"foo": 1} as config.' },
  },
  {
    name: "markerless JSON calls: truncated call",
    template: LLAMA,
    output: '{"name": "get_weather", "parameters": {"city": "Pa',
    expected: AS_WRITTEN,
  },
  {
    name: "GPT-OSS: truncated call after reasoning: its text is content",
    template: GPT_OSS,
    output:
      "<|channel|>analysis<|message|>thinking<|end|><|start|>assistant " +
      'to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Pa',
    expected: {
      role: "assistant",
      content: 'to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Pa',
      reasoning_content: "thinking",
    },
  },
  {
    name: "GPT-OSS: analysis channel never closed",
    template: GPT_OSS,
    output: "<|channel|>analysis<|message|>thinking hard",
    expected: { role: "assistant", content: "", reasoning_content: "thinking hard" },
  },
  { name: "empty output", template: QWEN, output: "", expected: { role: "assistant", content: "" } },
];

describe("non-conforming output", () => {
  it.each(CASES)("$name", ({ template, request, output, expected: want }) => {
    const p = params(template, request);
    const expected: AssistantMessage = want === AS_WRITTEN ? { role: "assistant", content: output } : want;
    const ids = { generateCallId: (i: number) => `id${i}` };
    expect(parseChatOutput(p, output, ids)).toEqual(expected);
    // Streamed one character at a time: the same message, and the deltas add up to it.
    const s = new ChatStreamParser(p, ids);
    const deltas = [...output].flatMap((c) => s.feed(c));
    deltas.push(...s.finish());
    expect(s.message()).toEqual(expected);
    expect(accumulateDeltas(deltas)).toEqual(expected);
  });
});

describe("every prefix of every rendered output parses without throwing, with JSON arguments", () => {
  const picked = [
    "Qwen-Qwen3-0.6B.jinja",
    "Qwen3-Coder.jinja",
    "GLM-4.6.jinja",
    "mistralai-Mistral-Nemo-Instruct-2407.jinja",
    "openai-gpt-oss-120b.jinja",
    "google-gemma-4-31B-it.jinja",
    "deepseek-ai-DeepSeek-V3.1.jinja",
  ];
  const templates = toolTemplates(undefined, (name) => picked.includes(name));
  it.each(templates.map((t) => ({ label: t.name, t })))("$label", ({ t }) => {
    for (const s of SCENARIOS) {
      if (s.parallel && !t.template.caps.supportsParallelToolCalls) continue;
      const p = scenarioParams(t, s);
      const g = generatedPart(t, s, p);
      if ("error" in g) continue;
      for (let n = 0; n <= g.output.length; n += 3) {
        const msg = parseChatOutput(p, g.output.slice(0, n));
        for (const c of msg.tool_calls ?? [])
          expect(() => JSON.parse(c.function.arguments), `${s.name} at ${n}: ${c.function.arguments}`).not.toThrow();
      }
    }
  });
});
