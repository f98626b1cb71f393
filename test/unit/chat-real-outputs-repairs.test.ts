// Real model outputs (test/helpers/real-outputs.ts) whose calls the model wrote wrongly and the serving projects
// repair: Gemma 4 argument objects, a thought that runs into a call, a GPT-OSS header without its message, GLM's
// `<arg_key>` left out, a DSML parameter without its `string` flag, GPT-OSS text around calls, Python triple-quoted
// strings, and an output that is nothing but a call written without its markers.
import {
  describeRealOutputs,
  DSV4,
  GEMMA4,
  GLM,
  GPT_OSS,
  LFM2,
  QWEN25,
  type RealOutputRow,
} from "../helpers/real-outputs.js";

const ROWS: RealOutputRow[] = [
  {
    name: "Gemma 4: round brackets for the argument object's braces",
    template: GEMMA4,
    output: '<|tool_call>call:search(q:<|"|>ls -a<|"|>)<tool_call|>',
    want: { calls: [["search", { q: "ls -a" }]], content: null },
  },
  {
    name: "Gemma 4: a string left open before the object's end",
    template: GEMMA4,
    output: '<|tool_call>call:search{q:<|"|>ls}<tool_call|>',
    want: { calls: [["search", { q: "ls" }]], content: null },
  },
  {
    name: "Gemma 4: strings left open end where the next declared argument starts",
    template: GEMMA4,
    output: '<|tool_call>call:get_weather{city:<|"|>Paris, France,count:<|"|>3}<tool_call|>',
    want: { calls: [["get_weather", { city: "Paris, France", count: 3 }]], content: null },
  },
  {
    name: "Gemma 4: a value in single quotes with a stray delimiter after it",
    template: GEMMA4,
    output: "<|tool_call>call:search{q:':\\s*\\w+'<|\"|>}<tool_call|>",
    want: { calls: [["search", { q: ":\\s*\\w+" }]], content: null },
  },
  {
    name: "Gemma 4: a stray delimiter before a key",
    template: GEMMA4,
    output: '<|tool_call>call:annotate{<|"|>body:true}<tool_call|>',
    want: { calls: [["annotate", { body: true }]], content: null },
  },
  {
    name: "Gemma 4: a string argument written bare is its text (the space after the colon is layout)",
    template: GEMMA4,
    output: "<|tool_call>call:search{q: weather in Tokyo}<tool_call|>",
    want: { calls: [["search", { q: "weather in Tokyo" }]], content: null },
  },
  {
    name: "Gemma 4: a bare document runs to the call's end, its braces left out, its line breaks kept",
    template: GEMMA4,
    output: "<|tool_call>call:search{q:\n\n# Notes\n\nSee `a, b: c`.<tool_call|>",
    want: { calls: [["search", { q: "\n\n# Notes\n\nSee `a, b: c`." }]], content: null },
  },
  {
    name: "Gemma 4: empty values are empty strings",
    template: GEMMA4,
    output: "<|tool_call>call:get_weather{city:,count:2}<tool_call|>",
    want: { calls: [["get_weather", { city: "", count: 2 }]], content: null },
  },
  {
    name: "Gemma 4: an argument the tool does not declare, written bare, is kept",
    template: GEMMA4,
    output: '<|tool_call>call:search{q:<|"|>x<|"|>, broken:}<tool_call|>',
    want: { calls: [["search", { q: "x", broken: "" }]], content: null },
  },
  {
    name: "Gemma 4: a tool that declares no argument: strings left open end at the next key",
    template: GEMMA4,
    output: '<|tool_call>call:submit{flag:<|"|>true,n:<|"|>1}<tool_call|>',
    want: { calls: [["submit", { flag: "true", n: "1" }]], content: null },
  },
  {
    name: "Gemma 4: a bare value of an argument whose schema is no string is no call",
    template: GEMMA4,
    output: "<|tool_call>call:get_weather{count:three}<tool_call|>",
    want: { calls: [], content: "<|tool_call>call:get_weather{count:three}<tool_call|>" },
  },
  {
    name: "Gemma 4: an object left open after well-formed values is no call",
    template: GEMMA4,
    output: '<|tool_call>call:search{q:<|"|>x<|"|><tool_call|>',
    want: { calls: [], content: '<|tool_call>call:search{q:<|"|>x<|"|><tool_call|>' },
  },
  {
    name: "Gemma 4: a comma before the object's end is no call",
    template: GEMMA4,
    output: "<|tool_call>call:get_weather{count:1,}<tool_call|>",
    want: { calls: [], content: "<|tool_call>call:get_weather{count:1,}<tool_call|>" },
  },
  {
    name: "Gemma 4: a repair needs the call's closer: an output that ends first is no call",
    template: GEMMA4,
    output: '<|tool_call>call:search{q:<|"|>ls}',
    want: { calls: [], content: '<|tool_call>call:search{q:<|"|>ls}' },
  },
  {
    name: "Gemma 4: a thought that goes into a call and is never closed ends at the call",
    template: GEMMA4,
    output: '<|channel>thought\nLet me look.<|tool_call>call:search{q:<|"|>a<|"|>}<tool_call|><|tool_response>',
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "Gemma 4: a call inside a thought the model closes after it is reasoning",
    template: GEMMA4,
    output: '<|channel>thought\nMaybe <|tool_call>call:search{q:<|"|>a<|"|>}<tool_call|> no.<channel|>Answer',
    want: { calls: [], content: "Answer" },
  },
  {
    name: "GPT-OSS: a commentary header with text and no message is reasoning, the answer after it content",
    template: GPT_OSS,
    output:
      "<|channel|>commentary... The user asks. No call needed.<|end|>" +
      "<|start|>assistant<|channel|>final<|message|>No, they lost.",
    want: { calls: [], content: "No, they lost." },
  },
  {
    name: "GPT-OSS: a call after a commentary header without its message",
    template: GPT_OSS,
    output:
      "<|channel|>commentary 2? Ask or act.<|end|><|start|>assistant<|channel|>commentary to=functions.search" +
      '<|constrain|>json<|message|>{"q":"a"}',
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "GPT-OSS: a commentary message with a constraint but no recipient is a preamble: content",
    template: GPT_OSS,
    output:
      "<|channel|>analysis<|message|>Send it.<|end|><|start|>assistant<|channel|>commentary<|constrain|>json" +
      "<|message|><send><id>1</id></send>",
    want: { calls: [], content: "<send><id>1</id></send>" },
  },
  {
    name: "GPT-OSS: text before the first call's header and after its `<|call|>` is content",
    template: GPT_OSS,
    output:
      "Let me search.\n<|channel|>commentary to=functions.search<|constrain|>json<|message|>" +
      '{"q":"rust"}<|call|>\nHere are the results.',
    want: { calls: [["search", { q: "rust" }]], content: "Let me search.\nHere are the results." },
  },
  {
    name: "pythonic: Python's triple-quoted strings, quotes and brackets inside",
    template: LFM2,
    output:
      '<|tool_call_start|>[search(q=\'\'\'it\'s ] here\nnext\'\'\'), search(q="""say "x" ["""), ' +
      "search(q='')]<|tool_call_end|>",
    want: {
      calls: [
        ["search", { q: "it's ] here\nnext" }],
        ["search", { q: 'say "x" [' }],
        ["search", { q: "" }],
      ],
      content: null,
    },
  },
  {
    name: "GLM: the first argument's `<arg_key>` left out, its name right after the tool's",
    template: GLM,
    output: "<tool_call>searchq</arg_key><arg_value>echo test</arg_value></tool_call>",
    want: { calls: [["search", { q: "echo test" }]], content: null },
  },
  {
    name: "GLM: a tool's name run into text that names no argument is no call",
    template: GLM,
    output: "<tool_call>searchx</arg_key><arg_value>a</arg_value></tool_call>",
    want: { calls: [], content: "<tool_call>searchx</arg_key><arg_value>a</arg_value></tool_call>" },
  },
  {
    name: "DSML: parameters without their `string` flag are what the schema types them",
    template: DSV4,
    output:
      '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="get_weather">\n' +
      '<｜DSML｜parameter name="city">Berlin, Germany</｜DSML｜parameter>\n' +
      '<｜DSML｜parameter name="count">10</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>',
    want: { calls: [["get_weather", { city: "Berlin, Germany", count: 10 }]], content: null },
  },
  {
    name: "DSML: the namespace left out of every tag inside the section (OpenHands' real completions)",
    template: DSV4,
    output:
      'Checking.\n\n<｜DSML｜tool_calls>\n<invoke name="get_weather">\n' +
      '<parameter name="city" string="true">Berlin</parameter>\n' +
      '<parameter name="count" string="false">3</parameter>\n' +
      '</invoke>\n<invoke name="search">\n<parameter name="q" string="true">a <b></parameter>\n</invoke>\n' +
      "</｜DSML｜tool_calls>",
    want: {
      calls: [
        ["get_weather", { city: "Berlin", count: 3 }],
        ["search", { q: "a <b>" }],
      ],
      content: "Checking.",
    },
  },
  {
    name: "DSML: a call mixing tags with and without the namespace is text (SGLang's tests)",
    template: DSV4,
    output:
      '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="search">\n<parameter name="q" string="true">a</｜DSML｜parameter>\n' +
      "</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
    want: {
      calls: [],
      content:
        '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="search">\n<parameter name="q" string="true">a</｜DSML｜parameter>\n' +
        "</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
    },
  },
  {
    name: "DSML: without the namespace, an undeclared tool's call is text",
    template: DSV4,
    output: '<｜DSML｜tool_calls>\n<invoke name="shell">\n<parameter name="q" string="true">a</parameter>\n</invoke>',
    want: {
      calls: [],
      content:
        '<｜DSML｜tool_calls>\n<invoke name="shell">\n<parameter name="q" string="true">a</parameter>\n</invoke>',
    },
  },
  {
    name: "a per-call-marked JSON format: an output that is nothing but a call, its markers left out",
    template: QWEN25,
    output: '{"name": "search", "arguments": {"q": "17 * 23"}}',
    want: { calls: [["search", { q: "17 * 23" }]], content: null },
  },
  {
    name: "a per-call-marked JSON format: a list of calls as the whole output, their markers left out",
    template: QWEN25,
    output: '[{"name": "search", "arguments": {"q": "a"}}, {"name": "search", "arguments": {"q": "b"}}]',
    want: {
      calls: [
        ["search", { q: "a" }],
        ["search", { q: "b" }],
      ],
      content: null,
    },
  },
  {
    name: "a per-call-marked JSON format: a call-shaped object with text around it stays text",
    template: QWEN25,
    output: 'Sure: {"name": "search", "arguments": {"q": "a"}} done.',
    want: { calls: [], content: 'Sure: {"name": "search", "arguments": {"q": "a"}} done.' },
  },
];

describeRealOutputs("real model outputs: calls written wrongly, repaired", ROWS);
