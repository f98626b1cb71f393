// Real model outputs (test/helpers/real-outputs.ts): the shapes of each format's calls beyond what its template
// renders (text between sections, markers left out or escaped), tagged argument values and model-written call ids.
import {
  CODER,
  COHERE2,
  describeRealOutputs,
  DEVSTRAL,
  DSV4,
  GEMMA4,
  GLM,
  GLM46,
  GPT_OSS,
  HY3,
  KIMI,
  LFM2,
  MINIMAX,
  MINISTRAL,
  QWEN25,
  type RealOutputRow,
} from "../helpers/real-outputs.js";

const MINIMAX_M2 = "MiniMax-M2.jinja";
const GLIMMER = "muse-glimmer.jinja";

const ROWS: RealOutputRow[] = [
  {
    name: "a broken call between two calls: both calls, the broken one's text content",
    template: CODER,
    output:
      "<tool_call>\n<function=search>\n<parameter=q>a</parameter>\n</function>\n</tool_call>\n" +
      "<tool_call>\nno function tag here\n</tool_call>\n" +
      "<tool_call>\n<function=search>\n<parameter=q>b</parameter>\n</function>\n</tool_call>",
    want: {
      calls: [
        ["search", { q: "a" }],
        ["search", { q: "b" }],
      ],
      content: "<tool_call>\nno function tag here\n</tool_call>",
    },
  },
  {
    name: "GLM: a call without its name between two calls",
    template: GLM46,
    output:
      "<tool_call>search\n<arg_key>q</arg_key>\n<arg_value>a</arg_value>\n</tool_call>\n" +
      "<tool_call>\n<arg_key>q</arg_key>\n<arg_value>x</arg_value>\n</tool_call>\n" +
      "<tool_call>search\n<arg_key>q</arg_key>\n<arg_value>b</arg_value>\n</tool_call>",
    want: {
      calls: [
        ["search", { q: "a" }],
        ["search", { q: "b" }],
      ],
      content: "<tool_call>\n<arg_key>q</arg_key>\n<arg_value>x</arg_value>\n</tool_call>",
    },
  },
  {
    name: "GLM: a string value whose opening tag is left out, its closing tag written",
    template: GLM,
    output: "<tool_call>search<arg_key>q</arg_key>how many days left</arg_value></tool_call>",
    want: { calls: [["search", { q: "how many days left" }]], content: null },
  },
  {
    name: "LFM2.5: whitespace before the section's closer",
    template: LFM2,
    output: '<|tool_call_start|>[search(q="a")] <|tool_call_end|>',
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "Gemma 4: a call whose `call` is left out (`<|tool_call>:NAME{…}`)",
    template: GEMMA4,
    output: '<|tool_call>:search{q:<|"|>a<|"|>}<tool_call|>',
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "Gemma 4: whitespace between a call's name and its argument object, and inside it",
    template: GEMMA4,
    output: '<|tool_call>call:search\n{\n  q:<|"|>a<|"|>\n}<tool_call|>',
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "Gemma 4: a thought whose opener is misspelled is text up to its end marker, the call after it is read",
    template: GEMMA4,
    output: '<|channel|>thought\nI need it.\n<channel|>\n<|tool_call>call:search{q:<|"|>a<|"|>}<tool_call|>',
    want: { calls: [["search", { q: "a" }]], content: "<|channel|>thought\nI need it.\n<channel|>" },
  },
  {
    name: "a call whose function tag is left out, the declared name alone on its line (Qwen 3.6); prose is text",
    template: CODER,
    output:
      "I will look.\n<tool_call>\nsearch\n<parameter=q>\na\n</parameter>\n</function>\n</tool_call>\n" +
      "Then search\n<parameter=q>b</parameter> stays text.",
    want: {
      calls: [["search", { q: "a" }]],
      content: "I will look.\n\nThen search\n<parameter=q>b</parameter> stays text.",
    },
  },
  {
    name: "a call whose function tag is the declared name itself (`<search>`), as Nemotron 3 writes it; prose is text",
    template: CODER,
    output:
      "I will look.\n<tool_call>\n<search>\n<parameter=q>a</parameter>\n</search>\n" +
      "<tool_call>\n<search>\n<parameter=q>\nb\n</parameter>\n</function>\n</tool_call>\nThe <search> tag is text.",
    want: {
      calls: [
        ["search", { q: "a" }],
        ["search", { q: "b" }],
      ],
      content: "I will look.\n\nThe <search> tag is text.",
    },
  },
  {
    name: "a declared name in OpenAI's `functions.` namespace; an undeclared one stays content",
    template: GLM,
    output:
      "<tool_call>functions.search<arg_key>q</arg_key><arg_value>a</arg_value></tool_call>" +
      "<tool_call>functions.lookup<arg_key>q</arg_key><arg_value>b</arg_value></tool_call>",
    want: {
      calls: [["search", { q: "a" }]],
      content: "<tool_call>functions.lookup<arg_key>q</arg_key><arg_value>b</arg_value></tool_call>",
    },
  },
  {
    name: "GPT-OSS: a call message ended with <|end|> as other messages are, then the answer",
    template: GPT_OSS,
    output:
      "<|channel|>analysis<|message|>plan<|end|><|start|>assistant to=functions.search<|channel|>commentary" +
      '<|message|>{"q":"a"}<|end|><|start|>assistant<|channel|>final<|message|>done<|end|>',
    want: { calls: [["search", { q: "a" }]], content: "done" },
  },
  {
    name: "Ministral 3: a newline between [ARGS] and the arguments",
    template: MINISTRAL,
    output: '[TOOL_CALLS]search[ARGS]\n{"q": "a"}',
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "Muse Glimmer: messages apart by whitespace, a call message without its header",
    template: GLIMMER,
    output:
      " to=self<|message|>thinking<|eom|>\n<|start|>assistant<|message|><atem:function_calls>\n" +
      '<atem:invoke name="search.search">\n<atem:parameter name="q">a</atem:parameter>\n</atem:invoke>\n' +
      "</atem:function_calls>",
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "GPT-OSS: text without a channel header before a call message is content",
    template: GPT_OSS,
    output:
      "I'll look. <|start|>assistant<|channel|>commentary to=functions.search<|constrain|>json<|message|>" +
      '{"q": "a"}<|call|>',
    want: { calls: [["search", { q: "a" }]], content: "I'll look." },
  },
  {
    name: "MiniMax M3: a list argument written as JSON text rather than as elements",
    template: MINIMAX,
    output:
      ']<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="get_weather">]<]minimax[>[<todos>["a", "b"]' +
      "]<]minimax[>[</todos>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
    want: { calls: [["get_weather", { todos: ["a", "b"] }]], content: null },
  },
  {
    name: "MiniMax M3: a declared list whose items are elements named other than <item>",
    template: MINIMAX,
    output:
      ']<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="get_weather">]<]minimax[>[<todos>]<]minimax[>[<item>a' +
      "]<]minimax[>[</item>]<]minimax[>[<entry>b]<]minimax[>[</entry>]<]minimax[>[</todos>]<]minimax[>[</invoke>\n" +
      "]<]minimax[>[</tool_call>",
    want: { calls: [["get_weather", { todos: ["a", "b"] }]], content: null },
  },
  {
    name: "a call's closer left out right before its wrapper's closer (`</function>` before `</tool_call>`)",
    template: CODER,
    output:
      "Checking. <tool_call>\n<function=search>\n<parameter=q>\na\n</parameter>\n</tool_call>\n" +
      "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis</tool_call>",
    want: {
      calls: [
        ["search", { q: "a" }],
        ["get_weather", { city: "Paris" }],
      ],
      content: "Checking.",
    },
  },
  {
    name: "a call's closer left out before the section's closer; a call cut before both is content",
    template: MINIMAX_M2,
    output:
      '</think>\n<minimax:tool_call>\n<invoke name="search">\n<parameter name="q">a</parameter>\n' +
      "</minimax:tool_call>\n" +
      '<minimax:tool_call>\n<invoke name="search">\n<parameter name="q">b</parameter>\n',
    want: {
      calls: [["search", { q: "a" }]],
      content: '<minimax:tool_call>\n<invoke name="search">\n<parameter name="q">b</parameter>',
    },
  },
  {
    name: "reasoning the prompt opens, never closed: a finished call before an unfinished one is still a call",
    template: GLM,
    output:
      "<tool_call>search<arg_key>q</arg_key><arg_value>a</arg_value></tool_call>\n" +
      "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Par",
    want: {
      calls: [["search", { q: "a" }]],
      content: "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Par",
    },
  },
  {
    name: "the marker between a call's name and its first argument left out",
    template: HY3,
    output:
      "<tool_calls:opensource>\n<tool_call:opensource>search<arg_key:opensource>q</arg_key:opensource>" +
      "<arg_value:opensource>a</arg_value:opensource></tool_call:opensource>\n</tool_calls:opensource>",
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "a JSON call without arguments between markers, to a tool that requires none: a call with `{}`",
    template: QWEN25,
    output: '<tool_call>\n{"name": "submit"}\n</tool_call>\n<tool_call>\n{"name": "annotate"}\n</tool_call>',
    want: { calls: [["submit", {}]], content: '<tool_call>\n{"name": "annotate"}\n</tool_call>' },
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
      content: "Some text  more text  done",
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
      content: "First  then <|tool_call_start|>[search(q=]<|tool_call_end|> last",
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
      content: "A  B  C",
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
      content: "A  B  C",
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
    name: "the arguments as JSON right after the name, without the separator marker the template writes",
    template: HY3,
    output:
      '<tool_calls:opensource>\n<tool_call:opensource>search{"q": "x"}</tool_call:opensource>\n' +
      "</tool_calls:opensource>",
    want: { calls: [["search", { q: "x" }]], content: null },
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
      content: "A BC",
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
      content: "BC",
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
    name: "GPT-OSS: a preamble that ends the turn with `<|return|>` is the content",
    template: GPT_OSS,
    output: "<|channel|>analysis<|message|>Plan<|start|>assistant<|channel|>commentary<|message|>Answer<|return|>",
    want: { calls: [], content: "Answer" },
  },
  {
    name: "GPT-OSS: reasoning after a preamble, the turn's last message, ended by `<|return|>`",
    template: GPT_OSS,
    output:
      "<|channel|>analysis<|message|>First<|start|>assistant<|channel|>commentary<|message|>Working." +
      "<|start|>assistant<|channel|>analysis<|message|>More<|return|>",
    want: { calls: [], content: "Working." },
  },
  {
    name: "LFM2: Python None for a string parameter, text after the calls",
    template: LFM2,
    output: "<|tool_call_start|>[get_weather(city=None, count=2)]<|tool_call_end|>Done.",
    want: { calls: [["get_weather", { city: null, count: 2 }]], content: "Done." },
  },
  {
    name: "a set literal where a list is declared is the list, the same in any chunks",
    template: GLM,
    output: "<tool_call>get_weather\n<arg_key>todos</arg_key>\n<arg_value>{1, 2, 3}</arg_value>\n</tool_call>",
    want: { calls: [["get_weather", { todos: [1, 2, 3] }]], content: null },
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
    name: "a declared name alone where the numbered id goes: calls, each with a fresh id (the name is no id)",
    template: KIMI,
    output:
      'Reading.<|tool_calls_section_begin|> <|tool_call_begin|> search <|tool_call_argument_begin|> {"q": "a"} ' +
      '<|tool_call_end|> <|tool_call_begin|> search <|tool_call_argument_begin|> {"q": "b"} <|tool_call_end|> ' +
      "<|tool_calls_section_end|>",
    want: {
      calls: [
        ["search", { q: "a" }],
        ["search", { q: "b" }],
      ],
      content: "Reading.",
    },
    ids: ["c0", "c1"],
  },
  {
    name: "a section the output ends without its closer, after the call's own closer",
    template: "MiniMax-M2.jinja",
    output: '<minimax:tool_call>\n<invoke name="search">\n<parameter name="q">x</parameter>\n</invoke>',
    want: { calls: [["search", { q: "x" }]], content: null },
  },
  {
    name: "XML-style name tags whose `>` the model left out, a newline ending the name",
    template: CODER,
    output:
      "<tool_call><function=search\n<parameter=q\na>b\n</parameter>\n</function></tool_call>\n" +
      "<tool_call><function=get_weather>\n<parameter=city\nParis</parameter></function></tool_call>",
    want: {
      calls: [
        ["search", { q: "a>b" }],
        ["get_weather", { city: "Paris" }],
      ],
      content: null,
    },
  },
  {
    name: "a name tag without its `>` is no call where the name only begins a longer word",
    template: CODER,
    output: "<tool_call><function=searching\n<parameter=q\na\n</parameter>\n</function></tool_call>",
    want: {
      calls: [],
      content: "<tool_call><function=searching\n<parameter=q\na\n</parameter>\n</function></tool_call>",
    },
  },
  {
    name: "Kimi K3: arguments as one JSON object in a json block, as the template writes string arguments",
    template: "Kimi-K3.jinja",
    output:
      '<|close|>think<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>' +
      '<|open|>json type="object"<|sep|>{"city": "Tokyo"}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
    want: { calls: [["get_weather", { city: "Tokyo" }]], content: null },
  },
  {
    name: "Kimi K3: a call naming no declared tool is content, the call after it is read",
    template: "Kimi-K3.jinja",
    output:
      '<|close|>think<|sep|><|open|>tools<|sep|><|open|>call index="1"<|sep|><|close|>call<|sep|>' +
      '<|open|>call tool="search" index="2"<|sep|><|open|>argument key="q" type="string"<|sep|>a' +
      "<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
    want: {
      calls: [["search", { q: "a" }]],
      content: '<|open|>tools<|sep|><|open|>call index="1"<|sep|><|close|>call<|sep|>',
    },
  },
  {
    name: "LFM2: a list of calls without its markers, text around it",
    template: LFM2,
    output: "Checking. [search(q='a'), get_weather(city=\"Paris\")] Back soon.",
    want: {
      calls: [
        ["search", { q: "a" }],
        ["get_weather", { city: "Paris" }],
      ],
      content: "Checking.  Back soon.",
    },
  },
  {
    name: "LFM2: a list in prose whose first item calls no declared tool is content",
    template: LFM2,
    output: "Use [print(x=1), search(q='a')] or [1, 2].",
    want: { calls: [], content: "Use [print(x=1), search(q='a')] or [1, 2]." },
  },
  {
    name: "a call of a tool that requires no argument: its name, then the call's closer, no separator",
    template: HY3,
    output: "<tool_calls:opensource><tool_call:opensource>submit</tool_call:opensource></tool_calls:opensource>",
    want: { calls: [["submit", {}]], content: null },
  },
  {
    name: "a tool that requires an argument: its name then the call's closer is no call",
    template: HY3,
    output: "<tool_calls:opensource><tool_call:opensource>annotate</tool_call:opensource></tool_calls:opensource>",
    want: {
      calls: [],
      content: "<tool_calls:opensource><tool_call:opensource>annotate</tool_call:opensource></tool_calls:opensource>",
    },
  },
  {
    name: "GPT-OSS: messages with whitespace between the format's tokens, the answer ending with <|return|>",
    template: GPT_OSS,
    output:
      "\n<|channel|>analysis\n<|message|>Need the weather.\n<|end|>\n<|start|>assistant<|channel|>commentary " +
      'to=functions.get_weather\n<|constrain|>json\n<|message|>  {"city": "Paris"}\n<|call|>\n' +
      "<|channel|>final\n<|message|>It is sunny.\n<|return|>",
    want: { calls: [["get_weather", { city: "Paris" }]], content: "It is sunny." },
  },
  {
    name: "GPT-OSS: a message without its <|end|>, the next without its <|start|>assistant, a constrained answer",
    template: GPT_OSS,
    output:
      "<|channel|>analysis<|message|>Think.<|start|>assistant<|channel|>analysis<|message|>More.<|end|>" +
      '<|channel|>final <|constrain|>json<|message|>{"a": 1}<|return|>',
    want: { calls: [], content: '{"a": 1}' },
  },
  {
    name: "Mistral Nemo: the list of JSON calls without its [TOOL_CALLS] marker, text before it",
    template: "mistralai-Mistral-Nemo-Instruct-2407.jinja",
    output: 'Sure. [{"name": "search", "arguments": {"q": "a"}}, {"name": "get_weather", "arguments": {"city": "P"}}]',
    want: {
      calls: [
        ["search", { q: "a" }],
        ["get_weather", { city: "P" }],
      ],
      content: "Sure.",
    },
  },
  {
    name: "Mistral Nemo: one JSON call object without its marker; a list in prose naming no tool is content",
    template: "mistralai-Mistral-Nemo-Instruct-2407.jinja",
    output: 'Use [{"name": "x"}] here. {"name": "search", "arguments": {"q": "a"}}',
    want: { calls: [["search", { q: "a" }]], content: 'Use [{"name": "x"}] here.' },
  },
  {
    name: "Mistral Nemo: the marker still opens its list where text before it holds a bracket",
    template: "mistralai-Mistral-Nemo-Instruct-2407.jinja",
    output: 'See [1]. [TOOL_CALLS][{"name": "search", "arguments": {"q": "a"}}]',
    want: { calls: [["search", { q: "a" }]], content: "See [1]." },
  },
  {
    name: "XML attribute values quoted with ' rather than the template's \"",
    template: MINIMAX_M2,
    output:
      "</think>\n\n<minimax:tool_call>\n<invoke name='get_weather'>\n<parameter name='city'>Paris</parameter>\n" +
      "<parameter name='count'>3</parameter>\n</invoke>\n</minimax:tool_call>",
    want: { calls: [["get_weather", { city: "Paris", count: 3 }]], content: null },
  },
];

describeRealOutputs("real model outputs: each format's calls, tagged values and call ids", ROWS);
