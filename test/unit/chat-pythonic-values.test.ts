// The PYTHONIC value reader: keyword-argument values as Python literals (every string escape in
// either quote, True/False/None, numbers, nested dicts and lists), streamed a piece at a time,
// and malformed calls, which fall back to content instead of throwing.
import { describe, expect, it } from "vitest";
import {
  ChatStreamParser,
  accumulateDeltas,
  generateChatParams,
  parseChatOutput,
  type ChatDelta,
  type ChatParams,
} from "../../src/chat/index.js";
import { PythonStringContent } from "../../src/chat/python-string.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import type { ToolDefinition } from "../../src/types.js";
import { PYTHONIC_TEMPLATES, pythonicCase } from "../helpers/pythonic-templates.js";

const TOOLS: ToolDefinition[] = [
  {
    type: "function",
    function: {
      name: "put",
      description: "Stores a value",
      parameters: {
        type: "object",
        properties: {
          value: { description: "Anything" },
          text: { type: "string" },
          n: { type: "number" },
          flag: { type: "boolean" },
        },
      },
    },
  },
];

const ids = { generateCallId: (i: number) => `call${i}` };

function paramsFor(file: string): ChatParams {
  const t = pythonicCase(PYTHONIC_TEMPLATES.find((e) => e.file === file)!)!;
  return generateChatParams(t.analysis, t.template, { messages: [{ role: "user", content: "hi" }], tools: TOOLS });
}

const wrapped = paramsFor("python-start.jinja");
const bare = paramsFor("bare-list.jinja");

/** The arguments of the single call in `output`, parsed. */
function argsOf(params: ChatParams, output: string): unknown {
  const msg = parseChatOutput(params, output);
  expect(msg.tool_calls, JSON.stringify(msg)).toHaveLength(1);
  return JSON.parse(msg.tool_calls![0]!.function.arguments);
}

const call = (args: string): string => `<|python_start|>[put(${args})]<|python_end|>`;

describe("string escapes, in double and single quotes", () => {
  const escapes: [string, string][] = [
    ["\\n", "\n"],
    ["\\t", "\t"],
    ["\\r", "\r"],
    ['\\"', '"'],
    ["\\'", "'"],
    ["\\\\", "\\"],
    ["\\u00e9", "é"],
    ["\\u65e5\\u672c", "日本"],
    ["\\x41", "A"],
    ["\\/", "/"],
    // Python keeps an unknown escape as written.
    ["\\q", "\\q"],
  ];
  it.each(
    escapes.flatMap(([written, meant]) => ['"', "'"].map((q) => ({ label: `${q}${written}${q}`, q, written, meant }))),
  )("$label", ({ q, written, meant }) => {
    expect(argsOf(wrapped, call(`text=${q}a${written}b${q}`))).toEqual({ text: `a${meant}b` });
    // Untyped values take the same path.
    expect(argsOf(wrapped, call(`value=${q}a${written}b${q}`))).toEqual({ value: `a${meant}b` });
  });

  it("a quote of the other kind needs no escape", () => {
    expect(argsOf(wrapped, call(`text="it's"`))).toEqual({ text: "it's" });
    expect(argsOf(wrapped, call(`text='say "hi"'`))).toEqual({ text: 'say "hi"' });
  });

  it("an unescaped quote of the same kind is text unless the call goes on after it (LFM2.5 writes them)", () => {
    expect(argsOf(wrapped, call(`text='it's here', n=1`))).toEqual({ text: "it's here", n: 1 });
    expect(argsOf(wrapped, call(`text="a "quoted" word"`))).toEqual({ text: 'a "quoted" word' });
  });

  it("raw newlines and unicode are kept", () => {
    expect(argsOf(wrapped, call(`text='line 1\nline 2 — 😀'`))).toEqual({ text: "line 1\nline 2 — 😀" });
  });

  it("an empty string", () => {
    expect(argsOf(wrapped, call(`text='', value=""`))).toEqual({ text: "", value: "" });
  });
});

describe("Python literals", () => {
  it.each([
    ["flag=True", { flag: true }],
    ["flag=False", { flag: false }],
    ["value=None", { value: null }],
    ["flag=true, value=null", { flag: true, value: null }],
    ["n=3", { n: 3 }],
    ["n=-2.5e3", { n: -2500 }],
    ["value={'a': [1, 2.5, {'b': None}], \"c\": {}}", { value: { a: [1, 2.5, { b: null }], c: {} } }],
    ["value=[[], ['x', \"y\"], {'k': False}]", { value: [[], ["x", "y"], { k: false }] }],
    ["value={'s': 'it\\'s \\n'}", { value: { s: "it's \n" } }],
    ["value=[1, 2,]", { value: [1, 2] }],
    ["n=1, flag=True,", { n: 1, flag: true }],
    [" n = 1 ,  flag = False ", { n: 1, flag: false }],
  ] as const)("%s", (args, expected) => {
    expect(argsOf(wrapped, call(args))).toEqual(expected);
  });

  it("a call without arguments", () => {
    expect(argsOf(wrapped, "<|python_start|>[put()]<|python_end|>")).toEqual({});
  });

  it("bare calls (no wrapper) with text that only looks like a list stays content", () => {
    expect(argsOf(bare, "[put(text='x')]")).toEqual({ text: "x" });
    const link = "See [the docs](https://example.com) and [put](x).";
    expect(parseChatOutput(bare, link)).toEqual({ role: "assistant", content: link });
  });
});

describe("streaming and partial input", () => {
  const output = call(`text='a\\n\\u00e9\\'b', value={'k': [True, None, "x\\"y"]}, n=-12.5, flag=False`);
  const expected = { text: "a\né'b", value: { k: [true, null, 'x"y'] }, n: -12.5, flag: false };

  it.each([1, 2, 3, 5, 7])("chunks of %i characters give the whole-output call", (size) => {
    const parser = new ChatStreamParser(wrapped, ids);
    const args: string[] = [];
    for (let i = 0; i < output.length; i += size)
      for (const d of parser.feed(output.slice(i, i + size)))
        for (const tc of d.tool_calls ?? []) args.push(tc.function.arguments ?? "");
    for (const d of parser.finish()) for (const tc of d.tool_calls ?? []) args.push(tc.function.arguments ?? "");
    expect(JSON.parse(args.join(""))).toEqual(expected);
    expect(parser.message()).toEqual(parseChatOutput(wrapped, output, ids));
  });

  it("every prefix streams arguments that only grow, and close into valid JSON", () => {
    let previous = "";
    for (let end = 1; end <= output.length; end++) {
      const parser = new ChatStreamParser(wrapped);
      parser.feed(output.slice(0, end));
      const now = parser.message().tool_calls?.[0]?.function.arguments ?? "";
      expect(now.startsWith(previous), `${JSON.stringify(output.slice(0, end))}: ${now} after ${previous}`).toBe(true);
      previous = now;
      parser.finish();
      const closed = parser.message().tool_calls?.[0]?.function.arguments;
      if (closed !== undefined) expect(() => JSON.parse(closed), closed).not.toThrow();
    }
  });

  it("a string cut inside an escape waits for the rest", () => {
    const s = new PythonStringContent();
    let out = s.open();
    for (const piece of ["a\\", "u00", "e9 \\", "'", ' "q" \\', "\\"]) out += s.push(piece);
    out += s.normalizer.close();
    expect(JSON.parse(out)).toBe('aé \' "q" \\');
  });
});

// As for every format (chat-nonconforming.test.ts): finished calls are kept; a call the model did
// not finish or wrote malformed is no call, and its text is content (nothing is lost).
describe("malformed calls fall back to content, never throw", () => {
  it.each([
    "<|python_start|>[unknown_tool(x=1)]<|python_end|>",
    "<|python_start|>put(text='x')<|python_end|>",
    "[unknown_tool(x=1), put(text='x')]",
  ])("not a call of a declared tool in the format: all content: %s", (output) => {
    expect(parseChatOutput(wrapped, output)).toEqual({ role: "assistant", content: output });
  });

  it("the list of calls without its markers is read, as models write it (docs/reading-output.md)", () => {
    const msg = parseChatOutput(wrapped, "[put(text='x')]", ids);
    expect(msg.content).toBeNull();
    expect(msg.tool_calls?.map((c) => [c.function.name, c.function.arguments])).toEqual([["put", '{"text":"x"}']]);
  });

  it.each([
    "<|python_start|>[put(text=unquoted)]<|python_end|>",
    "<|python_start|>[put(n=1 flag=True)]<|python_end|>",
    "<|python_start|>[put(value={'a': (1)})]<|python_end|>",
    "<|python_start|>[put(text='x'",
    "<|python_start|>[put(text='it's",
    "<|python_start|>[put(value={'k': [1, 'a",
  ])("a malformed or unfinished call is its text, in any chunks: %s", (output) => {
    for (const chunk of [output.length, 1, 3]) {
      const parser = new ChatStreamParser(wrapped, ids);
      const deltas: ChatDelta[] = [];
      for (let i = 0; i < output.length; i += chunk) deltas.push(...parser.feed(output.slice(i, i + chunk)));
      deltas.push(...parser.finish());
      expect(parser.message(), `chunks of ${chunk}`).toEqual({ role: "assistant", content: output });
      expect(accumulateDeltas(deltas), `chunks of ${chunk}`).toEqual({ role: "assistant", content: output });
    }
  });

  it("an argument the tool does not declare is kept (the argument check reports it)", () => {
    const message = parseChatOutput(wrapped, "<|python_start|>[put(undeclared=1)]<|python_end|>");
    expect(message.content ?? null).toBeNull();
    expect(message.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["put", { undeclared: 1 }],
    ]);
  });

  it.each([["<|python_start|>[put(text='x') junk]<|python_end|>", { text: "x" }, "junk]<|python_end|>"]] as const)(
    "a finished call is kept, the text after it is content: %s",
    (output, args, rest) => {
      for (const chunk of [output.length, 1, 3]) {
        const parser = new ChatStreamParser(wrapped, ids);
        expect(() => {
          for (let i = 0; i < output.length; i += chunk) parser.feed(output.slice(i, i + chunk));
          parser.finish();
        }).not.toThrow();
        const msg = parser.message();
        expect(
          msg.tool_calls?.map((c) => JSON.parse(c.function.arguments) as unknown),
          `chunks of ${chunk}`,
        ).toEqual([args]);
        expect(msg.content ?? "", `chunks of ${chunk}`).toBe(rest);
      }
    },
  );
});

describe("the grammar follows each tool's schema (tool_choice required)", () => {
  const t = pythonicCase(PYTHONIC_TEMPLATES.find((e) => e.file === "python-start.jinja")!)!;
  const tools: ToolDefinition[] = [
    {
      type: "function",
      function: {
        name: "pick",
        parameters: {
          type: "object",
          properties: {
            color: { type: "string", enum: ["red", "blue"] },
            note: { type: "string", maxLength: 3 },
            text: { type: "string" },
            n: { type: "integer" },
            on: { type: "boolean" },
            none: { type: "null" },
          },
          required: ["color"],
        },
      },
    },
  ];
  const params = generateChatParams(t.analysis, t.template, {
    messages: [{ role: "user", content: "hi" }],
    tools,
    toolChoice: "required",
  });
  const wrap = (args: string): string => `<|python_start|>[pick(${args})]<|python_end|>`;

  it.each([
    "color='red'",
    'color="blue", note="abc", n=-2, on=True, none=None',
    "color='red', text='a\\'b \\\\ \\n'",
    "color='red', on=false, none=null",
  ])("accepts %s", (args) => {
    expect(matchGbnf(params.grammar!, wrap(args)).ok).toBe(true);
    expect(parseChatOutput(params, wrap(args)).tool_calls).toHaveLength(1);
  });

  it.each([
    ["an enum value not listed", "color='green'"],
    ["a string over maxLength", "color='red', note='abcd'"],
    ["a fraction for an integer", "color='red', n=2.5"],
    ["a string for a boolean", "color='red', on='yes'"],
    ["a missing required argument", "note='a'"],
    ["an undeclared argument", "color='red', size=3"],
    ["arguments out of schema order", "n=1, color='red'"],
    ["an unescaped quote", "color='red', text='a'b'"],
  ])("rejects %s", (_why, args) => {
    expect(matchGbnf(params.grammar!, wrap(args)).ok).toBe(false);
  });
});
