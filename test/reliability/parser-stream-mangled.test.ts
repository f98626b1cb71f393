// Mangled outputs whose streamed message once differed from the whole-text parse: one row per
// cause, each with the fewest split points that showed it (found by a seeded fuzzer flipping,
// deleting, duplicating and truncating characters of valid outputs). The whole parse must give
// the message the row wants, and streaming split there, in random chunks and char by char must
// give the same message, as must the sum of its deltas. Pure TypeScript: run in-process.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  accumulateDeltas,
  analyzeChatTemplate,
  type ChatParams,
  type ChatRequest,
  ChatStreamParser,
  generateChatParams,
  parseChatOutput,
} from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { AssistantMessage, ToolDefinition } from "../../src/types.js";
import { xorshiftRandom } from "../helpers/seeded-random.js";

const TEMPLATES = join(import.meta.dirname, "../../deps/llama.cpp/models/templates");
const IDS = { generateCallId: (i: number) => `call${i}` };

const tool = (name: string, properties: Record<string, unknown>, required: string[]): ToolDefinition => ({
  type: "function",
  function: { name, description: name, parameters: { type: "object", properties, required } },
});
const SPECIAL = tool("special_function", { arg1: { type: "integer" } }, ["arg1"]);
const WEATHER = tool("get_weather", { city: { type: "string" }, days: { type: "integer" } }, ["city"]);
const HTML = tool("html", { markup: { type: "string" } }, ["markup"]);

interface Row {
  cause: string;
  template: string;
  tools: ToolDefinition[];
  request?: Partial<ChatRequest>;
  output: string;
  /** The split points that showed the difference: after each of these texts, found in order. */
  cutsAfter: string[];
  want: { content: string | null; calls: [string, unknown][] };
}

const ROWS: Row[] = [
  {
    cause: "a call read up to its arguments, then the whole message read as content (malformed JSON arguments)",
    template: "openai-gpt-oss-120b.jinja",
    tools: [SPECIAL],
    output: '<|channel|>commentary to=functions.special_function<|message|>{"arg1":}',
    cutsAfter: ["<|message|>"],
    want: { content: '<|channel|>commentary to=functions.special_function<|message|>{"arg1":}', calls: [] },
  },
  {
    cause: "a section left open after its emitted call (a partial closer, then a call it may not hold)",
    template: "Qwen3-Coder.jinja",
    tools: [SPECIAL],
    request: { parallelToolCalls: false },
    output: "<tool_call>\n<function=special_function>\n<parameter=arg1>\n1\n</parameter>\n</function>\n<tool_call>",
    cutsAfter: ["</function>\n<t"],
    want: { content: "<tool_call>", calls: [["special_function", { arg1: 1 }]] },
  },
  {
    cause: "a call's name read, its arguments started, then the same call read another way (no arguments)",
    template: "poolside-Laguna-S-2.1.jinja",
    tools: [WEATHER],
    request: { parallelToolCalls: true },
    output:
      "</think><tool_call>get_weath{er<arg_key</arg_key><arg_value>Paris</arg_value></tool_call>" +
      "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Tokyo</arg_value></tool_call>",
    cutsAfter: ["get_weath{"],
    want: {
      content: "<tool_call>get_weath{er<arg_key</arg_key><arg_value>Paris</arg_value></tool_call>",
      calls: [["get_weather", { city: "Tokyo" }]],
    },
  },
  {
    cause: "an argument value read whole (a CDATA section), then read again another way (raw text)",
    template: "openbmb-MiniCPM5-1B.jinja",
    tools: [HTML],
    request: { parallelToolCalls: false, enableThinking: false },
    output: '<function name="html"><param name="markup"><![CDATA[x</para]]>m>]]></param></function>',
    cutsAfter: ["</para]]>"],
    want: { content: null, calls: [["html", { markup: "<![CDATA[x</para]]>m>]]>" }]] },
  },
  {
    cause: "an unfinished section ended sooner by a later reading (a partial closer that is not one)",
    template: "moonshotai-Kimi-K2.jinja",
    tools: [WEATHER],
    request: { parallelToolCalls: false },
    output:
      "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>" +
      '{"city": "Paris"}<|tool_call_end|><|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>' +
      '{"city": "Tokyo"}<|tool_call_end|><|tool_calls_sdction_end|>',
    cutsAfter: ["<|tool_call_end|><|t", "<|tool_call_"],
    want: {
      content:
        "<|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>" +
        '{"city": "Tokyo"}<|tool_call_end|><|tool_calls_sdction_end|>',
      calls: [["get_weather", { city: "Paris" }]],
    },
  },
];

/** The output split after each of `after`, searched in order. */
function splitAfter(output: string, after: string[]): string[] {
  const pieces: string[] = [];
  let from = 0;
  for (const text of after) {
    const at = output.indexOf(text, from);
    expect(at, `"${text}" is in the output`).toBeGreaterThanOrEqual(0);
    pieces.push(output.slice(from, at + text.length));
    from = at + text.length;
  }
  return [...pieces, output.slice(from)];
}

function paramsOf(row: Row): ChatParams {
  const source = readFileSync(join(TEMPLATES, row.template), "utf8");
  const template = new ChatTemplate(source, { compat: "auto" });
  const analysis = analyzeChatTemplate(source, { template });
  return generateChatParams(analysis, template, {
    messages: [{ role: "user", content: "Please help." }],
    tools: row.tools,
    toolChoice: "auto",
    ...row.request,
  });
}

/** The message streamed in the given pieces, and what its deltas add up to. */
function streamed(params: ChatParams, pieces: string[]): { message: AssistantMessage; sum: AssistantMessage } {
  const parser = new ChatStreamParser(params, IDS);
  const deltas = pieces.flatMap((p) => parser.feed(p));
  deltas.push(...parser.finish());
  return { message: parser.message(), sum: accumulateDeltas(deltas) };
}

function randomPieces(text: string, seed: number): string[] {
  const next = xorshiftRandom(seed);
  const pieces: string[] = [];
  for (let i = 0; i < text.length; ) {
    const k = 1 + Math.floor(next() * 8);
    pieces.push(text.slice(i, i + k));
    i += k;
  }
  return pieces;
}

const shape = (m: AssistantMessage) => ({
  content: m.content ?? null,
  calls: (m.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments)]),
});

describe("mangled outputs: the streamed message equals the whole-text parse", () => {
  it.each(ROWS)("$cause ($template)", (row) => {
    const params = paramsOf(row);
    const whole = parseChatOutput(params, row.output, IDS);
    expect(shape(whole)).toEqual(row.want);
    const splits: [string, string[]][] = [
      ["split at the cuts", splitAfter(row.output, row.cutsAfter)],
      ["char by char", Array.from(row.output)],
      ...[1, 2, 3].map((seed): [string, string[]] => [`random chunks ${seed}`, randomPieces(row.output, seed)]),
    ];
    for (const [how, pieces] of splits) {
      const { message, sum } = streamed(params, pieces);
      expect(message, how).toEqual(whole);
      expect(sum, `${how}: deltas`).toEqual(whole);
    }
  });
});
