import { describe, expect, test } from "vitest";
import { GbnfMatcher, GbnfSyntaxError, compileGbnf, matchGbnf, parseGbnf } from "../../src/grammar/index.js";
import { GbnfBuilder, sanitizeRuleName } from "../../src/grammar/gbnf-builder.js";
import { alt, chars, cls, lit, opt, plus, ref, rep, seq, star } from "../../src/grammar/gbnf-ast.js";
import { escapeLiteral, printExpr } from "../../src/grammar/gbnf-print.js";

describe("GbnfBuilder", () => {
  test("identical bodies share one rule, names are sanitized and unique", () => {
    const b = new GbnfBuilder();
    const a = b.add("digit_rule", cls([[0x30, 0x39]]));
    const again = b.add("other", cls([[0x30, 0x39]]));
    const c = b.add("digit_rule", cls([[0x61, 0x7a]]));
    expect(a).toBe("digit-rule");
    expect(again).toBe("digit-rule");
    expect(c).toBe("digit-rule-2");
    expect(b.add("alias", ref(a))).toBe(a);
  });

  test("sanitizeRuleName keeps only [a-zA-Z0-9-]", () => {
    expect(sanitizeRuleName("get_weather.args")).toBe("get-weather-args");
    expect(sanitizeRuleName("__")).toBe("r");
  });

  test("reserve/define allows recursion; a missing definition or a conflicting one throws", () => {
    const b = new GbnfBuilder();
    const list = b.reserve("list");
    b.define(list, seq(lit("("), star(ref(list)), lit(")")));
    b.define("root", ref(list));
    const g = b.toString();
    expect(g.split("\n")[0]).toBe("root ::= list");
    expect(matchGbnf(g, "(()())").ok).toBe(true);
    expect(() => b.define(list, lit("x"))).toThrow(/already defined differently/);
    const b2 = new GbnfBuilder();
    b2.reserve("never");
    expect(() => b2.toString()).toThrow(/never defined/);
  });

  test("an empty alternative becomes an optional group (llama.cpp rejects it under repetition)", () => {
    expect(printExpr(alt(lit(""), lit(" ")))).toBe('" "?');
    const g = `root ::= ("a" | "")*`;
    expect(() => compileGbnf(g)).toThrow(/left recursion/);
    expect(() => compileGbnf(`root ::= ${printExpr(star(alt(lit("a"), lit(""))))}`)).not.toThrow();
  });
});

describe("literal and class escaping round-trips through the parser and matcher", () => {
  test.each([
    ['quote " and backslash \\', '"quote \\" and backslash \\\\"'],
    ["tab\tnewline\ncr\r", '"tab\\tnewline\\ncr\\r"'],
    ["\u0001\u001f\u007f", '"\\x01\\x1F\\x7F"'],
    ["café 😀", '"café 😀"'],
    ["\u2028\u0085", '"\\u2028\\u0085"'],
  ])("%j prints as %s", (text, printed) => {
    expect(escapeLiteral(text)).toBe(printed);
    const g = `root ::= ${printed}`;
    expect(matchGbnf(g, text).ok).toBe(true);
    expect(matchGbnf(g, text + "x").ok).toBe(false);
  });

  test("ascii option escapes every non-ASCII code point", () => {
    expect(escapeLiteral("é😀", { ascii: true })).toBe('"\\u00E9\\U0001F600"');
    expect(matchGbnf(`root ::= ${escapeLiteral("é😀", { ascii: true })}`, "é😀").ok).toBe(true);
  });

  test("classes with special characters", () => {
    const members = "]-[\\^a\n\u0000é";
    const e = chars(members);
    const g = `root ::= ${printExpr(e)}`;
    for (const ch of members) expect(matchGbnf(g, ch).ok).toBe(true);
    for (const ch of "b_Z\t") expect(matchGbnf(g, ch).ok).toBe(false);
  });

  test("a class is printed as its complement when that is shorter", () => {
    const e = cls([
      [0, 0x21],
      [0x23, 0x10ffff],
    ]);
    expect(printExpr(e)).toBe('[^"]');
  });
});

describe("parseGbnf accepts llama.cpp's dialect", () => {
  const grammar = [
    "# a comment",
    "root ::= greeting ws (name | anon){1,2} punct? item* . [^\\n]",
    'greeting ::= "hi" | # comment after alternative',
    '    "hello"',
    'ws ::= | " " | "\\n" [ \\t]{0,20}',
    "name ::= [A-Z] [a-z]{1,}",
    "anon ::= (",
    '  "x" | "y"',
    ")",
    "punct ::= [.!?\\-]",
    'item ::= "\\x41" | "\\u00e9" | "\\U0001F600" | <[42]> | !<[7]> | <think>',
  ].join("\n");

  test("parses and matches", () => {
    expect([...parseGbnf(grammar).rules.keys()]).toEqual(["root", "greeting", "ws", "name", "anon", "punct", "item"]);
    expect(matchGbnf(grammar, "hi AnnBob!Aé😀zq").ok).toBe(true);
    expect(matchGbnf(grammar, "hello\n  xy-A!!").ok).toBe(true);
    expect(matchGbnf(grammar, "hello\n  xy").ok).toBe(false);
    expect(matchGbnf(grammar, "hi Ab\n").ok).toBe(false);
  });

  test.each([
    ['root ::= "a', "unexpected end of input", 1, 10, "root"],
    ["root ::= foo", "undefined rule identifier 'foo'", 1, 10, null],
    ['root ::= "\\q"', "unknown escape", 1, 11, "root"],
    ["root ::= *", "expecting an item before", 1, 10, "root"],
    ['root ::= "a"{2001}', "exceeds 2000", 1, 13, "root"],
    ['root ::= ("a"{0,100}){0,100}', "more than 2000 rules", 1, 22, "root"],
    ['ro_ot ::= "a"', "expecting ::=", 1, 3, "ro"],
    ['root ::= ("a"', "expecting ')'", 1, 14, "root"],
    ['root ::= "a"\nnext ::= "b"\nbad ::= [a-', "unexpected end of input", 3, 9, "bad"],
    ['root ::= "a"\n| "b"', "expecting a rule name", 2, 1, null],
    ['root ::= "\\U00110000"', "escape names U+110000, above U+10FFFF", 1, 11, "root"],
    ['root ::= "a"\nx ::= [a-\\UFFFFFFFF]', "above U+10FFFF", 2, 10, "x"],
    [`root ::= ${"(".repeat(501)}"a"${")".repeat(501)}`, "groups nested more than 500 deep", 1, 510, "root"],
  ])("%j fails with %s at %i:%i in rule %s", (text, message, line, column, rule) => {
    try {
      parseGbnf(text);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(GbnfSyntaxError);
      const err = e as GbnfSyntaxError;
      expect(err.message).toContain(message);
      expect([err.line, err.column, err.rule]).toEqual([line, column, rule]);
    }
  });

  test("left recursion and a missing root are rejected when compiling", () => {
    expect(() => compileGbnf('root ::= root "a" | "b"')).toThrow(/left recursion/);
    expect(() => compileGbnf('root ::= x\nx ::= e root\ne ::= "" | "q"')).toThrow(/left recursion/);
    expect(() => compileGbnf('start ::= "a"')).toThrow(/'root'/);
    expect(() => compileGbnf('start ::= "a"', "start")).not.toThrow();
  });

  test("groups nested 500 deep and the escape U+10FFFF are accepted", () => {
    expect(matchGbnf(`root ::= ${"(".repeat(500)}"a"${")".repeat(500)}`, "a").ok).toBe(true);
    expect(matchGbnf('root ::= "\\U0010FFFF"', "\u{10FFFF}").ok).toBe(true);
  });

  test("a max repetition above 2000 is unbounded, as in llama.cpp", () => {
    expect(matchGbnf('root ::= "a"{1,3000}', "a".repeat(2500)).ok).toBe(true);
  });
});

describe("GbnfMatcher, char by char", () => {
  test("accept / reject / complete", () => {
    const m = new GbnfMatcher('root ::= "ab" [0-9]{2,3} ("x" | "yz")?');
    const steps: [string, boolean, boolean][] = [];
    for (const ch of "ab123yz") {
      const ok = m.accept(ch);
      steps.push([ch, ok, m.isComplete]);
    }
    expect(steps).toEqual([
      ["a", true, false],
      ["b", true, false],
      ["1", true, false],
      ["2", true, true],
      ["3", true, true],
      ["y", true, false],
      ["z", true, true],
    ]);
    expect(m.isDead).toBe(true);
    expect(m.accept("z")).toBe(false);
  });

  test.each([
    ['root ::= . "!"', "😀!", true],
    ["root ::= [^a-c]+", "xyz", true],
    ["root ::= [^a-c]+", "xbz", false],
    ['root ::= ("a" ("b" | "c")+ | "d"){2}', "abcd", true],
    ['root ::= ("a" ("b" | "c")+ | "d"){2}', "abca", false],
    ['root ::= <[5]> | "x"', "x", true],
  ])("%s on %j -> %s", (g, text, ok) => {
    expect(matchGbnf(g, text).ok).toBe(ok);
  });

  test("builder output is matched the same way as hand-written text", () => {
    const b = new GbnfBuilder();
    b.define("root", seq(plus(cls([[0x61, 0x7a]])), opt(seq(lit("-"), rep(chars("0123456789"), 1, 3)))));
    const g = b.toString();
    expect(matchGbnf(g, "abc-123").ok).toBe(true);
    expect(matchGbnf(g, "abc-1234").consumed).toBe(7);
  });
});
