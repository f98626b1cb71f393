// The pieces behind schema-typed raw values: how a schema splits into what a tagged format
// writes as text and as JSON, the language of a raw string under its keywords, and a PEG schema
// node whose grammar is given (the parser reads anything, the grammar is typed).
import { describe, expect, it } from "vitest";
import { splitRawSchema } from "../../src/chat/raw-union.js";
import { dfaAccepts } from "../../src/grammar/regex/automaton.js";
import { rawStringDfa } from "../../src/grammar/schema/raw-string.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import { PegArena } from "../../src/peg/index.js";
import type { JsonSchema } from "../../src/types.js";

describe("splitRawSchema: text and typed parts", () => {
  it.each<[string, JsonSchema, JsonSchema | null, JsonSchema | null]>([
    ["string", { type: "string", maxLength: 3 }, { type: "string", maxLength: 3 }, null],
    ["integer", { type: "integer" }, null, { type: "integer" }],
    ["nullable string", { type: ["string", "null"] }, { type: "string" }, { type: "null" }],
    [
      "string or number or boolean",
      { type: ["string", "number", "boolean"] },
      { type: "string" },
      { type: ["number", "boolean"] },
    ],
    ["mixed enum", { enum: ["a", 1, null] }, { enum: ["a"] }, { enum: [1, null] }],
    ["string const", { const: "on" }, { const: "on" }, null],
    ["number const", { const: 7 }, null, { const: 7 }],
    ["anyOf", { anyOf: [{ type: "string" }, { type: "integer" }] }, { type: "string" }, { type: "integer" }],
    [
      "oneOf of three",
      { oneOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] },
      { type: "string" },
      { oneOf: [{ type: "integer" }, { type: "null" }] },
    ],
    ["untyped", { description: "x" }, { description: "x" }, null],
  ])("%s", (_, schema, text, typed) => {
    expect(splitRawSchema(schema)).toEqual({ text, typed });
  });
});

describe("rawStringDfa: raw text under the schema's string keywords", () => {
  const until = { kind: "until" as const, delimiters: ["\n</p>", "</p>"] };
  it.each<[string, JsonSchema, string[], string[]]>([
    ["pattern", { type: "string", pattern: "^[a-z]+$" }, ["abc"], ["ABC", "ab1", ""]],
    ["format date", { type: "string", format: "date" }, ["2024-01-02"], ["2024-1-2", "yesterday"]],
    ["length", { type: "string", minLength: 2, maxLength: 3 }, ["ab", "abc"], ["a", "abcd"]],
    // The parser would stop at "\n</p>": a trailing newline is never part of the value.
    ["no early end", { type: "string", minLength: 1 }, ["a b"], ["a\n", "x</p>y"]],
  ])("%s", (_, schema, good, bad) => {
    const d = rawStringDfa(schema, until)!;
    for (const s of good) expect(dfaAccepts(d, s), JSON.stringify(s)).toBe(true);
    for (const s of bad) expect(dfaAccepts(d, s), JSON.stringify(s)).toBe(false);
  });

  it("no keywords, an unreadable pattern: null (the parser's own grammar stays)", () => {
    expect(rawStringDfa({ type: "string" }, until)).toBeNull();
    expect(rawStringDfa({ type: "string", pattern: "(" }, until)).toBeNull();
  });
});

describe("PegArena.schema with a grammar of its own", () => {
  it("parses as its item, constrains as its grammar", () => {
    const p = new PegArena();
    const value = p.schema(
      p.chars("a-z0-9", 1),
      { type: "integer" },
      { name: "v", grammar: p.choice(p.literal("one"), p.literal("two")) },
    );
    const root = p.seq(p.literal("<"), value, p.literal(">"), p.end());
    expect(p.parse(root, "<three3>").status).toBe("success");
    const g = p.toGbnf(root).grammar;
    expect(matchGbnf(g, "<two>").ok).toBe(true);
    expect(matchGbnf(g, "<three3>").ok).toBe(false);
  });
});
