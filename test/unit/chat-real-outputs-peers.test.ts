// Real model outputs (test/helpers/real-outputs.ts) in shapes other projects' parser tests read as calls and
// messages (test/fixtures/peer-outputs): markers and fields a model leaves out or adds, Python-dict calls, prose
// that only looks like a call. Each reads the same whole and in chunks.
import {
  DEVSTRAL,
  GEMMA4,
  GPT_OSS,
  LLAMA,
  QWEN25,
  describeRealOutputs,
  type RealOutputRow,
} from "../helpers/real-outputs.js";

const GLIMMER = "muse-glimmer.jinja";
const DSV31 = "deepseek-ai-DeepSeek-V3.1.jinja";
const MUSE_BLOCK =
  '<atem:function_calls>\n<atem:invoke name="search">\n<atem:parameter name="q">a</atem:parameter>\n</atem:invoke>\n' +
  "</atem:function_calls>";

const ROWS: RealOutputRow[] = [
  {
    name: "Muse Glimmer: an answer without its header holding a call block (the text around it content)",
    template: GLIMMER,
    output: `Checking. ${MUSE_BLOCK} done.<|eot|>`,
    want: { calls: [["search", { q: "a" }]], content: "Checking.  done." },
  },
  {
    name: "Muse Glimmer: a block whose closer the output leaves out at its end is a call",
    template: GLIMMER,
    output:
      '<atem:function_calls>\n<atem:invoke name="search">\n<atem:parameter name="q">a</atem:parameter>\n</atem:invoke>',
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "Muse Glimmer: names in single quotes or none",
    template: GLIMMER,
    output:
      " to=search<|message|><atem:function_calls>\n<atem:invoke name='search'>\n<atem:parameter name=q>a" +
      "</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eot|>",
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "Muse Glimmer: an answer that goes on after an end marker and a bare header leaks no markup",
    template: GLIMMER,
    output: "Oslo.<|eom|>assistant to=user<|message|>And it is cold.<|eot|>",
    want: { calls: [], content: "Oslo.And it is cold." },
  },
  {
    name: "Muse Glimmer: a call block in a message to the user is an example, content",
    template: GLIMMER,
    output: ` to=user<|message|>Example: ${MUSE_BLOCK}<|eot|>`,
    want: { calls: [], content: `Example: ${MUSE_BLOCK}` },
  },
  {
    name: "Muse Glimmer: a block holding several invokes, each a call",
    template: GLIMMER,
    output:
      ' to=search<|message|><atem:function_calls>\n<atem:invoke name="search">\n<atem:parameter name="q">a' +
      '</atem:parameter>\n</atem:invoke>\n<atem:invoke name="search">\n<atem:parameter name="q">b</atem:parameter>\n' +
      "</atem:invoke>\n</atem:function_calls><|eot|>",
    want: {
      calls: [
        ["search", { q: "a" }],
        ["search", { q: "b" }],
      ],
      content: null,
    },
  },
  {
    name: "DeepSeek: the section opener with SentencePiece's space glyph written as `_`, a space or `\\_`",
    template: DSV31,
    output:
      'Hi <｜tool_calls_begin｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{"q": "a"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>' +
      '\n<｜tool calls begin｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{"q": "b"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>' +
      '\n<｜tool\\_calls\\_begin｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{"q": "c"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    want: {
      calls: [
        ["search", { q: "a" }],
        ["search", { q: "b" }],
        ["search", { q: "c" }],
      ],
      content: "Hi",
    },
  },
  {
    name: "Muse Glimmer: the next message's header without its <|start|>assistant, after a reasoning message",
    template: GLIMMER,
    output:
      ' to=self<|message|>Check it.<|eom|> to=search<|message|><atem:function_calls>\n<atem:invoke name="search">\n' +
      '<atem:parameter name="q">a</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eot|>',
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "Gemma 4: call text without special tokens inside a word or quoted in prose is no call",
    template: GEMMA4,
    output: 'To recall:search{q:<|"|>x<|"|>} write "call:search{q:<|"|>y<|"|>}" and then call:search{q:<|"|>z<|"|>}',
    want: {
      calls: [["search", { q: "z" }]],
      content: 'To recall:search{q:<|"|>x<|"|>} write "call:search{q:<|"|>y<|"|>}" and then',
    },
  },
  {
    name: "DeepSeek R1: JSON arguments without the template's Markdown fence",
    template: "llama-cpp-deepseek-r1.jinja",
    output:
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n{"q": "a"}<｜tool▁call▁end｜>' +
      '<｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n```json\n{"q": "b"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    want: {
      calls: [
        ["search", { q: "a" }],
        ["search", { q: "b" }],
      ],
      content: null,
    },
  },
  {
    name: "MiniCPM5: a call whose attributes are quoted with ' and no other marker opens it",
    template: "openbmb-MiniCPM5-1B.jinja",
    output: "Sure. <function name='search'><param name='q'>d</param></function>",
    want: { calls: [["search", { q: "d" }]], content: "Sure." },
  },
  {
    name: "Devstral: whitespace around the name after [TOOL_CALLS]",
    template: DEVSTRAL,
    output: 'Sure. [TOOL_CALLS] search [ARGS]{"q": "c"}',
    want: { calls: [["search", { q: "c" }]], content: "Sure." },
  },
  {
    name: "Devstral: a later call without its [TOOL_CALLS], a declared name and [ARGS] right after the call before",
    template: DEVSTRAL,
    output: '[TOOL_CALLS]search[ARGS]{"q": "a"}search[ARGS]{"q": "b"} searching[ARGS] is text',
    want: {
      calls: [
        ["search", { q: "a" }],
        ["search", { q: "b" }],
      ],
      content: "searching[ARGS] is text",
    },
  },
  {
    name: "Muse Glimmer: a call block without its message's header",
    template: GLIMMER,
    output:
      '<atem:function_calls>\n<atem:invoke name="search">\n<atem:parameter name="q">b</atem:parameter>\n' +
      "</atem:invoke>\n</atem:function_calls>",
    want: { calls: [["search", { q: "b" }]], content: null },
  },
  {
    name: "DeepSeek V3.1: calls without their own opener inside the section, a declared name first",
    template: DSV31,
    output:
      '<｜tool▁calls▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜>' +
      'search<｜tool▁sep｜>{"q": "a"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    want: {
      calls: [
        ["get_weather", { city: "Paris" }],
        ["search", { q: "a" }],
      ],
      content: null,
    },
  },
  {
    name: "DeepSeek V3.1: without its opener, a name no tool has starts no call",
    template: DSV31,
    output: "<｜tool▁calls▁begin｜>unknown<｜tool▁sep｜>{}<｜tool▁calls▁end｜>",
    want: { calls: [], content: "<｜tool▁calls▁begin｜>unknown<｜tool▁sep｜>{}<｜tool▁calls▁end｜>" },
  },
  {
    name: "Qwen 2.5: a JSON call with fields of its own beside the name and arguments (an id, a type)",
    template: QWEN25,
    output:
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "NYC"}, "id": "call_123", "type": "function"}' +
      "\n</tool_call>",
    want: { calls: [["get_weather", { city: "NYC" }]], content: null },
  },
  {
    name: "Qwen 2.5: an object under a key of its own is no field to drop (the arguments misnamed)",
    template: QWEN25,
    output: '<tool_call>\n{"name": "search", "args": {"q": "a"}}\n</tool_call>',
    want: { calls: [], content: '<tool_call>\n{"name": "search", "args": {"q": "a"}}\n</tool_call>' },
  },
  {
    name: "Llama 3.2: a markerless JSON call written as a Python dict (single quotes, True, None)",
    template: LLAMA,
    output: "{'name': 'annotate', 'parameters': {'body': None, 'flag': True}}",
    want: { calls: [["annotate", { body: null, flag: true }]], content: null },
  },
  {
    name: "Qwen 2.5: a call between its markers written as a Python dict, text before it",
    template: QWEN25,
    output: "Let me check.\n<tool_call>\n{'name': 'get_weather', 'arguments': {'city': 'Paris'}}\n</tool_call>",
    want: { calls: [["get_weather", { city: "Paris" }]], content: "Let me check." },
  },
  {
    name: "GPT-OSS: headers whose <|message|> is left out, a call after them",
    template: GPT_OSS,
    output:
      "<|channel|>analysis I must check.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather " +
      '<|constrain|>json<|message|>{"city": "Oslo"}<|call|><|channel|>final It is cold.<|return|>',
    want: { calls: [["get_weather", { city: "Oslo" }]], content: "It is cold." },
  },
  {
    name: "GPT-OSS: a space after each special token, as tokenizers that prefix a word's space decode it",
    template: GPT_OSS,
    output:
      "<|channel|> analysis<|message|> Two cities.<|end|><|start|> assistant to=functions.get_weather<|channel|> " +
      'commentary <|constrain|>  json<|message|> {"city": "Tokyo"}<|end|><|start|> assistant to=functions.get_weather' +
      '<|channel|> commentary <|constrain|> json<|message|> {"city": "Osaka"}',
    want: {
      calls: [
        ["get_weather", { city: "Tokyo" }],
        ["get_weather", { city: "Osaka" }],
      ],
      content: null,
    },
  },
  {
    name: "GPT-OSS: spaced tokens before the answer",
    template: GPT_OSS,
    output: "<|channel|> analysis<|message|> Think.<|end|><|start|> assistant<|channel|> final<|message|> Answer.",
    want: { calls: [], content: "Answer." },
  },
  {
    name: "GPT-OSS: reasoning whose end and next header's start are left out before the answer's channel",
    template: GPT_OSS,
    output: "<|channel|>analysis<|message|>think<|channel|>final<|message|>answer",
    want: { calls: [], content: "answer" },
  },
  {
    name: "GPT-OSS: reasoning ended with a call's <|call|>, then a call and the answer",
    template: GPT_OSS,
    output:
      "<|channel|>analysis<|message|>Inspect.<|call|><|channel|>commentary to=functions.search<|message|>" +
      '{"q": "a"}<|call|><|channel|>final<|message|>Done.<|end|>',
    want: { calls: [["search", { q: "a" }]], content: "Done." },
  },
  {
    name: "GPT-OSS: an answer written without a channel",
    template: GPT_OSS,
    output: "<|message|>Hello, Müller 👋.<|end|>",
    want: { calls: [], content: "Hello, Müller 👋." },
  },
];

describeRealOutputs("real model outputs: shapes other projects' parser tests read", ROWS);
