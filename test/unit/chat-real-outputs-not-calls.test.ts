// Real model outputs (test/helpers/real-outputs.ts): what is never a call, its text content as written:
// unfinished and malformed calls, broken JSON, calls to undeclared tools and names that only look like calls.
import {
  describeRealOutputs,
  CODER,
  DEVSTRAL,
  GLM,
  GPT_OSS,
  HY3,
  KIMI,
  LLAMA,
  QWEN,
  type RealOutputRow,
} from "../helpers/real-outputs.js";

const ROWS: RealOutputRow[] = [
  {
    name: "a JSON call without its arguments, read without the format's markers, is prose; between them it is a call",
    template: "MiniMax-M1.jinja",
    output: 'Example: {"name": "submit"} here.\n<tool_calls>\n{"name": "submit"}\n</tool_calls>',
    want: { calls: [["submit", {}]], content: 'Example: {"name": "submit"} here.' },
  },
  {
    name: "an unclosed value cut off right after a call it quotes (`<tool_call>…</tool_call>`): the call is unfinished",
    template: CODER,
    output: "<tool_call>\n<function=get_weather>\n<parameter=city>\nUse `<tool_call>...</tool_call>",
    want: {
      calls: [],
      content: "<tool_call>\n<function=get_weather>\n<parameter=city>\nUse `<tool_call>...</tool_call>",
    },
  },
  {
    name: "an unclosed value that quotes a call, then the call's own closer: the call, the quote in its value",
    template: CODER,
    output:
      "<tool_call>\n<function=get_weather>\n<parameter=city>\nUse `<tool_call>...</tool_call>` here\n</tool_call>",
    want: { calls: [["get_weather", { city: "Use `<tool_call>...</tool_call>` here" }]], content: null },
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
    name: "text, then JSON naming no declared tool: content",
    template: LLAMA,
    output: 'For example {"name": "lookup", "parameters": {"q": "x"}} would look.',
    want: { calls: [], content: 'For example {"name": "lookup", "parameters": {"q": "x"}} would look.' },
  },
  {
    name: "a declared name that only begins a longer word, then JSON, is no call (a format's own builder)",
    template: DEVSTRAL,
    output: '[TOOL_CALLS]searcher{"q": "a"}',
    want: { calls: [], content: '[TOOL_CALLS]searcher{"q": "a"}' },
  },
  {
    name: "a tool name followed by JSON in text, with no call marker before it, is content",
    template: HY3,
    output: 'Try search{"q": "x"} later.',
    want: { calls: [], content: 'Try search{"q": "x"} later.' },
  },
  {
    name: "GPT-OSS: a message to a built-in recipient is content, not dropped",
    template: GPT_OSS,
    output: '<|channel|>commentary to=browser.search <|constrain|>json<|message|>{"q": "x"}',
    want: { calls: [], content: '<|channel|>commentary to=browser.search <|constrain|>json<|message|>{"q": "x"}' },
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
    name: "a call section whose only call is malformed: its closer is content too, the text after it as written",
    template: QWEN,
    output: '<tool_call>\n{"name": "search", "arguments": [1]}\n</tool_call> later',
    want: { calls: [], content: '<tool_call>\n{"name": "search", "arguments": [1]}\n</tool_call> later' },
  },
  {
    name: "an undeclared name alone where the numbered id goes (neither head nor counter) is its text",
    template: KIMI,
    output:
      '<|tool_calls_section_begin|><|tool_call_begin|>lookup<|tool_call_argument_begin|>{"q": "a"}<|tool_call_end|>' +
      "<|tool_calls_section_end|>",
    want: {
      calls: [],
      content:
        '<|tool_calls_section_begin|><|tool_call_begin|>lookup<|tool_call_argument_begin|>{"q": "a"}<|tool_call_end|>' +
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
      "<|tool_call_end|> <|tool_call_begin|>functions.search:1<|tool_call_argument_begin|>[1]<|tool_call_end|> " +
      "<|tool_calls_section_end|>",
    want: {
      calls: [["search", { q: "a" }]],
      content:
        "<|tool_call_begin|>functions.search:1<|tool_call_argument_begin|>[1]<|tool_call_end|> " +
        "<|tool_calls_section_end|>",
    },
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
];

describeRealOutputs("real model outputs: what is never a call", ROWS);
