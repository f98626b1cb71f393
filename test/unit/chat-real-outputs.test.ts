// What models really write, beyond what their templates render (docs/reading-output.md): each row
// is one shape of the superset the parser reads, or one rule for what is never a call, checked
// whole and in chunks of every size from 1 to 7 (the deltas add up to the message each time).
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
  function: { name, parameters: { type: "object", properties } },
});
const TOOLS = [
  tool("get_weather", { city: { type: "string" }, count: { type: "integer" }, todos: { type: "array" } }),
  tool("search", { q: { type: "string" } }),
  tool("submit", {}),
];

const cache = new Map<string, ChatParams>();
function paramsOf(template: string): ChatParams {
  let p = cache.get(template);
  if (!p) {
    const source = readFileSync(join(TEMPLATES_DIR, template), "utf8");
    const t = new ChatTemplate(source, { compat: "auto" });
    p = generateChatParams(analyzeChatTemplate(source, { template: t }), t, {
      messages: [{ role: "user", content: "Help" }],
      tools: TOOLS,
    });
    cache.set(template, p);
  }
  return p;
}

/** The calls and content a row expects (ids are not compared). */
interface Want {
  calls: [string, object][];
  content: string | null;
}

const LLAMA = "meta-llama-Llama-3.2-3B-Instruct.jinja";
const GLM = "GLM-4.7-Flash.jinja";
const GLM46 = "GLM-4.6.jinja";
const CODER = "Qwen3-Coder.jinja";
const DSV4 = "deepseek-ai-DeepSeek-V4.jinja";
const GPT_OSS = "openai-gpt-oss-120b.jinja";
const LFM2 = "LFM2-8B-A1B.jinja";
const QWEN = "Qwen-Qwen3-0.6B.jinja";
const KIMI = "moonshotai-Kimi-K2.jinja";
const GEMMA4 = "google-gemma-4-31B-it.jinja";
const MINIMAX = "MiniMax-M3.jinja";
const MINISTRAL = "mistralai-Ministral-3-14B-Reasoning-2512.jinja";
const DEVSTRAL = "unsloth-mistral-Devstral-Small-2507.jinja";
const HY3 = "tencent-Hy3.jinja";
const COHERE2 = "Cohere2MoE.jinja";
const QWEN25 = "Qwen-Qwen2.5-7B-Instruct.jinja";

const WEATHER = '{"name": "get_weather", "parameters": {"city": "Paris"}}';

/** One shape; `ids`: the call ids expected where the model wrote them (else ids are not compared). */
const ROWS: { name: string; template: string; output: string; want: Want; ids?: string[] }[] = [
  {
    name: "a special token before markerless JSON calls, `;` between them",
    template: LLAMA,
    output:
      '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}};{"name": "search", "parameters": {}}',
    want: {
      calls: [
        ["get_weather", { city: "Paris" }],
        ["search", {}],
      ],
      content: null,
    },
  },
  {
    name: "text, then a call a special token announces",
    template: LLAMA,
    output: 'Let me check. <|python_tag|>{"name": "get_weather", "parameters": {"city": "Tokyo"}}',
    want: { calls: [["get_weather", { city: "Tokyo" }]], content: "Let me check." },
  },
  {
    name: "a broken call without markers, then a valid one: the broken text is content, the call is read",
    template: LLAMA,
    output: '{"name": "get_weather", "parameters": {{"name": "search", "parameters": {"q": "x"}}',
    want: { calls: [["search", { q: "x" }]], content: '{"name": "get_weather", "parameters": {' },
  },
  {
    name: "after a broken call without markers, JSON whose name is no declared tool stays content",
    template: LLAMA,
    output: '{"name": "get_weather", "parameters": {{"name": "Bob", "parameters": {}}',
    want: { calls: [], content: '{"name": "get_weather", "parameters": {{"name": "Bob", "parameters": {}}' },
  },
  {
    name: "text, then a markerless JSON call, then text",
    template: LLAMA,
    output: 'Let me look. {"name": "search", "parameters": {"q": "x"}} Back soon.',
    want: { calls: [["search", { q: "x" }]], content: "Let me look.\nBack soon." },
  },
  {
    name: "text, then JSON naming no declared tool: content",
    template: LLAMA,
    output: 'For example {"name": "lookup", "parameters": {"q": "x"}} would look.',
    want: { calls: [], content: 'For example {"name": "lookup", "parameters": {"q": "x"}} would look.' },
  },
  {
    name: "JSON fields in any order, arguments under the other usual key",
    template: QWEN,
    output: '<tool_call>\n{"parameters": {"city": "Oslo"}, "name": "get_weather"}\n</tool_call>',
    want: { calls: [["get_weather", { city: "Oslo" }]], content: null },
  },
  {
    name: "several call sections with text between them",
    template: QWEN,
    output:
      '<tool_call>\n{"name": "search", "arguments": {"q": "a"}}\n</tool_call>\nand then\n' +
      '<tool_call>\n{"name": "search", "arguments": {"q": "b"}}\n</tool_call>',
    want: {
      calls: [
        ["search", { q: "a" }],
        ["search", { q: "b" }],
      ],
      content: "and then",
    },
  },
  {
    name: "one block per call, with text before, between and after the blocks (a format's own builder)",
    template: GEMMA4,
    output:
      'Some text <|tool_call>call:get_weather{city:<|"|>Tokyo<|"|>}<tool_call|> more text ' +
      '<|tool_call>call:search{q:<|"|>UTC<|"|>}<tool_call|> done<|tool_response>',
    want: {
      calls: [
        ["get_weather", { city: "Tokyo" }],
        ["search", { q: "UTC" }],
      ],
      content: "Some text \nmore text \ndone",
    },
  },
  {
    name: "call sections with text between them, a broken section between two good ones (a format's own builder)",
    template: LFM2,
    output:
      'First <|tool_call_start|>[search(q="a")]<|tool_call_end|> then <|tool_call_start|>[search(q=]<|tool_call_end|>' +
      " last <|tool_call_start|>[submit()]<|tool_call_end|>",
    want: {
      calls: [
        ["search", { q: "a" }],
        ["submit", {}],
      ],
      content: "First \nthen <|tool_call_start|>[search(q=]<|tool_call_end|> last",
    },
  },
  {
    name: "call sections with namespaced markers, text between and after them (a format's own builder)",
    template: MINIMAX,
    output:
      '</mm:think>A ]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="search">]<]minimax[>[<q>x]<]minimax[>[</q>' +
      ']<]minimax[>[</invoke>]<]minimax[>[</tool_call> B ]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="submit">' +
      "]<]minimax[>[</invoke>]<]minimax[>[</tool_call> C",
    want: {
      calls: [
        ["search", { q: "x" }],
        ["submit", {}],
      ],
      content: "A \nB \nC",
    },
  },
  {
    name: "calls each behind their own opener, with text between and after them (a format's own builder)",
    template: MINISTRAL,
    output: 'A [TOOL_CALLS]search[ARGS]{"q": "x"} B [TOOL_CALLS]submit[ARGS]{} C',
    want: {
      calls: [
        ["search", { q: "x" }],
        ["submit", {}],
      ],
      content: "A \nB \nC",
    },
  },
  {
    name: "the name followed directly by its JSON arguments, without the marker between them (a format's own builder)",
    template: DEVSTRAL,
    output: '[TOOL_CALLS]get_weather{"city": "Paris", "count": 2}',
    want: { calls: [["get_weather", { city: "Paris", count: 2 }]], content: null },
  },
  {
    name: "text, then calls each without the marker between name and arguments (a format's own builder)",
    template: DEVSTRAL,
    output: 'bla[TOOL_CALLS]search{"q": "a"}[TOOL_CALLS]submit{}',
    want: {
      calls: [
        ["search", { q: "a" }],
        ["submit", {}],
      ],
      content: "bla",
    },
  },
  {
    name: "a declared name that only begins a longer word, then JSON, is no call (a format's own builder)",
    template: DEVSTRAL,
    output: '[TOOL_CALLS]searcher{"q": "a"}',
    want: { calls: [], content: '[TOOL_CALLS]searcher{"q": "a"}' },
  },
  {
    name: "the arguments as JSON right after the name, without the separator marker the template writes",
    template: HY3,
    output:
      '<tool_calls:opensource>\n<tool_call:opensource>search{"q": "x"}</tool_call:opensource>\n' +
      "</tool_calls:opensource>",
    want: { calls: [["search", { q: "x" }]], content: null },
  },
  {
    name: "a tool name followed by JSON in text, with no call marker before it, is content",
    template: HY3,
    output: 'Try search{"q": "x"} later.',
    want: { calls: [], content: 'Try search{"q": "x"} later.' },
  },
  {
    name: "call sections with wrapped text between and after them, and plain text",
    template: COHERE2,
    output:
      '<|END_THINKING|>A <|START_ACTION|>[{"tool_call_id": "0", "tool_name": "search", "parameters": {"q": "x"}}]' +
      '<|END_ACTION|><|START_TEXT|>B<|END_TEXT|> <|START_ACTION|>[{"tool_call_id": "1", "tool_name": "submit", ' +
      '"parameters": {}}]<|END_ACTION|> <|START_TEXT|>C<|END_TEXT|>',
    want: {
      calls: [
        ["search", { q: "x" }],
        ["submit", {}],
      ],
      content: "A \nB\nC",
    },
  },
  {
    name: "one call per message, the recipient in the header, messages between and after (a format's own builder)",
    template: GPT_OSS,
    output:
      ' to=functions.search<|channel|>commentary json<|message|>{"q": "x"}<|call|><|start|>assistant' +
      "<|channel|>commentary<|message|>B<|end|><|start|>assistant to=functions.submit<|channel|>commentary json" +
      "<|message|>{}<|call|><|start|>assistant<|channel|>final<|message|>C",
    want: {
      calls: [
        ["search", { q: "x" }],
        ["submit", {}],
      ],
      content: "B\nC",
    },
  },
  {
    name: "a value that does not fit its schema is kept as text",
    template: GLM,
    output: "<tool_call>get_weather<arg_key>count</arg_key><arg_value>not a number</arg_value></tool_call>",
    want: { calls: [["get_weather", { count: "not a number" }]], content: null },
  },
  {
    name: "JSON escaped once more in an array parameter is read as the array",
    template: GLM,
    output: '<tool_call>get_weather<arg_key>todos</arg_key><arg_value>[{\\"id\\": 1}]</arg_value></tool_call>',
    want: { calls: [["get_weather", { todos: [{ id: 1 }] }]], content: null },
  },
  {
    name: "whitespace between markers written as escape sequences; string values keep theirs",
    template: GLM46,
    output:
      "<tool_call>get_weather\\n<arg_key>city</arg_key>\\n<arg_value>a\\nb</arg_value>\\n" +
      '<arg_key>todos</arg_key>\\r\\n<arg_value>[{\\"id\\": 1, \\"t\\": \\"C:\\\\\\\\x \\\\\\\\n\\"}]</arg_value>' +
      "\\t\\n</tool_call>",
    want: { calls: [["get_weather", { city: "a\\nb", todos: [{ id: 1, t: "C:\\x \\n" }] }]], content: null },
  },
  {
    name: "an escaped newline before a marker where the template writes no whitespace",
    template: GLM,
    output: "<tool_call>search\\n<arg_key>q</arg_key>\\n<arg_value>x</arg_value>\\n</tool_call>",
    want: { calls: [["search", { q: "x" }]], content: null },
  },
  {
    name: "escaped newlines around a JSON call inside its markers",
    template: QWEN,
    output: '<tool_call>\\n{"name": "search", "arguments": {"q": "a\\\\nb"}}\\n</tool_call>',
    want: { calls: [["search", { q: "a\\nb" }]], content: null },
  },
  {
    name: "an argument name without a value is left out",
    template: GLM,
    output: "<tool_call>get_weather<arg_key>city</arg_key><arg_key>count</arg_key><arg_value>3</arg_value></tool_call>",
    want: { calls: [["get_weather", { count: 3 }]], content: null },
  },
  {
    name: "an undeclared argument is kept",
    template: CODER,
    output: "<tool_call>\n<function=search>\n<parameter=lang>\nen\n</parameter>\n</function>\n</tool_call>",
    want: { calls: [["search", { lang: "en" }]], content: null },
  },
  {
    name: "a self-closing call without arguments",
    template: DSV4,
    output: 'Done.\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name="submit"/>\n</｜DSML｜tool_calls>',
    want: { calls: [["submit", {}]], content: "Done." },
  },
  {
    name: "GPT-OSS: a recipient without `functions.`",
    template: GPT_OSS,
    output: '<|channel|>commentary to=search <|constrain|>json<|message|>{"q": "x"}',
    want: { calls: [["search", { q: "x" }]], content: null },
  },
  {
    name: "GPT-OSS: an output that starts at the recipient, with its end-of-call marker",
    template: GPT_OSS,
    output: ' to=functions.search<|channel|>commentary json<|message|>{"q": "x"}<|call|>',
    want: { calls: [["search", { q: "x" }]], content: null },
  },
  {
    name: "GPT-OSS: a message to a built-in recipient is content, not dropped",
    template: GPT_OSS,
    output: '<|channel|>commentary to=browser.search <|constrain|>json<|message|>{"q": "x"}',
    want: { calls: [], content: '<|channel|>commentary to=browser.search <|constrain|>json<|message|>{"q": "x"}' },
  },
  {
    name: "LFM2: Python None for a string parameter, text after the calls",
    template: LFM2,
    output: "<|tool_call_start|>[get_weather(city=None, count=2)]<|tool_call_end|>Done.",
    want: { calls: [["get_weather", { city: null, count: 2 }]], content: "Done." },
  },
  {
    name: "LFM2: a JSON call list inside the call markers",
    template: LFM2,
    output: '<|tool_call_start|>[{"name": "search", "arguments": {"q": "x"}}]<|tool_call_end|>',
    want: { calls: [["search", { q: "x" }]], content: null },
  },
  {
    name: "an unfinished call is its text",
    template: QWEN,
    output: 'Sure. <tool_call>\n{"name": "search", "arguments": {"q": "unfinish',
    want: { calls: [], content: 'Sure. <tool_call>\n{"name": "search", "arguments": {"q": "unfinish' },
  },
  {
    name: "a tagged call that ends without its closing marker is its text",
    template: GLM,
    output: "<tool_call>search<arg_key>q</arg_key><arg_value>x</arg_value>",
    want: { calls: [], content: "<tool_call>search<arg_key>q</arg_key><arg_value>x</arg_value>" },
  },
  {
    name: "an argument written twice makes the call its text; a later call is still read",
    template: GLM,
    output:
      "<tool_call>search<arg_key>q</arg_key><arg_value>a</arg_value><arg_key>q</arg_key><arg_value>b</arg_value>" +
      "</tool_call>\n<tool_call>submit</tool_call>",
    want: {
      calls: [["submit", {}]],
      content:
        "<tool_call>search<arg_key>q</arg_key><arg_value>a</arg_value>" +
        "<arg_key>q</arg_key><arg_value>b</arg_value></tool_call>",
    },
  },
  {
    name: "a malformed call without markers, then text: its text is content once",
    template: LLAMA,
    output: '{"name": "search", "parameters": [1]}; {"name": "search", "parameters": [2]} later',
    want: { calls: [], content: '{"name": "search", "parameters": [1]}; {"name": "search", "parameters": [2]} later' },
  },
  {
    name: "a broken call, a malformed one, then text and a call: both texts are content, the call is read",
    template: LLAMA,
    output:
      '{"name": "search", "parameters": {{"name": "search", "parameters": [1]}} more ' +
      '{"name": "search", "parameters": {"q": "x"}}',
    want: {
      calls: [["search", { q: "x" }]],
      content: '{"name": "search", "parameters": {{"name": "search", "parameters": [1]}} more',
    },
  },
  {
    name: "a call section whose only call is malformed: its closer is content too",
    template: QWEN,
    output: '<tool_call>\n{"name": "search", "arguments": [1]}\n</tool_call> later',
    want: { calls: [], content: '<tool_call>\n{"name": "search", "arguments": [1]}\n</tool_call>\nlater' },
  },
  {
    name: "malformed arguments (a set literal) stay text, the same in any chunks",
    template: GLM,
    output: "<tool_call>get_weather\n<arg_key>todos</arg_key>\n<arg_value>{1, 2, 3}</arg_value>\n</tool_call>",
    want: { calls: [["get_weather", { todos: "{1, 2, 3}" }]], content: null },
  },
  {
    name: "a numbered call id without the name: the one tool its arguments fit",
    template: KIMI,
    output:
      '<|tool_calls_section_begin|><|tool_call_begin|>0<|tool_call_argument_begin|>{"q": "x"}<|tool_call_end|>' +
      "<|tool_calls_section_end|>",
    want: { calls: [["search", { q: "x" }]], content: null },
  },
  {
    name: "a numbered call id without its head before the name (`NAME:0`): the call, the id as written",
    template: KIMI,
    output:
      '<|tool_calls_section_begin|><|tool_call_begin|>get_weather:0 <|tool_call_argument_begin|>{"city": "Tokyo"}' +
      "<|tool_call_end|><|tool_calls_section_end|>",
    want: { calls: [["get_weather", { city: "Tokyo" }]], content: null },
    ids: ["get_weather:0"],
  },
  {
    name: "numbered call ids with and without their head, in one section",
    template: KIMI,
    output:
      '<|tool_calls_section_begin|><|tool_call_begin|>search:0<|tool_call_argument_begin|>{"q": "a"}<|tool_call_end|>' +
      '<|tool_call_begin|>functions.search:1<|tool_call_argument_begin|>{"q": "b"}<|tool_call_end|>' +
      "<|tool_calls_section_end|>",
    want: {
      calls: [
        ["search", { q: "a" }],
        ["search", { q: "b" }],
      ],
      content: null,
    },
    ids: ["search:0", "functions.search:1"],
  },
  {
    name: "a call id with its name but neither its head nor its counter is its text",
    template: KIMI,
    output:
      '<|tool_calls_section_begin|><|tool_call_begin|>search<|tool_call_argument_begin|>{"q": "a"}<|tool_call_end|>' +
      "<|tool_calls_section_end|>",
    want: {
      calls: [],
      content:
        '<|tool_calls_section_begin|><|tool_call_begin|>search<|tool_call_argument_begin|>{"q": "a"}<|tool_call_end|>' +
        "<|tool_calls_section_end|>",
    },
  },
  {
    name: "a numbered call id without the name, arguments no tool fits: its whole text is content",
    template: KIMI,
    output:
      '<|tool_calls_section_begin|><|tool_call_begin|>0<|tool_call_argument_begin|>{"x": 1}<|tool_call_end|>' +
      "<|tool_calls_section_end|>",
    want: {
      calls: [],
      content:
        '<|tool_calls_section_begin|><|tool_call_begin|>0<|tool_call_argument_begin|>{"x": 1}<|tool_call_end|>' +
        "<|tool_calls_section_end|>",
    },
  },
  {
    name: "a malformed call after a call: its opener and closers are content with it",
    template: KIMI,
    output:
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0<|tool_call_argument_begin|>{"q": "a"}' +
      '<|tool_call_end|> <|tool_call_begin|>functions.search:1<|tool_call_argument_begin|>"b"<|tool_call_end|> ' +
      "<|tool_calls_section_end|>",
    want: {
      calls: [["search", { q: "a" }]],
      content:
        '<|tool_call_begin|>functions.search:1<|tool_call_argument_begin|>"b"<|tool_call_end|> ' +
        "<|tool_calls_section_end|>",
    },
  },
  {
    name: "an end-of-sequence text written as text at the end is dropped",
    template: QWEN,
    output: 'I will look.\n<tool_call>\n{"name": "search", "arguments": {"q": "a"}}\n</tool_call></s>',
    want: { calls: [["search", { q: "a" }]], content: "I will look." },
  },
  {
    name: "a call to an undeclared tool between calls is content; the calls around it are read",
    template: GLM,
    output:
      "<tool_call>search<arg_key>q</arg_key><arg_value>a</arg_value></tool_call>" +
      "<tool_call>nope<arg_key>x</arg_key><arg_value>1</arg_value></tool_call><tool_call>submit</tool_call>",
    want: {
      calls: [
        ["search", { q: "a" }],
        ["submit", {}],
      ],
      content: "<tool_call>nope<arg_key>x</arg_key><arg_value>1</arg_value></tool_call>",
    },
  },
  {
    name: "a JSON call without its arguments field is its text",
    template: LLAMA,
    output: '{"name": "search"}',
    want: { calls: [], content: '{"name": "search"}' },
  },
  {
    name: "a JSON object with arguments but no name field is its text, also as the whole output",
    template: LLAMA,
    output: '{"parameters": {"q": "tides"}}',
    want: { calls: [], content: '{"parameters": {"q": "tides"}}' },
  },
  {
    name: "text, then markerless JSON calls as a list in a ```json fence: the fence is no content",
    template: LLAMA,
    output: `I'll help you with that.\n\`\`\`json\n[${WEATHER}, {"name": "search", "parameters": {"q": "a"}}]\n\`\`\``,
    want: {
      calls: [
        ["get_weather", { city: "Paris" }],
        ["search", { q: "a" }],
      ],
      content: "I'll help you with that.",
    },
  },
  {
    name: "one markerless JSON call in a plain fence, text after it stays content",
    template: LLAMA,
    output: `\`\`\`\n${WEATHER}\n\`\`\`\nDone.`,
    want: { calls: [["get_weather", { city: "Paris" }]], content: "Done." },
  },
  {
    name: "a fence of calls the output ends in without its closing fence",
    template: LLAMA,
    output: `Sure.\n\`\`\`json\n${WEATHER}`,
    want: { calls: [["get_weather", { city: "Paris" }]], content: "Sure." },
  },
  {
    name: "a fence holding JSON that is no call stays content as written",
    template: LLAMA,
    output: 'The answer:\n```json\n{"name": "Paris", "population": 2100000}\n```',
    want: { calls: [], content: 'The answer:\n```json\n{"name": "Paris", "population": 2100000}\n```' },
  },
  {
    name: "a fence holding a call and other code stays content as written",
    template: LLAMA,
    output: `\`\`\`python\n${WEATHER}\nprint(1)\n\`\`\``,
    want: { calls: [], content: `\`\`\`python\n${WEATHER}\nprint(1)\n\`\`\`` },
  },
  {
    name: "a fenced call whose arguments are not an object is content with its fence",
    template: LLAMA,
    output: '```json\n{"name": "search", "parameters": "a"}\n```\nok',
    want: { calls: [], content: '```json\n{"name": "search", "parameters": "a"}\n```\nok' },
  },
  {
    name: "a code block, then a call: the code block's closing fence opens no fence of calls",
    template: LLAMA,
    output: `\`\`\`python\nx = 1\n\`\`\`\n${WEATHER}`,
    want: { calls: [["get_weather", { city: "Paris" }]], content: "```python\nx = 1\n```" },
  },
  {
    name: "marked calls inside a fence, text around it",
    template: QWEN25,
    output: 'Sure.\n```xml\n<tool_call>\n{"name": "search", "arguments": {"q": "a"}}\n</tool_call>\n```\nWait for it.',
    want: { calls: [["search", { q: "a" }]], content: "Sure.\n\nWait for it." },
  },
  {
    name: "a code block before marked calls keeps both its fences as content",
    template: QWEN25,
    output: 'See:\n```\n{"a": 1}\n```\n<tool_call>\n{"name": "search", "arguments": {"q": "a"}}\n</tool_call>',
    want: { calls: [["search", { q: "a" }]], content: 'See:\n```\n{"a": 1}\n```' },
  },
  {
    name: "tagged calls inside a fence",
    template: GLM46,
    output: "On it.\n```\n<tool_call>search\n<arg_key>q</arg_key>\n<arg_value>a</arg_value>\n</tool_call>\n```",
    want: { calls: [["search", { q: "a" }]], content: "On it." },
  },
  {
    name: "markerless JSON calls as one list where the template writes one object",
    template: LLAMA,
    output: `[${WEATHER}, {"name": "submit", "parameters": {}}]`,
    want: {
      calls: [
        ["get_weather", { city: "Paris" }],
        ["submit", {}],
      ],
      content: null,
    },
  },
  {
    name: "a bracketed upper-case token before markerless JSON calls is dropped",
    template: LLAMA,
    output: `Checking. [TOOL_CALLS][${WEATHER}]`,
    want: { calls: [["get_weather", { city: "Paris" }]], content: "Checking." },
  },
  {
    name: "a section the output ends without its closer, after the call's own closer",
    template: "MiniMax-M2.jinja",
    output: '<minimax:tool_call>\n<invoke name="search">\n<parameter name="q">x</parameter>\n</invoke>',
    want: { calls: [["search", { q: "x" }]], content: null },
  },
];

function shape(m: AssistantMessage): Want {
  return {
    calls: (m.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments) as object]),
    content: typeof m.content === "string" && m.content !== "" ? m.content : null,
  };
}

describe("real model outputs", () => {
  it.each(ROWS)("$name", ({ template, output, want, ids }) => {
    const params = paramsOf(template);
    const whole = parseChatOutput(params, output, { generateCallId: (i) => `c${i}` });
    expect(shape(whole)).toEqual(want);
    if (ids !== undefined) expect((whole.tool_calls ?? []).map((c) => c.id)).toEqual(ids);
    for (let size = 1; size <= 7; size++) {
      const s = new ChatStreamParser(params, { generateCallId: (i) => `c${i}` });
      const deltas = [];
      for (let i = 0; i < output.length; i += size) deltas.push(...s.feed(output.slice(i, i + size)));
      deltas.push(...s.finish());
      expect(s.message(), `chunks of ${size}`).toEqual(whole);
      expect(accumulateDeltas(deltas), `deltas, chunks of ${size}`).toEqual(whole);
    }
  });
});
