// Unit tests of the differential-analysis building blocks: marker segmentation, the diff
// split with tag-boundary fixing, the common-prefix/suffix helpers, byte strings and the
// pattern matcher the phases use to pick markers out of renderings.
import { describe, expect, it } from "vitest";
import { fromBytes, toBytes, trimWhitespace } from "../../src/analysis/bytes.js";
import { afterCommonSuffix, calculateDiffSplit, untilCommonPrefix } from "../../src/analysis/diff.js";
import {
  any,
  choice,
  end,
  findAnywhere,
  lit,
  many,
  marker,
  matchAt,
  not,
  opt,
  rest,
  seq,
  space,
  tag,
  tagText,
  until,
} from "../../src/analysis/pattern.js";
import { parsePythonLiteral } from "../../src/analysis/python-literal.js";
import { pruneWhitespaceSegments, segmentizeMarkers } from "../../src/analysis/segments.js";

const M = (value: string) => ({ type: "marker", value });
const T = (value: string) => ({ type: "text", value });

describe("segmentizeMarkers", () => {
  it.each([
    ["<html><b>bold</b></html>", [M("<html>"), M("<b>"), T("bold"), M("</b>"), M("</html>")]],
    ["<|tool_call|>[args]{ x }[/args]", [M("<|tool_call|>"), M("[args]"), T("{ x }"), M("[/args]")]],
    ["plain text", [T("plain text")]],
    ["", []],
    // An opener inside a marker is an ordinary character; the other bracket kind does not close.
    ["<a [b> c]", [M("<a [b>"), T(" c]")]],
    // An unclosed marker at the end is text.
    ["x <open", [T("x "), T("<open")]],
  ])("%j", (input, expected) => {
    expect(segmentizeMarkers(input)).toEqual(expected);
  });

  it("covers the input exactly, with well-formed markers (random strings)", () => {
    const alphabet = ["<", ">", "[", "]", "a", " ", "\n", "|"];
    let seed = 11;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 1000; i++) {
      const text = Array.from({ length: rand(16) }, () => alphabet[rand(alphabet.length)]).join("");
      const segs = segmentizeMarkers(text);
      expect(segs.map((s) => s.value).join("")).toBe(text);
      for (const seg of segs) {
        expect(seg.value).not.toBe("");
        if (seg.type === "marker") {
          const closer = seg.value[0] === "<" ? ">" : "]";
          expect(["<", "["]).toContain(seg.value[0]);
          expect(seg.value.indexOf(closer)).toBe(seg.value.length - 1);
        }
      }
    }
  });

  it("prunes whitespace-only segments", () => {
    const segs = segmentizeMarkers("<tool_call>\n<function=f>\n  \n</function>\n");
    expect(pruneWhitespaceSegments(segs)).toEqual([M("<tool_call>"), M("<function=f>"), M("</function>")]);
  });
});

describe("calculateDiffSplit", () => {
  it.each([
    {
      name: "different middle, markers kept whole",
      a: "<html><body><div></div></body></html>",
      b: "<html><body><p>Something</p></body></html>",
      want: { prefix: "<html><body>", suffix: "</body></html>", left: "<div></div>", right: "<p>Something</p>" },
    },
    {
      name: "text removed between markers",
      a: "<html><body>Something</body></html>",
      b: "<html><body></body></html>",
      want: { prefix: "<html><body>", suffix: "</body></html>", left: "Something", right: "" },
    },
    {
      name: "plain text is trimmed character by character",
      a: "<a>call00001<b>",
      b: "<a>call99999<b>",
      want: { prefix: "<a>call", suffix: "<b>", left: "00001", right: "99999" },
    },
    {
      // Character-level trimming would cut "<t" out of "<tool_call>" / "<tool_result>".
      name: "tag boundary: a shared '<t' does not join the prefix",
      a: "x<tool_call>y",
      b: "x<tool_result>y",
      want: { prefix: "x", suffix: "y", left: "<tool_call>", right: "<tool_result>" },
    },
    {
      name: "no difference: everything is prefix",
      a: "<s>same</s>",
      b: "<s>same</s>",
      want: { prefix: "<s>same</s>", suffix: "", left: "", right: "" },
    },
    {
      name: "left empty",
      a: "",
      b: "<x>",
      want: { prefix: "", suffix: "", left: "", right: "<x>" },
    },
    {
      name: "right empty",
      a: "<x>",
      b: "",
      want: { prefix: "", suffix: "", left: "<x>", right: "" },
    },
    {
      // Matching from the end would take the trailing "\n" as shared suffix; the split must
      // say that b simply continues a.
      name: "left is a prefix of right",
      a: "<u>hi</u>\n",
      b: "<u>hi</u>\n<a>\n",
      want: { prefix: "<u>hi</u>\n", suffix: "", left: "", right: "<a>\n" },
    },
  ])("$name", ({ a, b, want }) => {
    const got = calculateDiffSplit(a, b);
    expect(got).toEqual(want);
    // Whatever the split, both sides reassemble.
    expect(got.prefix + got.left + got.suffix).toBe(a);
    if (!(got.left === "" && got.right === "")) expect(got.prefix + got.right + got.suffix).toBe(b);
  });

  it("reassembles both inputs on random marker-rich strings", () => {
    const pieces = ["<a>", "</a>", "[B]", "x", "y", "\n", " ", "<c d>", "]", "<"];
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const gen = () => Array.from({ length: rand(12) }, () => pieces[rand(pieces.length)]).join("");
    for (let i = 0; i < 500; i++) {
      const a = gen();
      const b = gen();
      const d = calculateDiffSplit(a, b);
      if (d.left === "" && d.right === "") {
        expect(d.prefix).toBe(a);
        continue;
      }
      expect(d.prefix + d.left + d.suffix).toBe(a);
      expect(d.prefix + d.right + d.suffix).toBe(b);
    }
  });
});

describe("untilCommonPrefix / afterCommonSuffix", () => {
  it.each([
    ["really want a FUNCTION call", "FUNCTION alpha", "FUNCTION beta", "really want a "],
    ["<tool_call>", "<something>", "<something_else>", ""],
    ["some text", "1234", "abcd", ""],
    ["one arg two args three args four", "arg alpha", "arg beta", "one "],
  ])("untilCommonPrefix(%j, %j, %j) = %j", (full, a, b, want) => {
    expect(untilCommonPrefix(full, a, b)).toBe(want);
  });

  it.each([
    ["really want a FUNCTION call", "first FUNCTION", "second FUNCTION", " call"],
    ["one arg two-args three args four", "x two-args", "y two-args", " three args four"],
    ["abc", "x", "y", ""],
  ])("afterCommonSuffix(%j, %j, %j) = %j", (full, a, b, want) => {
    expect(afterCommonSuffix(full, a, b)).toBe(want);
  });
});

describe("byte strings", () => {
  it("round-trip non-ASCII text", () => {
    const s = "<｜tool▁calls▁begin｜>é😀";
    expect(toBytes(s)).not.toBe(s);
    expect(fromBytes(toBytes(s))).toBe(s);
  });

  it("split between two characters that share leading UTF-8 bytes, like a byte-wise diff", () => {
    // U+2581 and U+2582 differ only in their last byte: the shared lead bytes join the prefix.
    const d = calculateDiffSplit(toBytes("<a>x▁"), toBytes("<a>x▂"));
    expect(d.prefix).toBe(toBytes("<a>x") + "\xe2\x96");
    expect(d.left).toBe("\x81");
    expect(d.right).toBe("\x82");
  });

  it("trim only C-locale whitespace", () => {
    expect(trimWhitespace(" \t\n\v\f\rx\r\n")).toBe("x");
    expect(trimWhitespace("\u00a0x\u00a0")).toBe("\u00a0x\u00a0");
  });
});

describe("pattern matcher", () => {
  it("captures the markers around a needle", () => {
    const p = seq(tag("pre", seq(marker, space)), lit("NEEDLE"), tag("post", seq(space, marker, space)), rest);
    const r = findAnywhere(p, "sys <think>\nNEEDLE\n</think>\n\nanswer");
    expect(r.ok).toBe(true);
    expect(tagText(r, "pre")).toBe("<think>\n");
    expect(tagText(r, "post")).toBe("\n</think>\n\n");
  });

  it("markers use either bracket kind and need a closer", () => {
    expect(matchAt(marker, "[TOOL_CALLS]x").ok).toBe(true);
    expect(matchAt(seq(tag("m", marker)), "<a>b").tags.m).toBe("<a>");
    expect(matchAt(marker, "<never closed").ok).toBe(false);
    expect(matchAt(marker, "text").ok).toBe(false);
  });

  it("until stops at a delimiter, or at one cut off by the end of input", () => {
    expect(matchAt(tag("t", until("END")), "abcENDx").tags.t).toBe("abc");
    expect(matchAt(tag("t", until("END")), "abcEN").tags.t).toBe("abc");
    expect(matchAt(tag("t", until("END", "c")), "abcEND").tags.t).toBe("ab");
    expect(matchAt(tag("t", rest), "all of it").tags.t).toBe("all of it");
  });

  it("failed branches leave no captures and the last capture of a tag wins", () => {
    const p = seq(many(seq(tag("x", lit("a")), opt(tag("y", lit("b"))))), tag("z", rest));
    const r = matchAt(p, "aabab!");
    expect(r.tags).toEqual({ x: "a", y: "b", z: "!" });
    const failing = matchAt(seq(tag("x", lit("a")), lit("zzz")), "abc");
    expect(failing).toEqual({ ok: false, tags: {} });
  });

  it("lookahead consumes nothing and choice is ordered", () => {
    const run = seq(tag("t", many(seq(not(marker), any))), marker);
    expect(matchAt(run, "text up to <m>").tags.t).toBe("text up to ");
    expect(matchAt(tag("c", choice(lit("ab"), lit("abc"))), "abc").tags.c).toBe("ab");
    expect(matchAt(seq(lit("a"), end), "a").ok).toBe(true);
    expect(matchAt(seq(lit("a"), end), "ab").ok).toBe(false);
  });

  it("any consumes a whole UTF-8 sequence", () => {
    const bytes = toBytes("é<x>");
    const r = matchAt(seq(tag("c", any), marker), bytes);
    expect(r.ok).toBe(true);
    expect(fromBytes(tagText(r, "c"))).toBe("é");
  });

  it("findAnywhere finds the same first match as trying every suffix (start-character skipping is sound)", () => {
    const patterns = [
      seq(tag("pre", seq(marker, space)), lit("ab"), tag("post", seq(space, marker, space)), rest),
      seq(choice(lit("{"), lit(":")), space, lit('"ab"')),
      seq(lit("ab"), space, opt(tag("post", seq(marker, space)))),
      seq(many(seq(not(marker), any)), tag("m", marker)),
      seq(space, tag("x", lit("a")), end),
      seq(opt(lit("[")), tag("t", until("]"))),
    ];
    const alphabet = ["<", ">", "[", "]", "a", "b", " ", "\n", "{", ":", '"'];
    let seed = 5;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const bruteForce = (p: (typeof patterns)[number], input: string) => {
      for (let i = 0; i < input.length; i++) {
        const r = matchAt(p, input.slice(i));
        if (r.ok) return r;
      }
      return { ok: false, tags: {} };
    };
    for (let i = 0; i < 2000; i++) {
      const input = Array.from({ length: 1 + rand(14) }, () => alphabet[rand(alphabet.length)]).join("");
      for (const p of patterns) expect(findAnywhere(p, input)).toEqual(bruteForce(p, input));
    }
  });

  it("findAnywhere tries every start position", () => {
    expect(findAnywhere(tag("n", seq(lit("<"), until(">"), lit(">"))), "abc <x> <y>").tags.n).toBe("<x>");
    expect(findAnywhere(lit("zz"), "abc").ok).toBe(false);
    expect(findAnywhere(seq(space, end), "").ok).toBe(true);
  });
});

describe("parsePythonLiteral", () => {
  it.each([
    ["{'city': 'Paris', 'days': 3}", { city: "Paris", days: 3 }],
    ["{'ok': True, 'no': False, 'x': None}", { ok: true, no: false, x: null }],
    ["{'q': 'it\\'s \"quoted\"', \"k\": [1, 'two']}", { q: 'it\'s "quoted"', k: [1, "two"] }],
    ["{'TrueName': 'None of it'}", { TrueName: "None of it" }],
  ])("%s", (text, want) => {
    expect(parsePythonLiteral(text)).toEqual(want);
  });

  it.each(["{'open': 'string}", "{x: 1}", "not a literal"])("rejects %s", (text) => {
    expect(parsePythonLiteral(text)).toBeUndefined();
  });
});
