/**
 * The language of an unquoted (raw) string value: what a format's text parser allows (text up to
 * a delimiter, or a bounded run of characters) intersected with the schema's string keywords
 * (`pattern`, `format`, `minLength`, `maxLength`). Tagged tool-call formats write string
 * arguments raw, so these keywords are enforced on the decoded text itself, with no JSON quoting.
 */
import { complementRanges, type CodeRange } from "../char-set.js";
import {
  AutomatonLimitError,
  type Dfa,
  complementDfa,
  dfaLengthRange,
  lengthDfa,
  productDfa,
  regexToDfa,
} from "../regex/automaton.js";
import type { RegexNode } from "../regex/regex-ast.js";
import { parseRegex } from "../regex/regex-parse.js";
import { FORMAT_PATTERNS } from "./schema-scalars.js";
import { MAX_PATTERN_ITEMS, patternWeight } from "./schema-budget.js";

/** Most DFA states before the raw language is given up (the text parser's grammar is used). */
const LIMIT = 3000;

/** What the text parser allows, before the schema's keywords. */
export type RawText =
  /** Any text not containing any of the delimiters. */
  | { kind: "until"; delimiters: readonly string[] }
  /** `min` to `max` characters of a class. */
  | { kind: "chars"; ranges: readonly CodeRange[]; negated: boolean; min: number; max: number | null };

function word(d: string): RegexNode {
  return {
    type: "seq",
    items: [...d].map((c) => ({ type: "set", ranges: [[c.codePointAt(0)!, c.codePointAt(0)!]] }) as RegexNode),
  };
}

/**
 * Endings that would make the parser stop earlier than the grammar: where a delimiter's tail is
 * itself a delimiter ("\n</p>" and "</p>"), text ending with the head ("\n") followed by the
 * shorter delimiter would end at the longer one, so the head is not part of the value.
 */
function earlyEndings(delimiters: readonly string[]): string[] {
  const out = new Set<string>();
  for (const d of delimiters)
    for (let k = 1; k < d.length; k++) if (delimiters.some((e) => e.startsWith(d.slice(k)))) out.add(d.slice(0, k));
  return [...out];
}

function baseDfa(text: RawText): Dfa {
  if (text.kind === "until") {
    // "Contains a delimiter" (search semantics), complemented; nor ending where the parser would stop early.
    const words = text.delimiters.map(word);
    const endings: RegexNode[] = earlyEndings(text.delimiters).map((e) => ({
      type: "seq",
      items: [word(e), { type: "end" }],
    }));
    return complementDfa(regexToDfa({ type: "alt", items: [...words, ...endings] }, { limit: LIMIT }));
  }
  const ranges = text.negated ? complementRanges(text.ranges) : text.ranges;
  return regexToDfa(
    { type: "repeat", item: { type: "set", ranges }, min: text.min, max: text.max },
    { anchored: true, limit: LIMIT },
  );
}

/** The string keywords of a schema as regexes and bounds; null when it has none. */
function keywordsOf(schema: unknown): { patterns: RegexNode[]; min: number; max: number | null } | null {
  if (typeof schema !== "object" || schema === null) return null;
  const s = schema as { pattern?: unknown; format?: unknown; minLength?: unknown; maxLength?: unknown };
  const patterns: RegexNode[] = [];
  if (typeof s.pattern === "string") {
    const node = parseRegex(s.pattern);
    // Over the converter's budget (which refuses the schema): not worth an automaton here.
    if (patternWeight(node, MAX_PATTERN_ITEMS) > MAX_PATTERN_ITEMS) throw new AutomatonLimitError(MAX_PATTERN_ITEMS);
    patterns.push(node);
  }
  if (typeof s.format === "string" && FORMAT_PATTERNS[s.format] !== undefined)
    patterns.push(parseRegex(FORMAT_PATTERNS[s.format]!));
  const min = typeof s.minLength === "number" && Number.isInteger(s.minLength) && s.minLength > 0 ? s.minLength : 0;
  const max = typeof s.maxLength === "number" && Number.isInteger(s.maxLength) && s.maxLength >= 0 ? s.maxLength : null;
  if (patterns.length === 0 && min === 0 && max === null) return null;
  return { patterns, min, max };
}

/**
 * The DFA of raw text that the parser allows and the schema's string keywords accept, or null
 * when the schema has no such keywords, a pattern cannot be read, or the automaton grows too
 * large (callers then keep the parser's own grammar).
 *
 * @example
 * rawStringDfa({ type: "string", pattern: "^[a-z]+$" }, { kind: "until", delimiters: ["</p>"] });
 */
export function rawStringDfa(schema: unknown, text: RawText): Dfa | null {
  try {
    const k = keywordsOf(schema);
    if (k === null) return null;
    let d = baseDfa(text);
    for (const p of k.patterns) d = productDfa(d, regexToDfa(p, { limit: LIMIT }), "and", LIMIT);
    if (k.min > 0 || k.max !== null) d = productDfa(d, lengthDfa(k.min, k.max, LIMIT), "and", LIMIT);
    return dfaLengthRange(d) === null ? null : d;
  } catch (e) {
    // RegexSyntaxError is a SyntaxError: a pattern we cannot read is not enforced here either.
    if (e instanceof AutomatonLimitError || e instanceof SyntaxError) return null;
    throw e;
  }
}
