// Hostile GBNF text through the TypeScript parser (`toolwright/grammar`): it refuses what the
// native parser refuses, with the same error class as its syntax errors (line and column), never
// a RangeError from a stack overflow or from String.fromCodePoint. Pure TypeScript: in-process.
import { describe, expect, it } from "vitest";
import { GbnfSyntaxError, compileGbnf, parseGbnf } from "../../src/grammar/index.js";

const nested = (n: number) => `root ::= ${"(".repeat(n)}"a"${")".repeat(n)}`;

describe("TypeScript GBNF parser bounds", () => {
  it.each<[string, string, RegExp, number, number]>([
    ["10,000 nested groups", nested(10_000), /groups nested more than 500 deep/, 1, 510],
    [
      "100,000 nested groups in a later rule",
      `root ::= x\nx ::= ${nested(100_000).slice(8)}`,
      /nested more than 500/,
      2,
      508,
    ],
    ["an escape above U+10FFFF in a literal", 'root ::= "\\U00110000"', /above U\+10FFFF/, 1, 11],
    ["the largest 8-digit escape in a class", "root ::= [\\UFFFFFFFF]", /U\+FFFFFFFF, above U\+10FFFF/, 1, 11],
    ["an escape above U+10FFFF as a range end", 'root ::= "a"\nr ::= [a-\\U7FFFFFFF]', /above U\+10FFFF/, 2, 10],
  ])("%s: a GbnfSyntaxError with line and column", (_name, text, message, line, column) => {
    for (const parse of [parseGbnf, compileGbnf]) {
      let err: unknown;
      try {
        parse(text);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(GbnfSyntaxError);
      expect((err as Error).message).toMatch(message);
      expect([(err as GbnfSyntaxError).line, (err as GbnfSyntaxError).column]).toEqual([line, column]);
    }
  });

  it("groups nested to the bound still parse", () => {
    expect(parseGbnf(nested(500)).rules.size).toBe(1);
  });
});
