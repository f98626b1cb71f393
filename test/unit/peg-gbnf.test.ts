import { describe, expect, test } from "vitest";
import { matchGbnf, parseGbnf } from "../../src/grammar/index.js";
import { PegArena, parsePeg, pegToGbnf } from "../../src/peg/index.js";

const weatherSchema = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer", minimum: 1, maximum: 7 } },
  required: ["city"],
  additionalProperties: false,
};

/** reasoning, content, then tool calls whose arguments follow a schema. */
function chatGrammar() {
  const p = new PegArena();
  const reasoning = p.optional(
    p.seq(p.literal("<think>"), p.capture("reasoning", p.until("</think>")), p.literal("</think>"), p.space()),
  );
  const call = p.rule(
    "tool-call",
    p.tag(
      "tool_call",
      p.seq(
        p.literal("<tool_call>"),
        p.literal('{"name": "get_weather", "arguments": '),
        p.capture("tool_args", p.schema(p.json(), weatherSchema, { name: "weather-args" })),
        p.literal("}</tool_call>"),
      ),
    ),
    { trigger: true },
  );
  const root = p.seq(reasoning, p.capture("content", p.until("<tool_call>")), p.zeroOrMore(call), p.end());
  return { p, root };
}

describe("pegToGbnf", () => {
  const { p, root } = chatGrammar();
  const { grammar, triggers } = pegToGbnf(p, root);

  test("emits a grammar our llama.cpp-dialect parser accepts, with no triggers", () => {
    expect(() => parseGbnf(grammar)).not.toThrow();
    expect(triggers).toEqual([]);
    expect(grammar).toMatch(/^root ::= /);
  });

  // Samples within the grammar's whitespace policy: parser and grammar must agree.
  test.each([
    ["plain content", "Hello!", true],
    ["reasoning then content", "<think>hmm</think>\nHello", true],
    ["a call", '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}</tool_call>', true],
    [
      "content then two calls",
      'ok<tool_call>{"name": "get_weather", "arguments": {"city": "A"}}</tool_call><tool_call>{"name": ' +
        '"get_weather", "arguments": {"city": "B"}}</tool_call>',
      true,
    ],
    ["unclosed call", '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}', false],
    ["text after a call", '<tool_call>{"name": "get_weather", "arguments": {"city": "P"}}</tool_call>bye', false],
    ["unclosed reasoning falls back to content", "<think>hmm", true],
    ["wrong tool name", '<tool_call>{"name": "other", "arguments": {}}</tool_call>', false],
  ])("%s: parser and grammar agree", (_, text, ok) => {
    expect(parsePeg(p, root, text).status === "success").toBe(ok);
    expect(matchGbnf(grammar, text).ok).toBe(ok);
  });

  test.each([
    ['{"days": 3}', "missing required city"],
    ['{"city": "Paris", "days": 9}', "days above maximum"],
    ['{"city": "Paris", "x": 1}', "additional property"],
  ])("the grammar enforces the schema (%s: %s) where the parser only checks JSON", (args) => {
    const text = `<tool_call>{"name": "get_weather", "arguments": ${args}}</tool_call>`;
    expect(parsePeg(p, root, text).status).toBe("success");
    expect(matchGbnf(grammar, text).ok).toBe(false);
  });

  test("until: the text may not contain the delimiter", () => {
    const q = new PegArena();
    const r = q.seq(q.until("</s>"), q.literal("</s>"));
    const g = pegToGbnf(q, r).grammar;
    for (const [text, ok] of [
      ["abc</s>", true],
      ["a</b</s>", true],
      ["<</s>", true],
      ["a</s>b</s>", false],
      ["</s", false],
    ] as const) {
      expect(matchGbnf(g, text).ok).toBe(ok);
      expect(parsePeg(q, r, text).status === "success").toBe(ok);
    }
  });

  test("lookaheads are dropped: the grammar accepts a superset", () => {
    const q = new PegArena();
    const r = q.seq(q.not(q.literal("x")), q.chars("a-z", 1));
    const g = pegToGbnf(q, r).grammar;
    expect(parsePeg(q, r, "xyz").status).toBe("fail");
    expect(matchGbnf(g, "xyz").ok).toBe(true);
  });

  test("a raw string schema (tagged arguments) constrains the unquoted text", () => {
    const q = new PegArena();
    const r = q.seq(
      q.literal("<unit>"),
      q.capture("unit", q.schema(q.until("</unit>"), { enum: ["celsius", "fahrenheit"] }, { raw: true })),
      q.literal("</unit>"),
    );
    const g = q.toGbnf(r).grammar;
    expect(matchGbnf(g, "<unit>celsius</unit>").ok).toBe(true);
    expect(matchGbnf(g, "<unit>kelvin</unit>").ok).toBe(false);
    expect(q.parse(r, "<unit>kelvin</unit>").status).toBe("success");
  });

  test("recursive rules become recursive GBNF rules", () => {
    const q = new PegArena();
    const list = q.rule("list", () => q.seq(q.literal("("), q.zeroOrMore(q.ref("list")), q.literal(")")));
    const g = pegToGbnf(q, list).grammar;
    expect(matchGbnf(g, "(()(()))").ok).toBe(true);
    expect(matchGbnf(g, "(()").ok).toBe(false);
  });
});

describe("pegToGbnf lazy mode", () => {
  const { p, root } = chatGrammar();
  const lazy = pegToGbnf(p, root, { lazy: true });

  test("returns the trigger word the call rule starts with", () => {
    expect(lazy.triggers).toEqual([{ type: "word", value: "<tool_call>" }]);
  });

  test("the grammar starts at the trigger: the call only, no content or reasoning", () => {
    expect(
      matchGbnf(lazy.grammar, '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>').ok,
    ).toBe(true);
    expect(matchGbnf(lazy.grammar, "Hello").ok).toBe(false);
    expect(lazy.grammar).not.toContain("think");
  });

  test("the trigger word is the first literal past parser-only leniency the grammar writes nothing for", () => {
    const q = new PegArena();
    const lead = q.lenient(q.space(), q.eps());
    const a = q.rule("a", q.seq(lead, q.literal("<call>"), q.literal("x")), { trigger: true });
    expect(pegToGbnf(q, a, { lazy: true }).triggers).toEqual([{ type: "word", value: "<call>" }]);
  });

  test("explicit trigger patterns are passed through; a trigger without a leading literal is an error", () => {
    const q = new PegArena();
    const a = q.rule("a", q.seq(q.chars("0-9", 1), q.literal("!")), { trigger: { pattern: "[0-9]+!" } });
    expect(pegToGbnf(q, a, { lazy: true }).triggers).toEqual([{ type: "pattern", value: "[0-9]+!" }]);
    const r = new PegArena();
    const b = r.rule("b", r.chars("0-9", 1), { trigger: true });
    expect(() => pegToGbnf(r, b, { lazy: true })).toThrow(/does not start with a literal/);
    const s = new PegArena();
    expect(() => pegToGbnf(s, s.literal("x"), { lazy: true })).toThrow(/no trigger rule/);
  });
});
