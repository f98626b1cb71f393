// Real model outputs (test/helpers/real-outputs.ts) whose values and calls depart from the template: value
// flags the other way round, values as text, arguments wrapped or written as a string, a malformed call among
// calls, markup inside a string value, and calls whose special tokens a serving stack left out.
import {
  CODER,
  DSV4,
  GEMMA4,
  GLM,
  GPT_OSS,
  KIMI,
  LFM2,
  QWEN25,
  describeRealOutputs,
  type RealOutputRow,
} from "../helpers/real-outputs.js";

const HERMES = "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja";
const LFM25 = "LFM2.5-8B-A1B.jinja";
const KIMI_K3 = "Kimi-K3.jinja";
const R1_DISTILL = "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja";
const GLIMMER = "muse-glimmer.jinja";
const MINIMAX_M1 = "MiniMax-M1.jinja";
const NEMOTRON = "NVIDIA-Nemotron-Nano-v2.jinja";
const MINICPM5 = "openbmb-MiniCPM5-1B.jinja";
const COMMAND_R = "CohereForAI-c4ai-command-r-plus-tool_use.jinja";
const LAGUNA = "poolside-Laguna-XS.2.jinja";
const DSML = "<｜DSML｜";
const DSML_END = "</｜DSML｜";
const dsml = (args: string): string =>
  `${DSML}tool_calls>\n${DSML}invoke name="get_weather">\n${args}${DSML_END}invoke>\n${DSML_END}tool_calls>`;
const dsmlArg = (name: string, flag: string, value: string): string =>
  `${DSML}parameter name="${name}" string="${flag}">${value}${DSML_END}parameter>\n`;

const ROWS: RealOutputRow[] = [
  {
    name: "a value whose closer is left out before the call's closers, another call right after (as Nemotron 3 writes)",
    template: CODER,
    output:
      "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>\n</tool_call>\n" +
      "<tool_call>\n<function=search>\n<parameter=q>\nx\n</parameter>\n</function>\n</tool_call>",
    want: {
      calls: [
        ["get_weather", { city: "Paris" }],
        ["search", { q: "x" }],
      ],
      content: null,
    },
  },
  {
    name: "an argument declared a list, written again: its values are the list's items (a list value adds its items)",
    template: GLM,
    output:
      "<tool_call>get_weather<arg_key>todos</arg_key><arg_value>a</arg_value><arg_key>city</arg_key>" +
      '<arg_value>Paris</arg_value><arg_key>todos</arg_key><arg_value>["b", "c"]</arg_value></tool_call>',
    want: { calls: [["get_weather", { todos: ["a", "b", "c"], city: "Paris" }]], content: null },
  },
  {
    name: "Qwen3 Coder: a list argument written in three tags",
    template: CODER,
    output:
      "<tool_call>\n<function=get_weather>\n<parameter=todos>\nx\n</parameter>\n<parameter=todos>\ny\n</parameter>\n" +
      "<parameter=todos>\nz\n</parameter>\n</function>\n</tool_call>",
    want: { calls: [["get_weather", { todos: ["x", "y", "z"] }]], content: null },
  },
  {
    name: "a value flagged as a string where the schema says integer is the number it spells",
    template: DSV4,
    output: dsml(dsmlArg("city", "true", "Paris") + dsmlArg("count", "true", "3")),
    want: { calls: [["get_weather", { city: "Paris", count: 3 }]], content: null },
  },
  {
    name: "a string value flagged as JSON that is no JSON string is the text",
    template: DSV4,
    output: dsml(dsmlArg("city", "false", "null")),
    want: { calls: [["get_weather", { city: "null" }]], content: null },
  },
  {
    name: "a string value flagged as JSON that is a JSON string is that string (exo's DeepSeek V3.2 test)",
    template: DSV4,
    output: dsml(dsmlArg("city", "false", '"Paris \\"15e\\""')),
    want: { calls: [["get_weather", { city: 'Paris "15e"' }]], content: null },
  },
  {
    name: "a string value flagged as JSON that is JSON strings and text is the text",
    template: DSV4,
    output: dsml(dsmlArg("city", "false", '"Paris" or "Lyon"')),
    want: { calls: [["get_weather", { city: '"Paris" or "Lyon"' }]], content: null },
  },
  {
    name: "a value flagged as JSON is that JSON where the schema declares no type, or a type it does not have",
    template: DSV4,
    output:
      `${DSML}tool_calls>\n${DSML}invoke name="annotate">\n${dsmlArg("body", "false", "12345e-3")}` +
      `${DSML_END}invoke>\n${DSML}invoke name="get_weather">\n${dsmlArg("count", "false", '{"a": 1}')}` +
      `${DSML_END}invoke>\n${DSML_END}tool_calls>`,
    want: {
      calls: [
        ["annotate", { body: 12.345 }],
        ["get_weather", { count: { a: 1 } }],
      ],
      content: null,
    },
  },
  {
    name: "an untyped value flagged as a string is the text",
    template: DSV4,
    output:
      `${DSML}tool_calls>\n${DSML}invoke name="annotate">\n${dsmlArg("body", "true", "42")}` +
      `${DSML_END}invoke>\n${DSML_END}tool_calls>`,
    want: { calls: [["annotate", { body: "42" }]], content: null },
  },
  {
    name: "arguments wrapped in one undeclared argument are the arguments it holds",
    template: DSV4,
    output: dsml(dsmlArg("arguments", "false", '{"city": "Paris", "count": 2}')),
    want: { calls: [["get_weather", { city: "Paris", count: 2 }]], content: null },
  },
  {
    name: "a call without its section opener, after text: read from the call's own opener",
    template: DSV4,
    output: `Checking.\n${DSML}invoke name="search">\n${dsmlArg("q", "true", "a")}${DSML_END}invoke>\n`,
    want: { calls: [["search", { q: "a" }]], content: "Checking." },
  },
  {
    name: "a number written with spaces around it or leading zeros is the number",
    template: GLM,
    output:
      "<tool_call>get_weather<arg_key>count</arg_key><arg_value> 042 </arg_value>" +
      "<arg_key>todos</arg_key><arg_value>['a', 'b']</arg_value></tool_call>",
    want: { calls: [["get_weather", { count: 42, todos: ["a", "b"] }]], content: null },
  },
  {
    name: "a number no double holds (`1e999`) keeps its text rather than becoming null",
    template: GLM,
    output: "<tool_call>get_weather<arg_key>count</arg_key><arg_value>1e999</arg_value></tool_call>",
    want: { calls: [["get_weather", { count: "1e999" }]], content: null },
  },
  {
    name: "a string value may hold the format's closing tag where no markup follows it",
    template: CODER,
    output:
      "<tool_call>\n<function=search>\n<parameter=q>\nsay </parameter> then stop\n</parameter>\n" +
      "</function>\n</tool_call>",
    want: { calls: [["search", { q: "say </parameter> then stop" }]], content: null },
  },
  {
    name: "arguments written as a string that holds no object: a call, its arguments that text",
    template: HERMES,
    output: '<tool_call>\n{"name": "search", "arguments": "weather in Paris"}\n</tool_call>',
    want: { calls: [["search", "weather in Paris"]], content: null },
  },
  {
    name: "a malformed object among the calls of a section is content; the calls around it are read",
    template: MINIMAX_M1,
    output:
      '<tool_calls>\n{"name": "search", "arguments": {"q": "a"}}\n{not json}\n' +
      '{"name": "submit", "arguments": {}}\n</tool_calls>',
    want: {
      calls: [
        ["search", { q: "a" }],
        ["submit", {}],
      ],
      content: "{not json}",
    },
  },
  {
    name: "one call object where the template writes a list of them",
    template: NEMOTRON,
    output: '</think><TOOLCALL>{"name": "search", "arguments": {"q": "a"}}</TOOLCALL>',
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "Gemma 4: a call whose special tokens the output lacks (`call:NAME{…}`), after text",
    template: GEMMA4,
    output: 'Looking.\ncall:search{q:<|"|>weather<|"|>}',
    want: { calls: [["search", { q: "weather" }]], content: "Looking." },
  },
  {
    name: "GPT-OSS: a call message with no JSON arguments after a call is content, the call messages after it are read",
    template: GPT_OSS,
    output:
      ' to=functions.search<|channel|>commentary json<|message|>{"q": "a"}<|call|><|start|>assistant' +
      " to=functions.search<|channel|>commentary<|message|>not json<|call|><|start|>assistant" +
      " to=functions.submit<|channel|>commentary json<|message|><|call|>",
    want: {
      calls: [
        ["search", { q: "a" }],
        ["submit", {}],
      ],
      content: "to=functions.search<|channel|>commentary<|message|>not json",
    },
  },
  {
    name: "a space inside a marker left out, or written as a byte-level BPE glyph",
    template: MINICPM5,
    output: '<functionname="search"><param\u0120name="q">a</param></function>',
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "a section opener whose inner whitespace the model wrote otherwise (`Action: ```json` for a newline)",
    template: COMMAND_R,
    output: 'Sure.\nAction: ```json\n[{"tool_name": "search", "parameters": {"q": "a"}}]\n```',
    want: { calls: [["search", { q: "a" }]], content: "Sure." },
  },
  {
    name: "a JSON call object inside a tagged format's call markers",
    template: LAGUNA,
    output: '<tool_call>\n{"name": "search", "arguments": {"q": "a"}}\n</tool_call>',
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "a JSON call object without a tagged format's markers, text around it",
    template: LAGUNA,
    output: 'Let me check.\n{"name": "search", "arguments": {"q": "a"}}\nBack soon.',
    want: { calls: [["search", { q: "a" }]], content: "Let me check.\n\nBack soon." },
  },
  {
    name: "a JSON call object alone without a tagged format's markers (GLM's), after reasoning",
    template: GLM,
    output: 'Paris.</think>{"name":"get_weather","arguments":{"city":"Paris","count":3}}',
    want: { calls: [["get_weather", { city: "Paris", count: 3 }]], content: null },
  },
  {
    name: "JSON in prose whose first field names no declared tool stays content in a tagged format",
    template: GLM,
    output: '</think>The record: {"name": "Paris", "arguments": {"q": "a"}} and {"city": "Paris"}.',
    want: { calls: [], content: 'The record: {"name": "Paris", "arguments": {"q": "a"}} and {"city": "Paris"}.' },
  },
  {
    name: "values whose closing tags the model left out, none before the call's closer",
    template: GLM,
    output:
      "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris<arg_key>count</arg_key><arg_value>3</tool_call>",
    want: { calls: [["get_weather", { city: "Paris", count: 3 }]], content: null },
  },
  {
    name: "a value whose closing tag is left out ends at the next declared argument, whose own value closes",
    template: CODER,
    output:
      "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n<parameter=count>\n3\n</parameter>\n" +
      "</function>\n</tool_call>",
    want: { calls: [["get_weather", { city: "Paris", count: 3 }]], content: null },
  },
  {
    name: "a value quoting a declared argument's markup whose closer no markup follows keeps it as text",
    template: CODER,
    output:
      '<tool_call>\n<function=search>\n<parameter=q>\ndoc = """\n<parameter=q>\nx\n</parameter>\n"""\n' +
      "</parameter>\n</function>\n</tool_call>",
    want: { calls: [["search", { q: 'doc = """\n<parameter=q>\nx\n</parameter>\n"""' }]], content: null },
  },
  {
    name: "Gemma 4: a string argument written as a JSON string instead of the format's delimiters",
    template: GEMMA4,
    output: '<|tool_call>call:search{q:"raw \\"quoted\\""}<tool_call|>',
    want: { calls: [["search", { q: 'raw "quoted"' }]], content: null },
  },
  {
    name: "Gemma 4: a string whose opening delimiter is left out, in an object and a list, beside other values",
    template: GEMMA4,
    output:
      '<|tool_call>call:annotate{body:{city:Paris, France<|"|>,tags:[<|"|>a<|"|>,b<|"|>],n:5},' +
      "flag:true}<tool_call|>",
    want: {
      calls: [["annotate", { body: { city: "Paris, France", tags: ["a", "b"], n: 5 }, flag: true }]],
      content: null,
    },
  },
  {
    name: "Gemma 4: object keys written bare as the template writes them, spaces included",
    template: GEMMA4,
    output:
      '<|tool_call>call:annotate{body:{Basic LLM Chain:{main:[{node:<|"|>Model<|"|>}]}, Chat Model:{}}}<tool_call|>',
    want: {
      calls: [["annotate", { body: { "Basic LLM Chain": { main: [{ node: "Model" }] }, "Chat Model": {} } }]],
      content: null,
    },
  },
  {
    name: "whitespace between a name's marker and the name",
    template: R1_DISTILL,
    output:
      "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>  search  \n```json\n" +
      '{"q": "a"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    want: { calls: [["search", { q: "a" }]], content: null },
  },
  {
    name: "whitespace and newlines around argument names inside their tags; a value keeps its own",
    template: GLM,
    output:
      "<tool_call>get_weather<arg_key>\n\tcity\r\n</arg_key><arg_value> Paris </arg_value>" +
      "<arg_key>\ncount\n</arg_key><arg_value>3</arg_value></tool_call>",
    want: { calls: [["get_weather", { city: " Paris ", count: 3 }]], content: null },
  },
  {
    name: "MiniCPM5: an undeclared argument's string in a CDATA block is the text inside",
    template: MINICPM5,
    output: '<function name="get_weather"><param name="note"><![CDATA[a < b]]></param></function>',
    want: { calls: [["get_weather", { note: "a < b" }]], content: null },
  },
  {
    name: "MiniCPM5: whitespace around an attribute's = and before a tag's >, either quote",
    template: MINICPM5,
    output: "<function name=\"get_weather\"><param name = 'city' >Paris</param></function>",
    want: { calls: [["get_weather", { city: "Paris" }]], content: null },
  },
  {
    name: "Qwen3 Coder: a `<function=` or `<parameter=` tag written as an attribute, either quote (vLLM's tests)",
    template: CODER,
    output:
      "<tool_call>\n<function name=\"get_weather\">\n<parameter name = 'city' >\nParis\n</parameter>\n" +
      "<parameter = count>\n3\n</parameter>\n</function>\n</tool_call>",
    want: { calls: [["get_weather", { city: "Paris", count: 3 }]], content: null },
  },
  {
    name: "Qwen3 Coder: a name never given as an attribute of a tag the template does not write (`<fn name=`)",
    template: CODER,
    output: '<tool_call>\n<fn name="get_weather">\n<parameter=city>\nParis\n</parameter>\n</fn>\n</tool_call>',
    want: {
      calls: [],
      content: '<tool_call>\n<fn name="get_weather">\n<parameter=city>\nParis\n</parameter>\n</fn>\n</tool_call>',
    },
  },
  {
    name: "Qwen3 Coder: a string value that quotes a whole call (a file of markup) holds it; the call goes on after",
    template: CODER,
    output:
      "<tool_call>\n<function=get_weather>\n<parameter=city>\ndoc = '''\n<tool_call>\n<function=get_weather>\n" +
      "<parameter=city>\nLyon\n</parameter>\n<parameter=count>\n1\n</parameter>\n</function>\n</tool_call>\n'''\n" +
      "</parameter>\n<parameter=count>\n2\n</parameter>\n</function>\n</tool_call>",
    want: {
      calls: [
        [
          "get_weather",
          {
            city:
              "doc = '''\n<tool_call>\n<function=get_weather>\n<parameter=city>\nLyon\n</parameter>\n" +
              "<parameter=count>\n1\n</parameter>\n</function>\n</tool_call>\n'''",
            count: 2,
          },
        ],
      ],
      content: null,
    },
  },
  {
    name: "Qwen3 Coder: an undeclared argument's markup inside a string value that text follows is the value's",
    template: CODER,
    output:
      "<tool_call>\n<function=get_weather>\n<parameter=city>\nT = '''\n</parameter>\n<parameter=other>\nx\n" +
      "</parameter>\n'''\n</parameter>\n</function>\n</tool_call>",
    want: {
      calls: [["get_weather", { city: "T = '''\n</parameter>\n<parameter=other>\nx\n</parameter>\n'''" }]],
      content: null,
    },
  },
  {
    name: "Qwen3 Coder: an undeclared argument after a string value, markup after it, is an argument",
    template: CODER,
    output:
      "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=other>\nx\n" +
      "</parameter>\n<parameter=count>\n2\n</parameter>\n</function>\n</tool_call>",
    want: { calls: [["get_weather", { city: "Paris", other: "x", count: 2 }]], content: null },
  },
  {
    name: "DeepSeek V3.1: JSON arguments left out of a call to a tool that requires none are {}",
    template: "deepseek-ai-DeepSeek-V3.1.jinja",
    output: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>submit<｜tool▁sep｜> <｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    want: { calls: [["submit", {}]], content: null },
  },
  {
    name: "Kimi K2: JSON arguments left out of a call to a tool that requires some: the text stays",
    template: KIMI,
    output:
      "<|tool_calls_section_begin|><|tool_call_begin|>functions.annotate:0<|tool_call_argument_begin|>" +
      "<|tool_call_end|><|tool_calls_section_end|>",
    want: {
      calls: [],
      content:
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.annotate:0<|tool_call_argument_begin|>" +
        "<|tool_call_end|><|tool_calls_section_end|>",
    },
  },
  {
    name: "JSON arguments with quotes the model left unescaped inside a string: the quotes are the string's text",
    template: QWEN25,
    output:
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "He said "Paris" twice", "count": 2}}\n</tool_call>',
    want: { calls: [["get_weather", { city: 'He said "Paris" twice', count: 2 }]], content: null },
  },
  {
    name: "LFM2.5: apostrophes the model left unescaped inside a single-quoted string (OpenVINO's tests)",
    template: LFM25,
    output: "<|tool_call_start|>[search(q='it's the day, isn't it')]<|tool_call_end|>",
    want: { calls: [["search", { q: "it's the day, isn't it" }]], content: null },
  },
  {
    name: "LFM2.5: a Python float without its leading digit, and a trailing comma in the arguments",
    template: LFM25,
    output: "<|tool_call_start|>[annotate(body=-.5, flag=True,)]<|tool_call_end|>",
    want: { calls: [["annotate", { body: -0.5, flag: true }]], content: null },
  },
  {
    name: "LFM2.5: calls between the wrapper's markers without the list's brackets",
    template: LFM25,
    output: "<|tool_call_start|>search(q='a'), annotate(body=1)<|tool_call_end|>",
    want: {
      calls: [
        ["search", { q: "a" }],
        ["annotate", { body: 1 }],
      ],
      content: null,
    },
  },
  {
    name: "Gemma 4: `none` written for null, as `None` and `null` are (LM Studio's tests)",
    template: GEMMA4,
    output: '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:[1,none,None,null]}<tool_call|>',
    want: { calls: [["get_weather", { city: "Paris", days: [1, null, null, null] }]], content: null },
  },
  {
    name: "Gemma 4: a call without its argument braces right before its closer has no arguments",
    template: GEMMA4,
    output: "<|tool_call>call:submit<tool_call|>",
    want: { calls: [["submit", {}]], content: null },
  },
  {
    name: "a Python tuple or set where the schema declares a list is the list, in written order",
    template: LFM2,
    output: "<|tool_call_start|>[get_weather(todos=('a', 'b')), get_weather(todos={'c', 'd'})]<|tool_call_end|>",
    want: {
      calls: [
        ["get_weather", { todos: ["a", "b"] }],
        ["get_weather", { todos: ["c", "d"] }],
      ],
      content: null,
    },
  },
  {
    name: "a tagged value written as a Python set is a list where declared, text elsewhere",
    template: GLM,
    output:
      "<tool_call>get_weather<arg_key>todos</arg_key><arg_value>{'a', 'b'}</arg_value><arg_key>city</arg_key>" +
      "<arg_value>{'a', 'b'}</arg_value></tool_call>",
    want: { calls: [["get_weather", { todos: ["a", "b"], city: "{'a', 'b'}" }]], content: null },
  },
  {
    name: "a value of a parameter without a type: JSON where it reads whole as JSON, else (and `1.10`) its text",
    template: GLM,
    output:
      '<tool_call>annotate<arg_key>body</arg_key><arg_value>{"ok": false}</arg_value></tool_call>' +
      "<tool_call>annotate<arg_key>body</arg_key><arg_value>1.10</arg_value></tool_call>" +
      "<tool_call>annotate<arg_key>body</arg_key><arg_value>None</arg_value></tool_call>" +
      "<tool_call>annotate<arg_key>body</arg_key><arg_value>-0.5</arg_value></tool_call>" +
      "<tool_call>annotate<arg_key>body</arg_key><arg_value>123_456 apples</arg_value></tool_call>",
    want: {
      calls: [
        ["annotate", { body: { ok: false } }],
        ["annotate", { body: "1.10" }],
        ["annotate", { body: null }],
        ["annotate", { body: -0.5 }],
        ["annotate", { body: "123_456 apples" }],
      ],
      content: null,
    },
  },
  {
    name: "Muse Glimmer: a value of a parameter without a type is JSON where it reads whole as JSON, else its text",
    template: GLIMMER,
    output:
      ' to=annotate<|message|><atem:function_calls>\n<atem:invoke name="annotate">\n' +
      '<atem:parameter name="body">null</atem:parameter>\n</atem:invoke>\n<atem:invoke name="annotate">\n' +
      '<atem:parameter name="body">[60,30]</atem:parameter>\n</atem:invoke>\n<atem:invoke name="annotate">\n' +
      '<atem:parameter name="body">1.10</atem:parameter>\n</atem:invoke>\n</atem:function_calls>',
    want: {
      calls: [
        ["annotate", { body: null }],
        ["annotate", { body: [60, 30] }],
        ["annotate", { body: "1.10" }],
      ],
      content: null,
    },
  },
  {
    name: "MiniMax M3: a value of a parameter without a type is a number, boolean or null where it reads as one",
    template: "MiniMax-M3.jinja",
    output:
      ']<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="annotate">]<]minimax[>[<body>null]<]minimax[>[</body>' +
      ']<]minimax[>[</invoke>\n]<]minimax[>[<invoke name="annotate">]<]minimax[>[<body>nullish]<]minimax[>[</body>' +
      "]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
    want: {
      calls: [
        ["annotate", { body: null }],
        ["annotate", { body: "nullish" }],
      ],
      content: null,
    },
  },
  {
    name: "a number written as a JSON string, and null where no string is declared",
    template: GLM,
    output:
      '<tool_call>get_weather<arg_key>count</arg_key><arg_value>"42"</arg_value><arg_key>todos</arg_key>' +
      "<arg_value>null</arg_value><arg_key>city</arg_key><arg_value>null</arg_value></tool_call>",
    want: { calls: [["get_weather", { count: 42, todos: null, city: "null" }]], content: null },
  },
  {
    name: "a boolean written as 1 or 0 is the boolean",
    template: GLM,
    output:
      "<tool_call>annotate<arg_key>body</arg_key><arg_value>x</arg_value><arg_key>flag</arg_key>" +
      "<arg_value>1</arg_value>" +
      "</tool_call><tool_call>annotate<arg_key>body</arg_key><arg_value>y</arg_value><arg_key>flag</arg_key>" +
      "<arg_value>0</arg_value></tool_call>",
    want: {
      calls: [
        ["annotate", { body: "x", flag: true }],
        ["annotate", { body: "y", flag: false }],
      ],
      content: null,
    },
  },
  {
    name: "Kimi K3: an argument the tool does not declare, typed by its opener; a typed value that is no JSON is text",
    template: KIMI_K3,
    output:
      '<|close|>think<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>' +
      '<|open|>argument key="todos" type="array"<|sep|>[1, 2<|close|>argument<|sep|>' +
      '<|open|>argument key="extra" type="object"<|sep|>{"a": 1}<|close|>argument<|sep|>' +
      '<|open|>argument key="note" type="string"<|sep|>42<|close|>argument<|sep|>' +
      "<|close|>call<|sep|><|close|>tools<|sep|>",
    want: { calls: [["get_weather", { todos: "[1, 2", extra: { a: 1 }, note: "42" }]], content: null },
  },
  {
    name: "Kimi K3: an undeclared argument's key holding `<`, `>` or a newline, which the template leaves unescaped",
    template: KIMI_K3,
    output:
      '<|close|>think<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>' +
      '<|open|>argument key="a<b>\nc" type="string"<|sep|>New "York"<|close|>argument<|sep|>' +
      "<|close|>call<|sep|><|close|>tools<|sep|>",
    want: { calls: [["get_weather", { "a<b>\nc": 'New "York"' }]], content: null },
  },
  {
    name: "Kimi K3: a parameter its schema does not type, read by the type its opener names",
    template: KIMI_K3,
    output:
      '<|close|>think<|sep|><|open|>tools<|sep|><|open|>call tool="annotate" index="1"<|sep|>' +
      '<|open|>argument key="body" type="null"<|sep|>null<|close|>argument<|sep|><|close|>call<|sep|>' +
      '<|open|>call tool="annotate" index="2"<|sep|>' +
      '<|open|>argument key="body" type="string"<|sep|>42<|close|>argument<|sep|><|close|>call<|sep|>' +
      '<|open|>call tool="annotate" index="3"<|sep|>' +
      '<|open|>argument key="body" type="object"<|sep|>{"a": [1]}<|close|>argument<|sep|><|close|>call<|sep|>' +
      "<|close|>tools<|sep|>",
    want: {
      calls: [
        ["annotate", { body: null }],
        ["annotate", { body: "42" }],
        ["annotate", { body: { a: [1] } }],
      ],
      content: null,
    },
  },
  {
    name: "Muse Glimmer: an argument the tool does not declare is kept, JSON where it reads as JSON",
    template: GLIMMER,
    output:
      ' to=search<|message|><atem:function_calls>\n<atem:invoke name="search">\n' +
      '<atem:parameter name="q">a</atem:parameter>\n<atem:parameter name="limit">3</atem:parameter>\n' +
      "</atem:invoke>\n</atem:function_calls>",
    want: { calls: [["search", { q: "a", limit: 3 }]], content: null },
  },
  {
    name: "pythonic calls: an argument the tool does not declare is kept, also one named after a Python keyword",
    template: LFM2,
    output: "<|tool_call_start|>[search(q='a', from=1)]<|tool_call_end|>",
    want: { calls: [["search", { q: "a", from: 1 }]], content: null },
  },
  {
    name: "LFM2.5: an argument the tool does not declare is kept, also for a tool that declares none",
    template: LFM25,
    output: "<|tool_call_start|>[search(q='a', from=1), submit(x=None)]<|tool_call_end|>",
    want: {
      calls: [
        ["search", { q: "a", from: 1 }],
        ["submit", { x: null }],
      ],
      content: null,
    },
  },
  {
    name: "LFM2: whitespace after the call opener, and a string holding `'))\"`",
    template: LFM2,
    output: "<|tool_call_start|> [search(q='run \"f(x='\\,'))\"')]<|tool_call_end|>",
    want: { calls: [["search", { q: "run \"f(x='\\,'))\"" }]], content: null },
  },
];

describeRealOutputs("real model outputs: values and calls that depart from the template", ROWS);
