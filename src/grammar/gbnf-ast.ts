/**
 * GBNF expressions as plain data. The builder, the printer, the parser and the matcher all
 * speak this one shape, so grammars are built structurally and never by string pasting.
 */
import { type CodeRange, normalizeRanges } from "./char-set.js";

/**
 * A GBNF expression node; `type` is the discriminant.
 *
 * @example
 * import { parseGbnf, type GbnfExpr } from "toolwright/grammar";
 * const root: GbnfExpr | undefined = parseGbnf('root ::= "yes" | "no"').rules.get("root");
 * root?.type; // "choice"
 */
export type GbnfExpr =
  /** `"text"`: the exact code points of `text` (empty text matches the empty string). */
  | { readonly type: "literal"; readonly text: string }
  /** `[a-z]` or, when `negated`, `[^a-z]`: one code point in (or not in) `ranges`. */
  | { readonly type: "class"; readonly ranges: readonly CodeRange[]; readonly negated: boolean }
  /** `.`: any one code point. */
  | { readonly type: "any" }
  /** `name`: a reference to a rule. */
  | { readonly type: "ref"; readonly name: string }
  /** `a b c`: each item in order (no items: the empty string). */
  | { readonly type: "sequence"; readonly items: readonly GbnfExpr[] }
  /** `a | b | c`: any one of the items. */
  | { readonly type: "choice"; readonly items: readonly GbnfExpr[] }
  /** `x{min,max}` (`max` null: unbounded), printed as `?`, `*`, `+` where those fit. */
  | { readonly type: "repeat"; readonly item: GbnfExpr; readonly min: number; readonly max: number | null }
  /** `<[id]>`, `<text>`, `!<[id]>`, `!<text>`: one vocabulary token (parsed, never built by us). */
  | { readonly type: "token"; readonly id: number | null; readonly text: string | null; readonly negated: boolean };

/** The expression matching only the empty string. */
export const EMPTY: GbnfExpr = { type: "sequence", items: [] };

/**
 * `"text"`.
 *
 * @example
 * lit("null"); // { type: "literal", text: "null" }
 */
export function lit(text: string): GbnfExpr {
  if (typeof text !== "string") throw new TypeError(`lit(text): text must be a string, got ${typeof text}`);
  return text === "" ? EMPTY : { type: "literal", text };
}

/**
 * `[ranges]` / `[^ranges]`. Ranges are inclusive code-point pairs.
 *
 * @example
 * cls([[0x30, 0x39]]); // [0-9]
 */
export function cls(ranges: readonly CodeRange[], negated = false): GbnfExpr {
  for (const r of ranges) {
    if (!Array.isArray(r) || r.length !== 2 || !Number.isInteger(r[0]) || !Number.isInteger(r[1])) {
      throw new TypeError(`cls(ranges): each range must be a [lo, hi] pair of integers, got ${JSON.stringify(r)}`);
    }
  }
  return { type: "class", ranges: normalizeRanges(ranges), negated };
}

/**
 * `[chars]` from a string of single characters (no range syntax).
 *
 * @example
 * chars("+-"); // [+\-]
 */
export function chars(set: string, negated = false): GbnfExpr {
  const ranges: CodeRange[] = [];
  for (const ch of set) {
    const cp = ch.codePointAt(0)!;
    ranges.push([cp, cp]);
  }
  return cls(ranges, negated);
}

/**
 * `.`.
 *
 * @example
 * any(); // .
 */
export function any(): GbnfExpr {
  return { type: "any" };
}

/**
 * A reference to rule `name`.
 *
 * @example
 * ref("value"); // value
 */
export function ref(name: string): GbnfExpr {
  if (typeof name !== "string" || name === "")
    throw new TypeError(`ref(name): name must be a non-empty string, got ${JSON.stringify(name)}`);
  return { type: "ref", name };
}

/**
 * `a b c`, flattening nested sequences and merging adjacent literals.
 *
 * @example
 * seq(lit("{"), ref("ws"), lit("}"));
 */
export function seq(...items: GbnfExpr[]): GbnfExpr {
  const out: GbnfExpr[] = [];
  const push = (e: GbnfExpr): void => {
    if (e.type === "sequence") {
      for (const x of e.items) push(x);
      return;
    }
    const last = out[out.length - 1];
    if (e.type === "literal" && last?.type === "literal") {
      out[out.length - 1] = { type: "literal", text: last.text + e.text };
      return;
    }
    out.push(e);
  };
  for (const item of items) push(item);
  return out.length === 1 ? out[0]! : { type: "sequence", items: out };
}

/**
 * `a | b | c`, flattening nested choices and dropping exact duplicates.
 *
 * @example
 * alt(lit("true"), lit("false"));
 */
export function alt(...items: GbnfExpr[]): GbnfExpr {
  const out: GbnfExpr[] = [];
  const seen = new Set<string>();
  const push = (e: GbnfExpr): void => {
    if (e.type === "choice") {
      for (const x of e.items) push(x);
      return;
    }
    // Only leaves are compared by value: stringifying big subtrees costs more than duplicates do.
    const key = e.type === "literal" ? "l" + e.text : e.type === "ref" ? "r" + e.name : e.type === "any" ? "." : null;
    if (key !== null) {
      if (seen.has(key)) return;
      seen.add(key);
    }
    out.push(e);
  };
  for (const item of items) push(item);
  if (out.length === 0) throw new RangeError("alt(): needs at least one alternative");
  // An empty alternative becomes `(...)?`: llama.cpp rejects a literally empty alternative
  // under a repetition as left recursion, but accepts the optional form.
  const nonEmpty = out.filter((e) => !isEmpty(e));
  if (nonEmpty.length < out.length) {
    if (nonEmpty.length === 0) return EMPTY;
    return opt(nonEmpty.length === 1 ? nonEmpty[0]! : { type: "choice", items: nonEmpty });
  }
  return out.length === 1 ? out[0]! : { type: "choice", items: out };
}

/**
 * `x{min,max}`; `max` null means unbounded.
 *
 * @example
 * rep(ref("digit"), 1, 3); // digit{1,3}
 */
export function rep(item: GbnfExpr, min: number, max: number | null): GbnfExpr {
  if (!Number.isInteger(min) || min < 0) throw new RangeError(`rep(): min must be a non-negative integer, got ${min}`);
  if (max !== null && (!Number.isInteger(max) || max < min))
    throw new RangeError(`rep(): max must be null or an integer >= min (${min}), got ${max}`);
  if (max === 0) return EMPTY;
  if (min === 1 && max === 1) return item;
  if (isEmpty(item)) return EMPTY;
  return { type: "repeat", item, min, max };
}

/**
 * `x?`.
 *
 * @example
 * opt(lit("-")); // "-"?
 */
export function opt(item: GbnfExpr): GbnfExpr {
  return rep(item, 0, 1);
}

/**
 * `x*`.
 *
 * @example
 * star(ref("char")); // char*
 */
export function star(item: GbnfExpr): GbnfExpr {
  return rep(item, 0, null);
}

/**
 * `x+`.
 *
 * @example
 * plus(cls([[0x30, 0x39]])); // [0-9]+
 */
export function plus(item: GbnfExpr): GbnfExpr {
  return rep(item, 1, null);
}

/**
 * Whether `e` is the empty-string expression.
 *
 * @example
 * isEmpty(seq()); // true
 */
export function isEmpty(e: GbnfExpr): boolean {
  return (e.type === "sequence" && e.items.length === 0) || (e.type === "literal" && e.text === "");
}
