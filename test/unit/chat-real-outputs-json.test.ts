// Real model outputs (test/helpers/real-outputs.ts): JSON calls with or without markers around them, lists
// of calls, text around calls, and calls in ``` fences (and fences that hold no call).
import {
  CODER,
  describeRealOutputs,
  GLM46,
  LFM2,
  LLAMA,
  QWEN,
  QWEN25,
  type RealOutputRow,
  WEATHER,
} from "../helpers/real-outputs.js";

const ROWS: RealOutputRow[] = [
  {
    name: "a call object in doubled braces, a closing brace left out or left over (models copy `{{…}}` from a prompt)",
    template: QWEN25,
    output:
      'Sure.\n<tool_call>\n{{"name": "search", "arguments": {"q": "a"}}\n</tool_call>\n' +
      '<tool_call>\n{{"name": "search", "arguments": {"q": "b"}}}}\n</tool_call>',
    want: {
      calls: [
        ["search", { q: "a" }],
        ["search", { q: "b" }],
      ],
      content: "Sure.",
    },
  },
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
    name: "text, then a markerless JSON call, then text",
    template: LLAMA,
    output: 'Let me look. {"name": "search", "parameters": {"q": "x"}} Back soon.',
    // The text joins with the whitespace written on both sides of the call, as across marked calls.
    want: { calls: [["search", { q: "x" }]], content: "Let me look.  Back soon." },
  },
  {
    name: "markerless JSON calls with text between them: every call, the text content",
    template: LLAMA,
    output:
      'Getting it. {"name": "search", "parameters": {"q": "x"}} Also: {"name": "search", "parameters": {"q": "y"}} ' +
      "Done.",
    want: {
      calls: [
        ["search", { q: "x" }],
        ["search", { q: "y" }],
      ],
      content: "Getting it.  Also:  Done.",
    },
  },
  {
    name: "a markerless JSON call first, then text and another call",
    template: LLAMA,
    output: '{"name": "search", "parameters": {"q": "x"}} then {"name": "search", "parameters": {"q": "y"}}',
    want: {
      calls: [
        ["search", { q: "x" }],
        ["search", { q: "y" }],
      ],
      content: "then",
    },
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
    name: "escaped newlines around a JSON call inside its markers",
    template: QWEN,
    output: '<tool_call>\\n{"name": "search", "arguments": {"q": "a\\\\nb"}}\\n</tool_call>',
    want: { calls: [["search", { q: "a\\nb" }]], content: null },
  },
  {
    name: "LFM2: a JSON call list inside the call markers",
    template: LFM2,
    output: '<|tool_call_start|>[{"name": "search", "arguments": {"q": "x"}}]<|tool_call_end|>',
    want: { calls: [["search", { q: "x" }]], content: null },
  },
  {
    name: "an end-of-sequence text written as text at the end is dropped",
    template: QWEN,
    output: 'I will look.\n<tool_call>\n{"name": "search", "arguments": {"q": "a"}}\n</tool_call></s>',
    want: { calls: [["search", { q: "a" }]], content: "I will look." },
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
    output: '```json\n{"name": "search", "parameters": 5}\n```\nok',
    want: { calls: [], content: '```json\n{"name": "search", "parameters": 5}\n```\nok' },
  },
  {
    name: "a code block, then a call: the code block's closing fence opens no fence of calls",
    template: LLAMA,
    output: `\`\`\`python\nx = 1\n\`\`\`\n${WEATHER}`,
    want: { calls: [["get_weather", { city: "Paris" }]], content: "```python\nx = 1\n```" },
  },
  {
    name: "marked calls inside a fence are an example the model shows: text",
    template: QWEN25,
    output: 'Sure.\n```xml\n<tool_call>\n{"name": "search", "arguments": {"q": "a"}}\n</tool_call>\n```\nWait for it.',
    want: {
      calls: [],
      content:
        'Sure.\n```xml\n<tool_call>\n{"name": "search", "arguments": {"q": "a"}}\n</tool_call>\n```\nWait for it.',
    },
  },
  {
    name: "marked calls quoted as inline code are text",
    template: QWEN25,
    output: 'Write `<tool_call>{"name": "search", "arguments": {"q": "a"}}</tool_call>` to search.',
    want: {
      calls: [],
      content: 'Write `<tool_call>{"name": "search", "arguments": {"q": "a"}}</tool_call>` to search.',
    },
  },
  {
    name: "a quoted call, then the call itself: only the second is a call",
    template: QWEN25,
    output:
      'Like `<tool_call>{"name": "search", "arguments": {"q": "a"}}</tool_call>`:\n' +
      '<tool_call>{"name": "search", "arguments": {"q": "b"}}</tool_call>',
    want: {
      calls: [["search", { q: "b" }]],
      content: 'Like `<tool_call>{"name": "search", "arguments": {"q": "a"}}</tool_call>`:',
    },
  },
  {
    name: "a fence left open at the end around marked calls is text",
    template: QWEN25,
    output: '~~~\n<tool_call>{"name": "search", "arguments": {"q": "a"}}</tool_call>',
    want: { calls: [], content: '~~~\n<tool_call>{"name": "search", "arguments": {"q": "a"}}</tool_call>' },
  },
  {
    name: "a lone backtick before a call, one inside its arguments: the call",
    template: QWEN25,
    output: 'it`s <tool_call>{"name": "search", "arguments": {"q": "a`b"}}</tool_call>',
    want: { calls: [["search", { q: "a`b" }]], content: "it`s" },
  },
  {
    name: "markers quoted as inline code that are no call, then a call: the call is read",
    template: CODER,
    output:
      "Markers (`<function=...>`, `<tool_call>`) explained.\n" +
      "<tool_call>\n<function=search>\n<parameter=q>\na\n</parameter>\n</function>\n</tool_call>",
    want: { calls: [["search", { q: "a" }]], content: "Markers (`<function=...>`, `<tool_call>`) explained." },
  },
  {
    name: "a call under the usual keys where the template writes others (Command R7B's tool_name, parameters)",
    template: "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja",
    output: '<|START_ACTION|>{"name": "search", "arguments": {"q": "a"}}<|END_ACTION|>',
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "a call in a fence inside its markers",
    template: QWEN25,
    output: '<tool_call>\n```json\n{"name": "search", "arguments": {"q": "a"}}\n```\n</tool_call>',
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "a call opener's words without its special tokens (GigaChat 3, decoded without special tokens)",
    template: "GigaChat3-10B-A1.8B.jinja",
    output: 'Let me check. function call{"name": "search", "arguments": {"q": "a"}}',
    want: { calls: [["search", { q: "a" }]], content: "Let me check." },
  },
  {
    name: "the opener's words in prose before no call are text",
    template: "GigaChat3-10B-A1.8B.jinja",
    output: "This function call is done.",
    want: { calls: [], content: "This function call is done." },
  },
  {
    name: "a markerless call in a fence, where the format marks its calls, stays content",
    template: QWEN25,
    output: '```json\n{"name": "search", "arguments": {"q": "a"}}\n```',
    want: { calls: [], content: '```json\n{"name": "search", "arguments": {"q": "a"}}\n```' },
  },
  {
    name: "a code block before marked calls keeps both its fences as content",
    template: QWEN25,
    output: 'See:\n```\n{"a": 1}\n```\n<tool_call>\n{"name": "search", "arguments": {"q": "a"}}\n</tool_call>',
    want: { calls: [["search", { q: "a" }]], content: 'See:\n```\n{"a": 1}\n```' },
  },
  {
    name: "tagged calls inside a fence are text, the call after it a call",
    template: GLM46,
    output:
      "On it.\n```\n<tool_call>search\n<arg_key>q</arg_key>\n<arg_value>a</arg_value>\n</tool_call>\n```\n" +
      "<tool_call>search\n<arg_key>q</arg_key>\n<arg_value>b</arg_value>\n</tool_call>",
    want: {
      calls: [["search", { q: "b" }]],
      content: "On it.\n```\n<tool_call>search\n<arg_key>q</arg_key>\n<arg_value>a</arg_value>\n</tool_call>\n```",
    },
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
];

describeRealOutputs("real model outputs: JSON calls, markerless or marked, and calls in fences", ROWS);
