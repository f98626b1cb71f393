// The streaming text buffer: string-like reads, and appends that copy only the new text (the
// stream parser used to do `input += chunk`, which made V8 copy the whole text on every chunk).
import { describe, expect, test } from "vitest";
import { PegArena, PegStreamParser } from "../../src/peg/index.js";
import { PegText } from "../../src/peg/peg-text.js";

/** A PegText built by appending `text` in pieces of `size`. */
function appended(text: string, size: number): PegText {
  const t = new PegText();
  for (let i = 0; i < text.length; i += size) t.append(text.slice(i, i + size));
  return t;
}

const SAMPLE = 'ab<tool_call>{"x": "ünï 😀 ✓"}</tool_call>\n日本語 <tool_call>';

describe("PegText reads like the string it holds", () => {
  test.each([
    ["given whole", new PegText(SAMPLE)],
    ["appended 1 at a time", appended(SAMPLE, 1)],
    ["appended 5 at a time", appended(SAMPLE, 5)],
    [
      "given a start, then appended",
      (() => {
        const t = new PegText(SAMPLE.slice(0, 9));
        t.append(SAMPLE.slice(9, 30));
        t.append(SAMPLE.slice(30));
        return t;
      })(),
    ],
  ])("%s", (_, t) => {
    expect(t.length).toBe(SAMPLE.length);
    expect(t.toString()).toBe(SAMPLE);
    for (let i = -1; i <= SAMPLE.length; i++) {
      expect(t.charCodeAt(i)).toEqual(SAMPLE.charCodeAt(i));
      expect(t.codePointAt(i)).toBe(SAMPLE.codePointAt(i));
    }
    for (const [a, b] of [
      [0, 5],
      [3, 40],
      [20, 21],
      [7, 7],
      [30, 999],
      [0, SAMPLE.length],
    ])
      expect(t.slice(a!, b)).toBe(SAMPLE.slice(a, b));
    expect(t.slice(12)).toBe(SAMPLE.slice(12));
    for (const needle of ["<tool_call>", "</tool_call>", "😀", "語 <", "zz", "", "l>"]) {
      for (const from of [0, 1, 3, 20, SAMPLE.length - 3, SAMPLE.length])
        expect(t.indexOf(needle, from), `${needle}@${from}`).toBe(SAMPLE.indexOf(needle, from));
    }
  });

  test("a slice taken before more text arrives does not change", () => {
    const t = new PegText();
    t.append("hello");
    const before = t.slice(0, 5);
    t.append(" world");
    expect(before).toBe("hello");
    expect(t.slice(3, 8)).toBe("lo wo");
  });

  test("a long text builds across the piece size used for strings", () => {
    const long = "αβγ😀-".repeat(5000);
    const t = appended(long, 7);
    expect(t.toString()).toBe(long);
    expect(t.slice(10001, 27003)).toBe(long.slice(10001, 27003));
  });

  test("not a string is a TypeError", () => {
    expect(() => new PegText(3 as unknown as string)).toThrow(TypeError);
  });
});

describe("appending copies only the new text", () => {
  test.each([1, 4, 64])("%i-character chunks: copies stay within 3 × length", (size) => {
    for (const n of [4_000, 64_000]) {
      const t = appended("x".repeat(n), size);
      expect(t.copied).toBeGreaterThanOrEqual(n);
      // Doubling growth: n for the text itself plus at most 2n moved while growing. A string
      // concatenated chunk by chunk and read in between is copied whole each time (n² / size).
      expect(t.copied).toBeLessThanOrEqual(3 * n);
    }
  });

  test("a stream parser keeps its text in one buffer", () => {
    const p = new PegArena();
    const root = p.seq(p.capture("content", p.until("<call>")), p.end());
    const s = new PegStreamParser(p, root);
    const text = "word ".repeat(20_000);
    for (let i = 0; i < text.length; i += 4) s.feed(text.slice(i, i + 4));
    expect(s.source).toBeInstanceOf(PegText);
    expect((s.source as PegText).copied).toBeLessThanOrEqual(3 * text.length);
    const end = s.finish();
    expect(end.status).toBe("success");
    expect(end.input).toBe(text);
    expect(end.source.slice(5, 14)).toBe("word word");
  });
});
