// A call syntax the tools prompt teaches in words where the template renders no call (Granite
// 3.3: "respond only with <|tool_call|> followed by a JSON list of tools used"): the analysis
// reads the marker and the JSON shape from the prose, the parser reads that syntax whole and
// streamed, and the grammar writes it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  accumulateDeltas,
  analyzeChatTemplate,
  generateChatParams,
  parseChatOutput,
  type ChatParams,
} from "../../src/chat/index.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { AssistantMessage } from "../../src/types.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";
import { TOOLS, USER } from "../helpers/chat-roundtrip.js";
import { CALL_IDS, streamInChunks } from "../helpers/chunked-stream.js";
import { grammarInput } from "../helpers/grammar-input.js";

/** A template that renders no tool calls; given tools, its system turn says `instructions`. */
const teachingOnly = (instructions: string) => `<|sys|>You are a helpful assistant.
{%- if tools %} ${instructions}
{% for t in tools %}{{ t | tojson }}
{% endfor %}{% endif %}<|end|>
{%- for m in messages -%}
{%- if m.role == 'user' -%}<|usr|>{{ m.content }}<|end|>
{%- elif m.role == 'assistant' -%}<|bot|>{{ m.content }}<|end|>
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}<|bot|>{%- endif -%}`;

function setup(source: string) {
  const template = new ChatTemplate(source, { compat: "auto" });
  return { template, analysis: analyzeChatTemplate(source, { template, cache: false }) };
}

type Setup = ReturnType<typeof setup>;

const params = ({ template, analysis }: Setup, toolChoice: "auto" | "required"): ChatParams =>
  generateChatParams(analysis, template, { messages: [USER], tools: TOOLS, toolChoice });

/** The calls and content of a message, without the generated call ids. */
function reading(message: AssistantMessage) {
  return {
    content: String(message.content ?? "").trim(),
    calls: (message.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments)]),
  };
}

/** Parses `output` whole and streamed in chunks (three cuttings): one reading of all. */
function readAll(p: ChatParams, output: string) {
  const whole = reading(parseChatOutput(p, output, CALL_IDS));
  for (const seed of [1, 2, 3]) {
    const { deltas, parser } = streamInChunks(p, output, seed, 7);
    expect(reading(parser.message()), `seed ${seed}`).toEqual(whole);
    expect(reading(accumulateDeltas(deltas)), `deltas, seed ${seed}`).toEqual(whole);
  }
  return whole;
}

const PARIS = ["get_weather", { city: "Paris" }];

/** The checks every taught syntax passes: the call reads, text before it stays content, the grammar writes it. */
function checkTaught(s: Setup, call: string) {
  for (const toolChoice of ["auto", "required"] as const) {
    const p = params(s, toolChoice);
    expect(readAll(p, call), toolChoice).toEqual({ content: "", calls: [PARIS] });
    const text = grammarInput(p, call);
    expect(text, toolChoice).not.toBeNull();
    expect(matchGbnf(p.grammar!, text!).ok, `${toolChoice}: ${call}`).toBe(true);
  }
  const auto = params(s, "auto");
  expect(auto.grammarLazy).toBe(true);
  expect(readAll(auto, `Let me look that up.\n${call}`)).toEqual({ content: "Let me look that up.", calls: [PARIS] });
  expect(readAll(auto, "It is sunny in Paris.")).toEqual({ content: "It is sunny in Paris.", calls: [] });
}

describe("a call section taught in prose, where no call renders", () => {
  it.each([
    {
      label: "a marker followed by a JSON list",
      instructions: "When a tool is required, respond only with <|tool_call|> followed by a JSON list of tools used.",
      taught: { sectionStart: "<|tool_call|>", sectionEnd: "", toolsArrayWrapped: true },
      keys: { nameField: "name", argsField: "arguments" },
      call: '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    },
    {
      label: "a squared marker, then a JSON array of objects whose keys it quotes",
      instructions: 'To call tools, write [TOOL_CALLS] and then a JSON array of {"name": …, "parameters": …} objects.',
      taught: { sectionStart: "[TOOL_CALLS]", sectionEnd: "", toolsArrayWrapped: true },
      keys: { nameField: "name", argsField: "parameters" },
      call: '[TOOL_CALLS] [{"name": "get_weather", "parameters": {"city": "Paris"}}]',
    },
    {
      label: "a pair of tags around a JSON object",
      instructions: "Wrap a call in <call></call>: a JSON object with its name and arguments.",
      taught: { sectionStart: "<call>", sectionEnd: "</call>", toolsArrayWrapped: false },
      keys: { nameField: "name", argsField: "arguments" },
      call: '<call>{"name": "get_weather", "arguments": {"city": "Paris"}}</call>',
    },
  ])("$label", ({ instructions, taught, keys, call }) => {
    const s = setup(teachingOnly(instructions));
    expect(s.analysis.caps.supportsToolCalls).toBe(false);
    expect(s.analysis.tools.format).toMatchObject({ mode: "JSON_NATIVE", ...taught, ...keys });
    expect(s.analysis.preservedTokens).toContain(taught.sectionStart);
    checkTaught(s, call);
  });
});

describe("what is not a taught call section", () => {
  it.each([
    { label: "a marker without a JSON shape", instructions: "Use <|tool_call|> when you call a tool." },
    { label: "the JSON shape before the marker", instructions: "Reply with a JSON list of calls, then <|calls_end|>." },
    { label: "a marker the prompt renders without tools", instructions: "Start with <|sys|> followed by a JSON list." },
    {
      label: "the JSON shape in another sentence",
      instructions: "Write <|tool_call|> first. The tools below are a JSON list.",
    },
    {
      label: "the JSON shape far from the marker",
      instructions: "Respond with <|tool_call|>, then think about which tool fits best, and finally a JSON list.",
    },
  ])("$label", ({ instructions }) => {
    const s = setup(teachingOnly(instructions));
    expect(s.analysis.tools.format.mode).toBe("NONE");
    const p = params(s, "auto");
    expect(p.grammar).toBeNull();
    expect(parseChatOutput(p, '<|tool_call|>[{"name": "get_weather"}]').tool_calls ?? []).toEqual([]);
  });

  it("a template that renders its calls keeps the rendered format", () => {
    const source = `{%- for m in messages -%}
{%- if m.role == 'user' -%}<|sys|>Respond with <|tool_call|> followed by a JSON list.
{% for t in tools %}{{ t | tojson }}
{% endfor %}<|end|><|usr|>{{ m.content }}<|end|>
{%- elif m.role == 'assistant' -%}<|bot|>{% if m.tool_calls %}{% for c in m.tool_calls
%}<fn>{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments }}}</fn>{% endfor
%}{% else %}{{ m.content }}{% endif %}<|end|>
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}<|bot|>{%- endif -%}`;
    const { format } = setup(source).analysis.tools;
    expect(format.mode).toBe("JSON_NATIVE");
    expect([format.sectionStart, format.perCallStart]).toContain("<fn>");
    expect(format.sectionStart).not.toBe("<|tool_call|>");
  });
});

describe("Granite 3.3 (llama.cpp's models/templates)", () => {
  const s = setup(readFileSync(join(TEMPLATES_DIR, "ibm-granite-granite-3.3-2B-Instruct.jinja"), "utf8"));

  it("renders no call, and its prose teaches <|tool_call|> and a JSON list", () => {
    expect(s.analysis.caps.supportsToolCalls).toBe(false);
    expect(s.analysis.tools.format).toMatchObject({
      mode: "JSON_NATIVE",
      sectionStart: "<|tool_call|>",
      sectionEnd: "",
      toolsArrayWrapped: true,
      nameField: "name",
      argsField: "arguments",
    });
    expect(s.analysis.preservedTokens).toContain("<|tool_call|>");
  });

  it("the taught call parses whole and streamed, and the grammar writes it", () => {
    checkTaught(s, '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]');
  });

  it("the lazy grammar starts at the marker", () => {
    expect(params(s, "auto").grammarTriggers).toEqual([{ type: "word", value: "<|tool_call|>" }]);
  });
});
