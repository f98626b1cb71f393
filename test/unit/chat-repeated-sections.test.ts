// Several call sections in a row (docs/reading-output.md), for every format with its own call
// syntax (dedicated handlers and the families llama.cpp gives one that the generic analysis
// reads): text, a call, more text, a call, trailing text; and two calls with only whitespace
// between. Every call is read and all text kept as content, whole and in chunks of every size
// from 1 to 7; with parallel calls off, the first call is read and the rest is content.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ChatStreamParser,
  accumulateDeltas,
  analyzeChatTemplate,
  generateChatParams,
  parseChatOutput,
  type ChatParams,
} from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { AssistantMessage, ToolDefinition } from "../../src/types.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

const tool = (name: string, properties: Record<string, object>): ToolDefinition => ({
  type: "function",
  function: { name, description: name, parameters: { type: "object", properties } },
});
const TOOLS = [tool("search", { q: { type: "string" } }), tool("submit", {})];

/** The two calls every output holds, in order: `search(q="x")`, then `submit()`. */
const CALLS: [string, object][] = [
  ["search", { q: "x" }],
  ["submit", {}],
];
const TEXTS = ["Alpha one", "Beta two", "Gamma three"];

/** How a format writes its output: calls, text, and what goes between two messages. */
interface Format {
  name: string;
  templates: string[];
  /** Call `i` of {@link CALLS} (its section or message). */
  call: (i: number) => string;
  /** Text as the format writes it; `last`: after the last call. */
  text?: (s: string, last: boolean) => string;
  /** Between two parts (default " "); `ws`: between two calls with nothing else (default "\n\n"). */
  join?: string;
  ws?: string;
  /** Written before and after the parts (a closed reasoning block, the end of the turn). */
  pre?: string;
  post?: string;
}

const kimiK2 = (i: number) =>
  `<|tool_calls_section_begin|><|tool_call_begin|>functions.${CALLS[i]![0]}:${i}<|tool_call_argument_begin|>` +
  `${JSON.stringify(CALLS[i]![1])}<|tool_call_end|><|tool_calls_section_end|>`;
const kimiK3 = (i: number) =>
  `<|open|>tools<|sep|><|open|>call tool="${CALLS[i]![0]}" index="${i + 1}"<|sep|>` +
  `${i === 0 ? '<|open|>argument key="q" type="string"<|sep|>x<|close|>argument<|sep|>' : ""}` +
  "<|close|>call<|sep|><|close|>tools<|sep|>";
const gptOss = (i: number) =>
  `<|channel|>commentary to=functions.${CALLS[i]![0]} <|constrain|>json<|message|>` +
  `${JSON.stringify(CALLS[i]![1])}<|call|>`;
const muse = (i: number) =>
  ` to=${CALLS[i]![0]}<|message|><atem:function_calls>\n<atem:invoke name="${CALLS[i]![0]}">\n` +
  `${i === 0 ? '<atem:parameter name="q">x</atem:parameter>\n' : ""}</atem:invoke>\n</atem:function_calls>`;
const qwenCoder = (i: number) =>
  `<tool_call>\n<function=${CALLS[i]![0]}>\n` +
  `${i === 0 ? "<parameter=q>\nx\n</parameter>\n" : ""}</function>\n</tool_call>`;
const dsml = (section: string) => (i: number) =>
  `<｜DSML｜${section}>\n<｜DSML｜invoke name="${CALLS[i]![0]}">\n` +
  `${i === 0 ? '<｜DSML｜parameter name="q" string="true">x</｜DSML｜parameter>\n' : ""}` +
  `</｜DSML｜invoke>\n</｜DSML｜${section}>`;
const cohere = (i: number) =>
  `<|START_ACTION|>[\n    {"tool_call_id": "${i}", "tool_name": "${CALLS[i]![0]}", "parameters": ` +
  `${JSON.stringify(CALLS[i]![1])}}\n]<|END_ACTION|>`;
const M = "]<]minimax[>[";

const FORMATS: Format[] = [
  { name: "Kimi K2", templates: ["moonshotai-Kimi-K2.jinja", "Kimi-K2-Instruct.jinja"], call: kimiK2 },
  {
    name: "Kimi K3",
    templates: ["Kimi-K3.jinja"],
    call: kimiK3,
    pre: "<|close|>think<|sep|>",
    post: "<|close|>message<|sep|><|end_of_msg|>",
  },
  {
    name: "Kimi K3, text in response blocks",
    templates: ["Kimi-K3.jinja"],
    call: kimiK3,
    text: (s) => `<|open|>response<|sep|>${s}<|close|>response<|sep|>`,
    pre: "<|close|>think<|sep|>",
    post: "<|close|>message<|sep|><|end_of_msg|>",
  },
  {
    name: "GPT-OSS (one call per message, preambles between, the answer last)",
    templates: ["openai-gpt-oss-120b.jinja"],
    call: gptOss,
    text: (s, last) => (last ? `<|channel|>final<|message|>${s}` : `<|channel|>commentary<|message|>${s}<|end|>`),
    join: "<|start|>assistant",
    ws: "<|start|>assistant",
  },
  {
    name: "Muse Glimmer (one call per message, answers between)",
    templates: ["muse-glimmer.jinja"],
    call: muse,
    text: (s) => ` to=user<|message|>${s}`,
    join: "<|eom|><|start|>assistant",
    ws: "<|eom|><|start|>assistant",
    post: "<|eot|>",
  },
  {
    name: "Functionary v3.2 (recipient lines)",
    templates: ["meetkai-functionary-medium-v3.2.jinja"],
    call: (i) => `${CALLS[i]![0]}\n${JSON.stringify(CALLS[i]![1])}`,
    text: (s) => `all\n${s}`,
    join: ">>>",
    ws: "\n\n>>>",
  },
  {
    name: "MiniCPM5",
    templates: ["openbmb-MiniCPM5-1B.jinja"],
    call: (i) => `<function name="${CALLS[i]![0]}">${i === 0 ? '<param name="q">x</param>' : ""}</function>`,
  },
  { name: "Qwen3-Coder", templates: ["Qwen3-Coder.jinja"], call: qwenCoder },
  {
    name: "Qwen3-Coder, after reasoning",
    templates: ["NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja", "Qwen3.5-4B.jinja"],
    call: qwenCoder,
    pre: "</think>\n",
  },
  { name: "DeepSeek V3.2", templates: ["deepseek-ai-DeepSeek-V3.2.jinja"], call: dsml("function_calls") },
  { name: "DeepSeek V4", templates: ["deepseek-ai-DeepSeek-V4.jinja"], call: dsml("tool_calls") },
  { name: "Cohere2 MoE", templates: ["Cohere2MoE.jinja"], call: cohere, pre: "<|END_THINKING|>" },
  {
    name: "Cohere2 MoE, wrapped text",
    templates: ["Cohere2MoE.jinja"],
    call: cohere,
    text: (s) => `<|START_TEXT|>${s}<|END_TEXT|>`,
    pre: "<|END_THINKING|>",
  },
  {
    name: "Ling 3",
    templates: ["inclusionai-ling-3.0-flash.jinja"],
    call: (i) =>
      `<tool_call>${CALLS[i]![0]}\n${i === 0 ? "<arg_key>q</arg_key>\n<arg_value>x</arg_value>\n" : "\n"}</tool_call>`,
    pre: "</think>",
  },
  {
    name: "GigaChat v3",
    templates: ["GigaChat3-10B-A1.8B.jinja"],
    call: (i) =>
      `<|message_sep|>\n\nfunction call<|role_sep|>\n` +
      `{"name": "${CALLS[i]![0]}", "arguments": ${JSON.stringify(CALLS[i]![1])}}`,
  },
  {
    name: "Gemma 4",
    templates: ["google-gemma-4-31B-it.jinja"],
    call: (i) => `<|tool_call>call:${CALLS[i]![0]}{${i === 0 ? 'q:<|"|>x<|"|>' : ""}}<tool_call|>`,
  },
  {
    name: "LFM2.5",
    templates: ["LFM2.5-8B-A1B.jinja"],
    call: (i) => `<|tool_call_start|>[${i === 0 ? 'search(q="x")' : "submit()"}]<|tool_call_end|>`,
  },
  {
    name: "MiniMax M3",
    templates: ["MiniMax-M3.jinja"],
    call: (i) =>
      `${M}<tool_call>${M}<invoke name="${CALLS[i]![0]}">` +
      `${i === 0 ? `${M}<q>x${M}</q>` : ""}${M}</invoke>${M}</tool_call>`,
    pre: "</mm:think>",
  },
  {
    name: "Ministral 3",
    templates: ["mistralai-Ministral-3-14B-Reasoning-2512.jinja"],
    call: (i) => `[TOOL_CALLS]${CALLS[i]![0]}[ARGS]${JSON.stringify(CALLS[i]![1])}`,
  },
];

/** The outputs of a format: text and calls interleaved, and two calls with only whitespace between. */
function outputsOf(f: Format): { shape: string; output: string; texts: string[] }[] {
  const text = f.text ?? ((s: string) => s);
  const wrap = (parts: string[], join: string) => `${f.pre ?? ""}${parts.join(join)}${f.post ?? ""}`;
  const join = f.join ?? " ";
  return [
    {
      shape: "text, call, text, call, text",
      output: wrap([text(TEXTS[0]!, false), f.call(0), text(TEXTS[1]!, false), f.call(1), text(TEXTS[2]!, true)], join),
      texts: TEXTS,
    },
    { shape: "call, whitespace, call", output: wrap([f.call(0), f.call(1)], f.ws ?? "\n\n"), texts: [] },
    {
      shape: "call, text, call",
      output: wrap([f.call(0), text(TEXTS[1]!, false), f.call(1)], join),
      texts: [TEXTS[1]!],
    },
  ];
}

const cache = new Map<string, ChatParams>();
function paramsOf(template: string, parallel: boolean): ChatParams {
  const key = `${template} ${parallel}`;
  let p = cache.get(key);
  if (!p) {
    const source = readFileSync(join(TEMPLATES_DIR, template), "utf8");
    const t = new ChatTemplate(source, { compat: "auto" });
    p = generateChatParams(analyzeChatTemplate(source, { template: t }), t, {
      messages: [{ role: "user", content: "Help" }],
      tools: TOOLS,
      ...(parallel ? {} : { parallelToolCalls: false }),
    });
    cache.set(key, p);
  }
  return p;
}

const calls = (m: AssistantMessage): [string, object][] =>
  (m.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments) as object]);
/** The message's text content without its whitespace (pieces in separate blocks join as written, without any). */
const letters = (m: AssistantMessage): string => (typeof m.content === "string" ? m.content : "").replace(/\s+/g, "");

/** Parses whole and in chunks of every size from 1 to 7 (all agree); returns the whole parse. */
function parseAllWays(params: ChatParams, output: string): AssistantMessage {
  const whole = parseChatOutput(params, output, { generateCallId: (i) => `c${i}` });
  for (let size = 1; size <= 7; size++) {
    const s = new ChatStreamParser(params, { generateCallId: (i) => `c${i}` });
    const deltas = [];
    for (let i = 0; i < output.length; i += size) deltas.push(...s.feed(output.slice(i, i + size)));
    deltas.push(...s.finish());
    expect(s.message(), `chunks of ${size}`).toEqual(whole);
    expect(accumulateDeltas(deltas), `deltas, chunks of ${size}`).toEqual(whole);
  }
  return whole;
}

const ROWS = FORMATS.flatMap((f) =>
  f.templates.flatMap((template) => outputsOf(f).map((o) => ({ format: f.name, template, ...o }))),
);

describe("several call sections in a row", () => {
  it.each(ROWS)("$format, $template: $shape", ({ template, output, texts }) => {
    const m = parseAllWays(paramsOf(template, true), output);
    expect(calls(m)).toEqual(CALLS);
    expect(m.reasoning_content ?? "").toBe("");
    expect(letters(m)).toBe(texts.join("").replace(/\s+/g, ""));
  });

  it.each(ROWS)("$format, $template: $shape, parallel calls off", ({ template, output }) => {
    const m = parseAllWays(paramsOf(template, false), output);
    // The first call is read; the second is no call, and its text is kept.
    expect(calls(m)).toEqual(CALLS.slice(0, 1));
    expect(typeof m.content === "string" ? m.content : "").toContain(CALLS[1]![0]);
  });
});
