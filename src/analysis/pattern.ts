/**
 * A small PEG-style pattern matcher for picking markers out of rendered templates.
 * Patterns are plain data nodes; `match` runs one at a given position and returns the
 * tagged captures. Semantics follow a non-streaming PEG: ordered choice, greedy repetition
 * that stops on an empty match or at end of input, lookahead that consumes nothing.
 * Input is a byte string (see bytes.ts).
 *
 * @example
 * const p = seq(tag("pre", marker), space, lit("X"));
 * findAnywhere(p, "ab<think> X").tags.pre; // "<think>"
 */
import { isSpaceByte, utf8SequenceLength } from "./bytes.js";

export type Pattern =
  | { type: "literal"; text: string }
  | { type: "sequence"; items: Pattern[] }
  | { type: "choice"; options: Pattern[] }
  | { type: "repeat"; item: Pattern; min: number; max: number }
  | { type: "not"; item: Pattern }
  | { type: "any" }
  | { type: "space" }
  | { type: "until"; delimiters: string[] }
  | { type: "end" }
  | { type: "marker" }
  | { type: "tag"; name: string; item: Pattern };

export const lit = (text: string): Pattern => ({ type: "literal", text });
export const seq = (...items: Pattern[]): Pattern => ({ type: "sequence", items });
export const choice = (...options: Pattern[]): Pattern => ({ type: "choice", options });
export const many = (item: Pattern): Pattern => ({ type: "repeat", item, min: 0, max: -1 });
export const opt = (item: Pattern): Pattern => ({ type: "repeat", item, min: 0, max: 1 });
export const not = (item: Pattern): Pattern => ({ type: "not", item });
export const any: Pattern = { type: "any" };
/** Zero or more C-locale whitespace characters. */
export const space: Pattern = { type: "space" };
/** Everything up to (not including) the first delimiter, or to the end. */
export const until = (...delimiters: string[]): Pattern => ({ type: "until", delimiters });
/** Everything to the end of input. */
export const rest: Pattern = { type: "until", delimiters: [] };
export const end: Pattern = { type: "end" };
/** A `<...>` or `[...]` marker. */
export const marker: Pattern = { type: "marker" };
export const tag = (name: string, item: Pattern): Pattern => ({ type: "tag", name, item });

/** One capture: the tag's name and the span it matched. */
interface Capture {
  name: string;
  start: number;
  end: number;
}

const FAIL = -1;

function untilEnd(input: string, pos: number, delimiters: readonly string[]): number {
  for (; pos < input.length; pos++) {
    for (const d of delimiters) {
      if (d === "") continue;
      if (input.startsWith(d, pos)) return pos;
      // A delimiter cut off by the end of input still stops the scan.
      const remaining = input.length - pos;
      if (remaining < d.length && d.startsWith(input.slice(pos))) return pos;
    }
  }
  return input.length;
}

function closeMarker(input: string, pos: number, closer: string): number {
  const at = input.indexOf(closer, pos + 1);
  return at < 0 ? FAIL : at + 1;
}

/** Runs `p` at `pos`; returns the end position or -1, appending captures in pre-order. */
function run(p: Pattern, input: string, pos: number, captures: Capture[]): number {
  switch (p.type) {
    case "literal":
      return input.startsWith(p.text, pos) ? pos + p.text.length : FAIL;
    case "sequence": {
      const mark = captures.length;
      let at = pos;
      for (const item of p.items) {
        at = run(item, input, at, captures);
        if (at === FAIL) {
          captures.length = mark;
          return FAIL;
        }
      }
      return at;
    }
    case "choice":
      for (const option of p.options) {
        const at = run(option, input, pos, captures);
        if (at !== FAIL) return at;
      }
      return FAIL;
    case "repeat": {
      let at = pos;
      let count = 0;
      while ((p.max < 0 || count < p.max) && at < input.length) {
        const mark = captures.length;
        const next = run(p.item, input, at, captures);
        if (next === FAIL) break;
        if (next === at) {
          captures.length = mark;
          break;
        }
        at = next;
        count++;
      }
      return count < p.min ? FAIL : at;
    }
    case "not": {
      const mark = captures.length;
      const at = run(p.item, input, pos, captures);
      captures.length = mark;
      return at === FAIL ? pos : FAIL;
    }
    case "any": {
      if (pos >= input.length) return FAIL;
      const length = utf8SequenceLength(input, pos);
      return length === 0 ? FAIL : pos + length;
    }
    case "space": {
      let at = pos;
      while (at < input.length && isSpaceByte(input.charCodeAt(at))) at++;
      return at;
    }
    case "until":
      return untilEnd(input, pos, p.delimiters);
    case "end":
      return pos >= input.length ? pos : FAIL;
    case "marker": {
      const opener = input[pos];
      if (opener === "<") return closeMarker(input, pos, ">");
      if (opener === "[") return closeMarker(input, pos, "]");
      return FAIL;
    }
    case "tag": {
      const slot: Capture = { name: p.name, start: pos, end: pos };
      const mark = captures.length;
      captures.push(slot);
      const at = run(p.item, input, pos, captures);
      if (at === FAIL) {
        captures.length = mark;
        return FAIL;
      }
      slot.end = at;
      return at;
    }
  }
}

/** Outcome of a match: whether it succeeded and the text of each tag (last one wins). */
export interface MatchResult {
  ok: boolean;
  /** Tag name → matched text; a tag that did not take part is absent (read it as ""). */
  tags: Record<string, string>;
}

function toResult(ok: boolean, input: string, captures: readonly Capture[]): MatchResult {
  const tags: Record<string, string> = {};
  if (ok) for (const c of captures) tags[c.name] = input.slice(c.start, c.end);
  return { ok, tags };
}

/** Matches `p` at the start of `input` (it need not consume all of it). */
export function matchAt(p: Pattern, input: string): MatchResult {
  const captures: Capture[] = [];
  const at = run(p, input, 0, captures);
  return toResult(at !== FAIL, input, captures);
}

/** Characters a match can start with (null: any), and whether it can match the empty string. */
interface FirstSet {
  chars: ReadonlySet<string> | null;
  nullable: boolean;
}

const WHITESPACE = new Set([" ", "\t", "\n", "\v", "\f", "\r"]);
const firstSets = new WeakMap<Pattern, FirstSet>();

function union(a: ReadonlySet<string> | null, b: ReadonlySet<string> | null): ReadonlySet<string> | null {
  return a === null || b === null ? null : new Set([...a, ...b]);
}

/** An over-approximation of where `p` can start: used to skip hopeless start positions. */
function firstSet(p: Pattern): FirstSet {
  const cached = firstSets.get(p);
  if (cached) return cached;
  let result: FirstSet;
  switch (p.type) {
    case "literal":
      result = p.text === "" ? { chars: new Set(), nullable: true } : { chars: new Set([p.text[0]!]), nullable: false };
      break;
    case "marker":
      result = { chars: new Set(["<", "["]), nullable: false };
      break;
    case "space":
      result = { chars: WHITESPACE, nullable: true };
      break;
    case "not":
      // Consumes nothing: it only narrows what follows.
      result = { chars: new Set(), nullable: true };
      break;
    case "any":
    case "until":
    case "end":
      result = { chars: null, nullable: p.type !== "any" };
      break;
    case "tag":
      result = firstSet(p.item);
      break;
    case "repeat": {
      const item = firstSet(p.item);
      result = { chars: item.chars, nullable: p.min === 0 || item.nullable };
      break;
    }
    case "sequence": {
      let chars: ReadonlySet<string> | null = new Set();
      let nullable = true;
      for (const item of p.items) {
        const f = firstSet(item);
        chars = union(chars, f.chars);
        if (!f.nullable) {
          nullable = false;
          break;
        }
      }
      result = { chars, nullable };
      break;
    }
    case "choice": {
      let chars: ReadonlySet<string> | null = new Set();
      let nullable = false;
      for (const option of p.options) {
        const f = firstSet(option);
        chars = union(chars, f.chars);
        nullable ||= f.nullable;
      }
      result = { chars, nullable };
      break;
    }
  }
  firstSets.set(p, result);
  return result;
}

/** Matches `p` at the first position of `input` where it succeeds. */
export function findAnywhere(p: Pattern, input: string): MatchResult {
  if (input === "") return matchAt(p, input);
  const first = firstSet(p);
  const startChars = first.nullable ? null : first.chars;
  const captures: Capture[] = [];
  for (let start = 0; start < input.length; start++) {
    if (startChars !== null && !startChars.has(input[start]!)) continue;
    captures.length = 0;
    const at = run(p, input, start, captures);
    if (at !== FAIL) return toResult(true, input, captures);
  }
  return { ok: false, tags: {} };
}

/** Reads a tag from a result, "" when absent. */
export function tagText(result: MatchResult, name: string): string {
  return result.tags[name] ?? "";
}
