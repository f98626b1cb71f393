import { describe, expect, test } from "vitest";
import { compileGbnf, jsonSchemaToGbnf, GbnfMatcher } from "../../src/grammar/index.js";
import { RegexSyntaxError } from "../../src/grammar/regex/regex-ast.js";
import {
  dfaAccepts,
  regexToDfa,
  complementDfa,
  literalsToDfa,
  productDfa,
  lengthDfa,
} from "../../src/grammar/regex/automaton.js";
import { parseRegex } from "../../src/grammar/regex/regex-parse.js";

/** Deterministic pseudo-random strings over an alphabet that exercises the patterns below. */
function* samples(count: number, alphabet: string, maxLen: number): Generator<string> {
  let seed = 12345;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const chars = [...alphabet];
  for (let i = 0; i < count; i++) {
    const len = rnd(maxLen + 1);
    let s = "";
    for (let j = 0; j < len; j++) s += chars[rnd(chars.length)];
    yield s;
  }
}

const ALPHABET = 'ab019-_.@ Z"\\\n';

describe("pattern grammars agree with JavaScript's RegExp (u flag, search semantics)", () => {
  test.each([
    "^[a-z]+$",
    "a|b$",
    "^(ab|ba)*$",
    "[0-9]{2,3}",
    "^\\d+(\\.\\d+)?$",
    "^[^@\\s]+@[^@\\s]+$",
    "^.{2,4}$",
    "(^a|b)",
    '^"?\\\\',
    "^[\\w.-]*$",
    "a{0}b",
    "^(a|)+$",
    "^[A-Z]?[a-z]*(?:-[a-z]+)*$",
    "\\bab",
  ])("%s", (pattern) => {
    const re = new RegExp(pattern, "u");
    const compiled = compileGbnf(jsonSchemaToGbnf({ type: "string", pattern }));
    const exact = !/\\b|\(\?=|\(\?!/.test(pattern);
    for (const s of samples(400, ALPHABET, 7)) {
      const m = new GbnfMatcher(compiled);
      const got = m.accept(JSON.stringify(s)) && m.isComplete;
      if (exact) expect({ s, got }).toEqual({ s, got: re.test(s) });
      else if (re.test(s)) expect({ s, got }).toEqual({ s, got: true });
    }
  });

  test.each([
    [{ pattern: "^[a-z0-9]+$", minLength: 2, maxLength: 4 }, (s: string) => /^[a-z0-9]{2,4}$/u.test(s)],
    [{ pattern: "a", maxLength: 3 }, (s: string) => s.includes("a") && [...s].length <= 3],
  ])("pattern with lengths %j goes through an automaton and stays exact", (constraint, oracle) => {
    const compiled = compileGbnf(jsonSchemaToGbnf({ type: "string", ...constraint }));
    for (const s of samples(400, ALPHABET, 6)) {
      const m = new GbnfMatcher(compiled);
      expect({ s, got: m.accept(JSON.stringify(s)) && m.isComplete }).toEqual({ s, got: oracle(s) });
    }
  });
});

describe("regex parser", () => {
  test.each(["(", "[a-", "a**", "x{2,1}", "\\p{L}", "(?i)abc"])("rejects %j with a RegexSyntaxError", (bad) => {
    expect(() => parseRegex(bad)).toThrow(RegexSyntaxError);
  });

  test("takes Python spellings used by real schemas", () => {
    expect(dfaAccepts(regexToDfa(parseRegex("\\A(?P<y>[0-9]{4})-(?P=y)\\Z"), { anchored: false }), "2024-2024")).toBe(
      true,
    );
  });
});

describe("automata", () => {
  test("complement of names, product with lengths", () => {
    const notNames = complementDfa(literalsToDfa(["id", "name"]));
    expect(["id", "name"].map((s) => dfaAccepts(notNames, s))).toEqual([false, false]);
    expect(["", "i", "ids", "nam", "x"].map((s) => dfaAccepts(notNames, s))).toEqual([true, true, true, true, true]);
    const short = productDfa(notNames, lengthDfa(1, 2), "and");
    expect(["", "i", "id", "ab", "abc"].map((s) => dfaAccepts(short, s))).toEqual([false, true, false, true, false]);
  });
});
