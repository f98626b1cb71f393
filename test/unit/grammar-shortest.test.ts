/**
 * The shortest text a GBNF grammar accepts: table-driven over small grammars (alternatives,
 * repetitions, classes, recursion, rule cycles) and the required-call grammars of chat templates,
 * each answer checked to match its grammar.
 */
import { describe, expect, it } from "vitest";
import { generateChatParams } from "../../src/chat/index.js";
import type { ChatRequest } from "../../src/chat/types.js";
import { shortestGbnfText } from "../../src/grammar/gbnf-shortest.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import { toolTemplates } from "../helpers/chat-roundtrip.js";

const GRAMMARS: readonly { label: string; gbnf: string; want: string | null; tokens?: boolean }[] = [
  { label: "a literal", gbnf: 'root ::= "hello"', want: "hello" },
  { label: "the shorter alternative", gbnf: 'root ::= "true" | "no"', want: "no" },
  { label: "ties go to the first alternative", gbnf: 'root ::= "ab" | "cd"', want: "ab" },
  { label: "optional and starred parts are left out", gbnf: 'root ::= "a" "b"? [0-9]* "c"', want: "ac" },
  { label: "a repetition its minimum times", gbnf: 'root ::= "x" [a-c]{3,9}', want: "xaaa" },
  { label: "a negated class: its first printable code point", gbnf: 'root ::= [^\\x00-\\x1F"] "!"', want: " !" },
  { label: "any code point", gbnf: "root ::= . .", want: "aa" },
  {
    label: "recursion ends at its shortest case",
    gbnf: 'root ::= value\nvalue ::= "[" value "]" | "[" list "]" | "0"\nlist ::= value ("," value)*',
    want: "0",
  },
  {
    label: "a choice through rules of different depths",
    gbnf: 'root ::= a | b\na ::= "xyz"\nb ::= c\nc ::= "pq"',
    want: "pq",
  },
  {
    label: "a cycle of rules that can be empty",
    gbnf: 'root ::= "<" a ">"\na ::= b | ""\nb ::= "k" a',
    want: "<>",
  },
  // (Tokens are the vocabulary's: the text matcher does not read them.)
  { label: "a token written as its text", gbnf: 'root ::= <think> "x"', want: "<think>x", tokens: true },
  { label: "a token given by id only: nothing to write", gbnf: "root ::= <[12]>", want: null },
  { label: "... unless an alternative avoids it", gbnf: 'root ::= <[12]> | !<[3]> | "ok"', want: "ok" },
];

describe("shortestGbnfText", () => {
  it.each(GRAMMARS)("$label", ({ gbnf, want, tokens }) => {
    const text = shortestGbnfText(gbnf);
    expect(text).toBe(want);
    if (text !== null && !tokens) expect(matchGbnf(gbnf, text).ok).toBe(true);
  });

  it("starts from another rule when asked, and names a missing one", () => {
    expect(shortestGbnfText('root ::= "a" b\nb ::= "bb" | "b"', "b")).toBe("b");
    expect(() => shortestGbnfText('root ::= "a"', "nope")).toThrow(/no rule "nope"/);
  });
});

const weather = {
  type: "function" as const,
  function: {
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

/** The required call's grammar of each template, as the session generates under it. */
const TEMPLATES = [
  {
    template: "Qwen-Qwen3-0.6B.jinja",
    // The model may open <think> itself: the grammar allows it, the shortest output leaves it out.
    kind: "strict",
    // The template renders its calls with tojson: the grammar writes that spelling only.
    want: '<tool_call>{"name": "get_weather", "arguments": {"city": ""}}</tool_call>',
  },
  {
    template: "meta-llama-Llama-3.1-8B-Instruct.jinja",
    kind: "strict",
    want: '{"name": "get_weather", "parameters": {"city": ""}}',
  },
  {
    template: "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
    // The prompt opens <think>: the grammar starts with its end.
    kind: "after-reasoning",
    want:
      "</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather" +
      '```json{"city": ""}```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  },
] as const;

const templates = toolTemplates(undefined, (name) => TEMPLATES.some((t) => t.template === name));

describe("the shortest required call of chat templates", () => {
  it.each(TEMPLATES)("$template", ({ template, kind, want }) => {
    const t = templates.find((c) => c.name === template)!;
    const request: ChatRequest = {
      messages: [{ role: "user", content: "Weather?" }],
      tools: [weather],
      toolChoice: "required",
      enableThinking: true,
    };
    const plan = generateChatParams(t.analysis, t.template, request).grammarPlan;
    expect(plan.kind).toBe(kind);
    if (plan.kind !== "strict" && plan.kind !== "after-reasoning") return;
    const text = shortestGbnfText(plan.gbnf)!;
    expect(text).toBe(want);
    expect(matchGbnf(plan.gbnf, text).ok).toBe(true);
    // One code point less is no call: dropping any one of them breaks the match.
    const cps = [...text];
    for (let i = 0; i < cps.length; i++) {
      expect(matchGbnf(plan.gbnf, [...cps.slice(0, i), ...cps.slice(i + 1)].join("")).ok).toBe(false);
    }
  });
});
