/**
 * GBNF for JSON strings whose decoded content lies in a regular language: one or more
 * `pattern`s (search semantics, anchors exact), length bounds, and excluded names/patterns.
 * The simple case (one pattern with plain anchors) is translated structurally, which keeps the
 * grammar small; everything else goes through a DFA whose states become rules.
 */
import { type GbnfExpr, EMPTY, alt, lit, ref, seq, star } from "../gbnf-ast.js";
import { MAX_CODE_POINT } from "../char-set.js";
import {
  AutomatonLimitError,
  type Dfa,
  type RegexRelaxations,
  complementDfa,
  dfaLengthRange,
  lengthDfa,
  literalsToDfa,
  productDfa,
  regexToDfa,
} from "../regex/automaton.js";
import { dfaToGbnf } from "../regex/dfa-gbnf.js";
import type { RegexNode } from "../regex/regex-ast.js";
import { type JsonText, repeatCapped } from "./json-text.js";

/** What the decoded string content must satisfy. */
export interface StringConstraint {
  /** Every pattern must match somewhere (JSON Schema `pattern`). */
  patterns?: readonly RegexNode[];
  minLength?: number;
  maxLength?: number | null;
  /** Strings that are not allowed (e.g. property names handled elsewhere). */
  excludeWords?: readonly string[];
  /** Patterns that must NOT match (e.g. `patternProperties` keys when building `additionalProperties`). */
  excludePatterns?: readonly RegexNode[];
}

/** Result: the full JSON string expression (quotes included) plus what was approximated. */
export interface StringLanguage {
  expr: GbnfExpr;
  relaxations: string[];
}

/** Most DFA states before giving up on exactness. */
const DFA_LIMIT = 3000;

/**
 * GBNF for a JSON string (quotes included) satisfying `c`.
 *
 * @example
 * stringLanguage(jt, { patterns: [parseRegex("^[a-z]+$")], maxLength: 8 }, "name").expr;
 */
export function stringLanguage(jt: JsonText, c: StringConstraint, nameHint: string): StringLanguage {
  // The same key sets and patterns recur across merged schemas: build each language once.
  const key = JSON.stringify(c);
  let cached = cache.get(jt)?.get(key);
  if (!cached) {
    cached = buildStringLanguage(jt, c, nameHint);
    if (!cache.has(jt)) cache.set(jt, new Map());
    cache.get(jt)!.set(key, cached);
  }
  return { expr: cached.expr, relaxations: [...cached.relaxations] };
}

const cache = new WeakMap<JsonText, Map<string, StringLanguage>>();

function buildStringLanguage(jt: JsonText, c: StringConstraint, nameHint: string): StringLanguage {
  const patterns = c.patterns ?? [];
  const min = c.minLength ?? 0;
  const max = c.maxLength ?? null;
  const excludes = (c.excludeWords?.length ?? 0) > 0 || (c.excludePatterns?.length ?? 0) > 0;
  const relaxations: string[] = [];
  if (patterns.length === 0 && !excludes) {
    return { expr: jt.stringOfLength(min, max), relaxations };
  }
  if (patterns.length === 1 && !excludes) {
    const s = structural(jt, patterns[0]!, nameHint, relaxations);
    if (s && (s.lengths === null ? min === 0 && max === null : withinBounds(s.lengths, min, max))) {
      return { expr: seq(lit('"'), s.expr, lit('"')), relaxations };
    }
  }
  try {
    const relax: RegexRelaxations = {};
    let dfa: Dfa | null = null;
    const and = (d: Dfa): void => {
      dfa = dfa === null ? d : productDfa(dfa, d, "and", DFA_LIMIT);
    };
    for (const p of patterns) and(regexToDfa(p, { limit: DFA_LIMIT, relaxations: relax }));
    if (min > 0 || max !== null) and(lengthDfa(min, max, DFA_LIMIT));
    if (c.excludeWords && c.excludeWords.length > 0) and(complementDfa(literalsToDfa(c.excludeWords)));
    for (const p of c.excludePatterns ?? []) {
      const r: RegexRelaxations = {};
      const d = regexToDfa(p, { limit: DFA_LIMIT, relaxations: r });
      // Excluding an over-approximated pattern would wrongly reject; exclude only exact ones.
      if (r.backref || r.lookaround || r.wordBoundary)
        relaxations.push("excluded pattern with lookaround/backreference ignored");
      else and(complementDfa(d));
    }
    if (relax.lookaround) relaxations.push("regex lookaround ignored");
    if (relax.wordBoundary) relaxations.push("regex word boundary ignored");
    if (relax.backref) relaxations.push("regex back-reference matched as its group's pattern");
    const d: Dfa = dfa ?? lengthDfa(0, null);
    if (dfaLengthRange(d) === null) return { expr: NOTHING, relaxations };
    const start = dfaToGbnf(jt.builder, d, nameHint, { char: (r) => charRule(jt, r), accept: lit('"') });
    return { expr: seq(lit('"'), start), relaxations };
  } catch (e) {
    if (!(e instanceof AutomatonLimitError)) throw e;
    relaxations.push(
      `string constraints too complex for an exact grammar (over ${DFA_LIMIT} states); pattern kept, other ` +
        `constraints dropped`,
    );
    const first = patterns[0] ? structural(jt, patterns[0], nameHint, relaxations) : null;
    if (first) return { expr: seq(lit('"'), first.expr, lit('"')), relaxations };
    return { expr: jt.stringOfLength(min, max), relaxations };
  }
}

/** Marker for "no string can satisfy this"; callers turn it into a SchemaError or drop the branch. */
export const NOTHING: GbnfExpr = { type: "class", ranges: [], negated: false };

/** Whether `e` is {@link NOTHING}. */
export function isNothing(e: GbnfExpr): boolean {
  return e.type === "class" && e.ranges.length === 0 && !e.negated;
}

/** Why a subschema matches nothing: carried by the NOTHING it generated, up to the error at the root. */
export interface NothingCause {
  pointer: string;
  keyword: string;
  reason: string;
}

/**
 * {@link NOTHING} that remembers why (isNothing holds for it).
 *
 * @example
 * nothingBecause("#/properties/n", "minItems/maxItems", "minItems 3 exceeds maxItems 1");
 */
export function nothingBecause(pointer: string, keyword: string, reason: string): GbnfExpr {
  return Object.assign({ type: "class" as const, ranges: [], negated: false }, { cause: { pointer, keyword, reason } });
}

/**
 * The cause `e` carries when it is a NOTHING made by {@link nothingBecause}, else null.
 *
 * @example
 * nothingCause(NOTHING); // null
 */
export function nothingCause(e: GbnfExpr): NothingCause | null {
  if (!isNothing(e)) return null;
  return (e as { cause?: NothingCause }).cause ?? null;
}

/**
 * `e` when it is a NOTHING with a cause, else a NOTHING with this one.
 *
 * @example
 * nothingOr(valueExpr, "#", "required", 'required property "a" matches nothing');
 */
export function nothingOr(e: GbnfExpr, pointer: string, keyword: string, reason: string): GbnfExpr {
  return nothingCause(e) !== null ? e : nothingBecause(pointer, keyword, reason);
}

/**
 * The first of `parts` that carries a cause, else {@link NOTHING} (every part matching nothing).
 *
 * @example
 * firstNothing([NOTHING, nothingBecause("#", "enum", "no value")]); // the second
 */
export function firstNothing(parts: readonly GbnfExpr[]): GbnfExpr {
  return parts.find((p) => nothingCause(p) !== null) ?? NOTHING;
}

function withinBounds([lo, hi]: [number, number | null], min: number, max: number | null): boolean {
  if (lo < min) return false;
  if (max === null) return true;
  return hi !== null && hi <= max;
}

/** `charIn`, named as a rule when it is more than a plain class (so states share it). */
function charRule(jt: JsonText, ranges: readonly (readonly [number, number])[]): GbnfExpr {
  if (ranges.length === 1 && ranges[0]![0] === 0 && ranges[0]![1] === MAX_CODE_POINT) return jt.char();
  const e = jt.charIn(ranges);
  return e.type === "class" || e.type === "literal" ? e : ref(jt.builder.add("c", e));
}

interface Structural {
  expr: GbnfExpr;
  /** [min, max] content length when anchored at both ends, else null. */
  lengths: [number, number | null] | null;
}

/** Direct translation for patterns whose anchors are only at the ends of top-level alternatives. */
function structural(jt: JsonText, node: RegexNode, nameHint: string, relaxations: string[]): Structural | null {
  const alternatives = node.type === "alt" ? node.items : unwrapTopGroup(node);
  const out: GbnfExpr[] = [];
  let lo = Infinity;
  let hi: number | null = 0;
  let allAnchored = true;
  for (const a of alternatives) {
    const items = a.type === "seq" ? [...a.items] : [a];
    let startAnchored = false;
    let endAnchored = false;
    while (items[0]?.type === "start") items.shift(), (startAnchored = true);
    while (items[items.length - 1]?.type === "end") items.pop(), (endAnchored = true);
    // An empty class (`[]`) has no GBNF spelling; the automaton path drops what it makes unmatchable.
    if (items.some(containsAnchor) || items.some(containsEmptySet)) return null;
    const core = items.map((x) => convert(jt, x, nameHint, relaxations));
    const anyStar = star(jt.char());
    out.push(seq(startAnchored ? EMPTY : anyStar, ...core, endAnchored ? EMPTY : anyStar));
    if (startAnchored && endAnchored) {
      const [l, h] = lengthOf({ type: "seq", items });
      lo = Math.min(lo, l);
      hi = hi === null || h === null ? null : Math.max(hi, h);
    } else {
      allAnchored = false;
    }
  }
  return { expr: alt(...out), lengths: allAnchored ? [lo, hi] : null };
}

/** `^(a|b)$` is read as `^a$|^b$`. */
function unwrapTopGroup(node: RegexNode): RegexNode[] {
  if (node.type !== "seq") return [node];
  const items = node.items;
  const first = items[0];
  const last = items[items.length - 1];
  if (items.length === 3 && first?.type === "start" && last?.type === "end") {
    const mid = items[1]!;
    if (mid.type === "group" && mid.item.type === "alt") {
      return mid.item.items.map((x) => ({ type: "seq", items: [first, x, last] }) as RegexNode);
    }
  }
  return [node];
}

function containsAnchor(n: RegexNode): boolean {
  switch (n.type) {
    case "start":
    case "end":
      return true;
    case "seq":
    case "alt":
      return n.items.some(containsAnchor);
    case "repeat":
    case "group":
      return containsAnchor(n.item);
    case "look":
    case "set":
    case "wordBoundary":
    case "backref":
      return false;
  }
}

function containsEmptySet(n: RegexNode): boolean {
  switch (n.type) {
    case "set":
      return n.ranges.length === 0;
    case "seq":
    case "alt":
      return n.items.some(containsEmptySet);
    case "repeat":
    case "group":
      return containsEmptySet(n.item);
    default:
      return false;
  }
}

function lengthOf(n: RegexNode): [number, number | null] {
  switch (n.type) {
    case "set":
      return [1, 1];
    case "seq": {
      let lo = 0;
      let hi: number | null = 0;
      for (const x of n.items) {
        const [a, b] = lengthOf(x);
        lo += a;
        hi = hi === null || b === null ? null : hi + b;
      }
      return [lo, hi];
    }
    case "alt": {
      let lo = Infinity;
      let hi: number | null = 0;
      for (const x of n.items) {
        const [a, b] = lengthOf(x);
        lo = Math.min(lo, a);
        hi = hi === null || b === null ? null : Math.max(hi, b);
      }
      return [lo === Infinity ? 0 : lo, hi];
    }
    case "repeat": {
      const [a, b] = lengthOf(n.item);
      return [a * n.min, n.max === null ? (b === 0 ? 0 : null) : b === null ? null : b * n.max];
    }
    case "group":
      return lengthOf(n.item);
    case "backref":
      return [0, null];
    case "start":
    case "end":
    case "look":
    case "wordBoundary":
      return [0, 0];
  }
}

function convert(jt: JsonText, n: RegexNode, nameHint: string, relaxations: string[]): GbnfExpr {
  switch (n.type) {
    case "set":
      if (n.ranges.length === 0) return NOTHING;
      return charRule(jt, n.ranges);
    case "seq":
      return seq(...n.items.map((x) => convert(jt, x, nameHint, relaxations)));
    case "alt":
      return alt(...n.items.map((x) => convert(jt, x, nameHint, relaxations)));
    case "group":
      return convert(jt, n.item, nameHint, relaxations);
    case "repeat": {
      let item = convert(jt, n.item, nameHint, relaxations);
      if (item.type !== "class" && item.type !== "ref" && item.type !== "literal")
        item = ref(jt.builder.add(nameHint, item));
      return repeatCapped(item, n.min, n.max);
    }
    case "look":
      relaxations.push("regex lookaround ignored");
      return EMPTY;
    case "wordBoundary":
      relaxations.push("regex word boundary ignored");
      return EMPTY;
    case "backref":
      relaxations.push("regex back-reference matched as any text");
      return star(jt.char());
    case "start":
    case "end":
      throw new RangeError("structural regex conversion met an inner anchor");
  }
}
