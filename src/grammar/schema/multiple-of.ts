/**
 * `multipleOf` a power of ten (0.1, 0.01, ...) on bounded numbers: a decimal with at most d
 * fraction digits (then only zeros), within integer bounds from a non-negative lower bound. The
 * common case of prices and percentages (`minimum: 0, multipleOf: 0.01`). The digits after the
 * point are one rule per position, so the grammar stays unambiguous.
 */
import { type GbnfExpr, alt, cls, lit, opt, ref, seq, star } from "../gbnf-ast.js";
import { childRuleName as sub } from "../gbnf-builder.js";
import type { JsonText } from "./json-text.js";
import { integerRange } from "./numeric-range.js";
import type { Bound } from "./schema-normalize.js";

const DIGIT = cls([[0x30, 0x39]]);
const NONZERO = cls([[0x31, 0x39]]);

/**
 * Decimals that are multiples of 10^-`digits` within [lo, hi], or null when the bounds are not
 * of the handled shape (lower bound an integer ≥ 0, or > 0; upper bound absent or an integer).
 *
 * @example
 * decimalMultiples(jt, 2, { value: 0, strict: false }, null, "price"); // 0, 12.5, 3.99, 3.990
 */
export function decimalMultiples(
  jt: JsonText,
  digits: number,
  lo: Bound | null,
  hi: Bound | null,
  hint: string,
): GbnfExpr | null {
  if (lo === null || !Number.isInteger(lo.value) || lo.value < 0 || (lo.strict && lo.value !== 0)) return null;
  if (hi !== null && (!Number.isInteger(hi.value) || hi.strict)) return null;
  if (digits < 1 || digits > 12) return null;
  const b = jt.builder;
  // fraction(j): digit j of at most `digits` (1-based), the last one followed by any zeros.
  const fractionRules: string[] = [];
  for (let j = digits; j >= 1; j--) {
    const name = b.reserve(sub(hint, `frac${j}`));
    b.define(name, j === digits ? seq(DIGIT, star(lit("0"))) : seq(DIGIT, opt(ref(fractionRules[0]!))));
    fractionRules.unshift(name);
  }
  const fraction = seq(lit("."), ref(fractionRules[0]!));
  // nonzero(j): as fraction(j), with a non-zero digit somewhere up to position `digits`.
  const nonzeroRules: string[] = [];
  for (let j = digits; j >= 1; j--) {
    const name = b.reserve(sub(hint, `nz${j}`));
    const rest = j === digits ? star(lit("0")) : opt(ref(fractionRules[j]!));
    b.define(name, j === digits ? seq(NONZERO, rest) : alt(seq(NONZERO, rest), seq(lit("0"), ref(nonzeroRules[0]!))));
    nonzeroRules.unshift(name);
  }
  const low = BigInt(lo.value) + (lo.strict ? 1n : 0n);
  const high = hi === null ? null : BigInt(hi.value);
  const alts: GbnfExpr[] = [];
  // x > 0 strictly: 0 only with a non-zero fraction.
  if (lo.strict && (high === null || high >= 1n)) alts.push(seq(lit("0."), ref(nonzeroRules[0]!)));
  // Integer part below the upper bound: any fraction.
  const below = high === null ? integerRange(low, null) : high - 1n >= low ? integerRange(low, high - 1n) : null;
  if (below) alts.push(seq(below, opt(fraction)));
  // Integer part at the upper bound: only zeros after the point.
  if (high !== null && high >= low) alts.push(seq(lit(high.toString()), opt(seq(lit("."), lit("0"), star(lit("0"))))));
  return alts.length === 0 ? null : alt(...alts);
}
