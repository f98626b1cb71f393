// Reasoning a model opens after content (models that interleave thinking with their answer): the splitter on
// its own, fed in every chunking, and whole outputs through the generic formats' parsers, whole and streamed.
// A request that does not think and inline reasoning (reasoningFormat "none") keep the text as content.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ChatStreamParser,
  accumulateDeltas,
  analyzeChatTemplate,
  generateChatParams,
  parseChatOutput,
} from "../../src/chat/index.js";
import { ReasoningInContent, type SplitPiece } from "../../src/chat/reasoning-in-content.js";
import { ChatTemplate } from "../../src/template/index.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

/** The pieces of `text` fed in chunks of `size`, joined per field in order. */
function split(text: string, size: number, resume = ""): [string, string][] {
  const s = new ReasoningInContent("<think>", "</think>", resume);
  const pieces: SplitPiece[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(...s.feed(text.slice(i, i + size), i));
  pieces.push(...s.flush());
  const out: [string, string][] = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (last && last[0] === p.field) last[1] += p.text;
    else out.push([p.field, p.text]);
  }
  return out;
}

const SPLITS: { text: string; want: [string, string][]; resume?: string }[] = [
  { text: "plain text", want: [["content", "plain text"]] },
  {
    text: "Text <think>hm</think> More",
    want: [
      ["content", "Text "],
      ["reasoning", "hm"],
      ["content", " More"],
    ],
  },
  {
    text: "Before <think>left open",
    want: [
      ["content", "Before "],
      ["reasoning", "left open"],
    ],
  },
  { text: "a < b <thin", want: [["content", "a < b <thin"]] },
  {
    text: "x<think>a</thi",
    want: [
      ["content", "x"],
      ["reasoning", "a</thi"],
    ],
  },
  {
    text: "Text <think>hm</think><c> More <c>",
    resume: "<c>",
    want: [
      ["content", "Text "],
      ["reasoning", "hm"],
      ["content", " More <c>"],
    ],
  },
  {
    text: "Text <think>hm</think><x> More",
    resume: "<c>",
    want: [
      ["content", "Text "],
      ["reasoning", "hm"],
      ["content", "<x> More"],
    ],
  },
  { text: "Literal `<think>` and `</think>` here.", want: [["content", "Literal `<think>` and `</think>` here."]] },
  {
    text: "Say `<think>` then <think>hm`</think>`x",
    want: [
      ["content", "Say `<think>` then "],
      ["reasoning", "hm`"],
      ["content", "`x"],
    ],
  },
  {
    text: "Code `<think>hm</think>",
    want: [
      ["content", "Code `"],
      ["reasoning", "hm"],
    ],
  },
  { text: "End `<think>", want: [["content", "End `<think>"]] },
  {
    text: "Text <think>hm</think><c",
    resume: "<c>",
    want: [
      ["content", "Text "],
      ["reasoning", "hm"],
      ["content", "<c"],
    ],
  },
];

describe("ReasoningInContent: the same split in every chunking", () => {
  it.each(SPLITS)("$text", ({ text, want, resume }) => {
    for (const size of [1, 2, 3, 5, text.length]) expect(split(text, size, resume), `chunks of ${size}`).toEqual(want);
  });

  it("keeps the offsets of each piece", () => {
    const s = new ReasoningInContent("<think>", "</think>");
    expect(s.feed("ab<think>cd</think>ef", 10)).toEqual([
      { field: "content", text: "ab", start: 10 },
      { field: "reasoning", text: "cd", start: 19 },
      { field: "content", text: "ef", start: 29 },
    ]);
  });

  it("places held text when the next text does not follow it in the input", () => {
    const s = new ReasoningInContent("<think>", "</think>");
    expect(s.feed("a <", 0)).toEqual([{ field: "content", text: "a ", start: 0 }]);
    expect(s.feed("b", 10)).toEqual([
      { field: "content", text: "<", start: 2 },
      { field: "content", text: "b", start: 10 },
    ]);
  });
});

function paramsOf(name: string, request: Record<string, unknown> = {}) {
  const source = readFileSync(join(TEMPLATES_DIR, name), "utf8");
  const template = new ChatTemplate(source, { compat: "auto" });
  const tools = [
    { type: "function" as const, function: { name: "get_weather", parameters: { type: "object", properties: {} } } },
  ];
  return generateChatParams(analyzeChatTemplate(source, { template }), template, {
    messages: [{ role: "user", content: "Hi" }],
    tools,
    ...request,
  });
}

const ROWS: {
  name: string;
  template: string;
  request?: Record<string, unknown>;
  output: string;
  content: string | null;
  reasoning?: string;
  calls?: string[];
}[] = [
  {
    name: "Qwen3: a block between two pieces of the answer",
    template: "Qwen-Qwen3-0.6B.jinja",
    output: "Text <think>Let me reconsider.</think> More",
    content: "Text  More",
    reasoning: "Let me reconsider.",
  },
  {
    name: "Qwen3: a block left open at the end",
    template: "Qwen-Qwen3-0.6B.jinja",
    output: "Before <think>Incomplete",
    content: "Before",
    reasoning: "Incomplete",
  },
  {
    name: "GLM 4.6: reasoning first, then content, a second block, then a call",
    template: "GLM-4.6.jinja",
    output: "<think>plan</think>Let me look.<think>which city?</think><tool_call>get_weather\n</tool_call>",
    content: "Let me look.",
    reasoning: "plan\nwhich city?",
    calls: ["get_weather"],
  },
  {
    name: "MiniMax M2 (the prompt opens reasoning): interleaved blocks after the answer",
    template: "MiniMax-M2.jinja",
    output: "First.</think>\n\nSome content. <think>Second thought</think> The end.",
    content: "Some content.  The end.",
    reasoning: "First.\nSecond thought",
  },
  {
    name: "Ministral 3 (its own parser): [THINK] blocks between the answer's pieces, then a call",
    template: "mistralai-Ministral-3-14B-Reasoning-2512.jinja",
    output: "Hello.[THINK]Hmm.[/THINK]More.[THINK]Check it.[/THINK][TOOL_CALLS]get_weather[ARGS]{}",
    content: "Hello.More.",
    reasoning: "Hmm.\nCheck it.",
    calls: ["get_weather"],
  },
  {
    name: "thinking off: the markers are the answer's text",
    template: "Qwen-Qwen3-0.6B.jinja",
    request: { enableThinking: false },
    output: "Text <think>not reasoning</think> More",
    content: "Text <think>not reasoning</think> More",
  },
  {
    name: "inline reasoning (reasoningFormat none): the markers are the answer's text",
    template: "Qwen-Qwen3-0.6B.jinja",
    request: { reasoningFormat: "none" },
    output: "Text <think>kept</think> More",
    content: "Text <think>kept</think> More",
  },
];

describe("a reasoning block opened after content", () => {
  it.each(ROWS)("$name", ({ template, request, output, content, reasoning, calls }) => {
    const params = paramsOf(template, request);
    const whole = parseChatOutput(params, output);
    expect(whole.content).toBe(content);
    expect(whole.reasoning_content).toBe(reasoning);
    expect((whole.tool_calls ?? []).map((c) => c.function.name)).toEqual(calls ?? []);
    for (const size of [1, 4]) {
      const s = new ChatStreamParser(params);
      const deltas = [];
      for (let i = 0; i < output.length; i += size) deltas.push(...s.feed(output.slice(i, i + size)));
      deltas.push(...s.finish());
      const streamed = accumulateDeltas(deltas);
      expect({ ...streamed, tool_calls: streamed.tool_calls?.map((c) => c.function) }).toEqual({
        ...whole,
        tool_calls: whole.tool_calls?.map((c) => c.function),
      });
    }
  });
});
