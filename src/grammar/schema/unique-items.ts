/**
 * `uniqueItems` where the items come from a small finite set (an enum, booleans, null): the
 * array is a walk through the subsets of that set, one GBNF rule per subset seen so far, so a
 * value cannot come twice. Items from an infinite language (any string) cannot be compared by
 * a context-free grammar; those stay relaxed (RELAXATIONS.uniqueItems).
 */
import { type GbnfExpr, EMPTY, alt, lit, ref, seq } from "../gbnf-ast.js";
import { childRuleName as sub } from "../gbnf-builder.js";
import type { JsonText } from "./json-text.js";
import { NOTHING } from "./string-language.js";

/** Most distinct values an exact unique array tracks (2^n rules). */
export const MAX_UNIQUE_VALUES = 8;

/**
 * An array of distinct `values`, between `min` and `max` items (null when there are too many
 * values to track).
 *
 * @example
 * uniqueArray(jt, ["a", "b", "c"], 1, null, "tags"); // ["a"], ["c", "a"], never ["a", "a"]
 */
export function uniqueArray(
  jt: JsonText,
  values: readonly unknown[],
  min: number,
  max: number | null,
  hint: string,
): GbnfExpr | null {
  if (values.length > MAX_UNIQUE_VALUES) return null;
  const ws = jt.ws();
  const sep = jt.sep();
  const comma = seq(lit(","), sep);
  const items = values.map((v) => jt.literal(v));
  const cap = Math.min(max ?? values.length, values.length);
  if (min > cap) return NOTHING;
  const names = new Map<number, string>();
  const popcount = (s: number): number => s.toString(2).replace(/0/g, "").length;
  // state(s): the rest of an array that has already written the values in bitmask s (s ≠ 0).
  const state = (s: number): string => {
    let name = names.get(s);
    if (name !== undefined) return name;
    name = jt.builder.reserve(sub(hint, `u${s}`));
    names.set(s, name);
    const count = popcount(s);
    const alts: GbnfExpr[] = [];
    if (count < cap)
      items.forEach((e, k) => (s & (1 << k) ? undefined : alts.push(seq(comma, e, ref(state(s | (1 << k)))))));
    if (count >= min) alts.push(EMPTY);
    jt.builder.define(name, alt(...alts));
    return name;
  };
  const open = seq(lit("["), ws);
  if (cap === 0) return seq(open, lit("]"));
  const first = alt(...items.map((e, k) => seq(e, ref(state(1 << k)))));
  return min === 0 ? seq(open, alt(seq(first, ws), EMPTY), lit("]")) : seq(open, first, ws, lit("]"));
}
