/**
 * Digit-range grammars: JSON integers within exact bounds, and JSON decimals (no exponent)
 * within exact decimal bounds, inclusive or exclusive. Bounds are kept as decimal strings /
 * bigints so nothing is lost to floating point.
 */
import { type GbnfExpr, EMPTY, alt, cls, lit, opt, rep, seq, star } from "../gbnf-ast.js";

const DIGIT = cls([[0x30, 0x39]]);

function digitClass(lo: number, hi: number): GbnfExpr {
  if (lo > hi) throw new RangeError(`digitClass(${lo}, ${hi})`);
  return lo === hi ? lit(String(lo)) : cls([[0x30 + lo, 0x30 + hi]]);
}

/** Fixed-length digit strings between `lo` and `hi` (same length, lo <= hi). */
function fixedRange(lo: string, hi: string): GbnfExpr {
  if (lo.length === 0) return EMPTY;
  if (lo === hi) return lit(lo);
  let p = 0;
  while (lo[p] === hi[p]) p++;
  const prefix = lit(lo.slice(0, p));
  const a = Number(lo[p]);
  const b = Number(hi[p]);
  const loRest = lo.slice(p + 1);
  const hiRest = hi.slice(p + 1);
  const n = loRest.length;
  const alts: GbnfExpr[] = [];
  const loAllZero = /^0*$/.test(loRest);
  const hiAllNine = /^9*$/.test(hiRest);
  const midLo = loAllZero ? a : a + 1;
  const midHi = hiAllNine ? b : b - 1;
  if (!loAllZero) alts.push(seq(lit(String(a)), fixedRange(loRest, "9".repeat(n))));
  if (midLo <= midHi) alts.push(seq(digitClass(midLo, midHi), rep(DIGIT, n, n)));
  if (!hiAllNine) alts.push(seq(lit(String(b)), fixedRange("0".repeat(n), hiRest)));
  return seq(prefix, alt(...alts));
}

/** Natural numbers (no sign, no leading zeros) in [lo, hi]; hi null: unbounded. */
function naturalRange(lo: bigint, hi: bigint | null): GbnfExpr | null {
  if (lo < 0n) lo = 0n;
  if (hi !== null && hi < lo) return null;
  const alts: GbnfExpr[] = [];
  if (lo === 0n) {
    alts.push(lit("0"));
    lo = 1n;
    if (hi !== null && hi < 1n) return alts[0]!;
  }
  const loS = lo.toString();
  if (hi === null) {
    alts.push(fixedRange(loS, "9".repeat(loS.length)));
    alts.push(seq(cls([[0x31, 0x39]]), rep(DIGIT, loS.length, null)));
    return alt(...alts);
  }
  const hiS = hi.toString();
  for (let len = loS.length; len <= hiS.length; len++) {
    const a = len === loS.length ? loS : "1" + "0".repeat(len - 1);
    const b = len === hiS.length ? hiS : "9".repeat(len);
    alts.push(fixedRange(a, b));
  }
  return alt(...alts);
}

/**
 * JSON integers in [lo, hi] (null: unbounded on that side); null when the range is empty.
 *
 * @example
 * integerRange(-5n, 120n); // "-" [1-5] | "0" | [1-9] | [1-9] [0-9] | "1" ([01] [0-9] | "20")
 */
export function integerRange(lo: bigint | null, hi: bigint | null): GbnfExpr | null {
  if (lo !== null && hi !== null && lo > hi) return null;
  const alts: GbnfExpr[] = [];
  if (lo === null || lo < 0n) {
    // Negative part: -n with n in [max(1, -hi), -lo].
    const nLo = hi === null || hi >= 0n ? 1n : -hi;
    const nHi = lo === null ? null : -lo;
    const neg = naturalRange(nLo, nHi);
    if (neg) alts.push(seq(lit("-"), neg));
  }
  if (hi === null || hi >= 0n) {
    const pos = naturalRange(lo === null || lo < 0n ? 0n : lo, hi);
    if (pos) alts.push(pos);
  }
  return alts.length === 0 ? null : alt(...alts);
}

/** A digit-string language: whether the empty string is in it, and its non-empty part. */
interface Digits {
  empty: boolean;
  nonEmpty: GbnfExpr | null;
}

const ANY_DIGITS: Digits = { empty: true, nonEmpty: rep(DIGIT, 1, null) };

function prefixDigit(d: GbnfExpr, rest: Digits): GbnfExpr | null {
  const parts: GbnfExpr[] = [];
  if (rest.empty) parts.push(d);
  if (rest.nonEmpty) parts.push(seq(d, rest.nonEmpty));
  if (parts.length === 0) return null;
  return parts.length === 1 ? parts[0]! : seq(d, opt(rest.nonEmpty!));
}

/** Fraction digit strings f with 0.f >= 0.b (or > when strict). */
function fracAtLeast(b: string, strict: boolean): Digits {
  if (/^0*$/.test(b)) {
    return strict ? { empty: false, nonEmpty: seq(star(lit("0")), cls([[0x31, 0x39]]), star(DIGIT)) } : ANY_DIGITS;
  }
  const b0 = Number(b[0]);
  const alts: GbnfExpr[] = [];
  if (b0 < 9) alts.push(seq(digitClass(b0 + 1, 9), star(DIGIT)));
  const tail = prefixDigit(lit(String(b0)), fracAtLeast(b.slice(1), strict));
  if (tail) alts.push(tail);
  return { empty: false, nonEmpty: alts.length ? alt(...alts) : null };
}

/** Fraction digit strings f with 0.f <= 0.b (or < when strict). */
function fracAtMost(b: string, strict: boolean): Digits {
  if (/^0*$/.test(b))
    return strict ? { empty: false, nonEmpty: null } : { empty: true, nonEmpty: rep(lit("0"), 1, null) };
  const b0 = Number(b[0]);
  const alts: GbnfExpr[] = [];
  if (b0 > 0) alts.push(seq(digitClass(0, b0 - 1), star(DIGIT)));
  const tail = prefixDigit(lit(String(b0)), fracAtMost(b.slice(1), strict));
  if (tail) alts.push(tail);
  return { empty: true, nonEmpty: alts.length ? alt(...alts) : null };
}

/** Fraction digit strings between two fractions (same integer part on both sides). */
function fracBetween(lo: string, loStrict: boolean, hi: string, hiStrict: boolean): Digits {
  const n = Math.max(lo.length, hi.length);
  const a = lo.padEnd(n, "0");
  const b = hi.padEnd(n, "0");
  // The empty string means "all zeros from here on".
  const empty = /^0*$/.test(a) && !loStrict;
  if (a === b) {
    if (loStrict || hiStrict) return { empty: false, nonEmpty: null };
    const significant = a.replace(/0+$/, "");
    return significant === ""
      ? { empty: true, nonEmpty: rep(lit("0"), 1, null) }
      : { empty: false, nonEmpty: seq(lit(significant), star(lit("0"))) };
  }
  if (a[0] === b[0]) {
    const rest = fracBetween(a.slice(1), loStrict, b.slice(1), hiStrict);
    return { empty, nonEmpty: prefixDigit(lit(a[0]!), rest) };
  }
  const x = Number(a[0]);
  const y = Number(b[0]);
  const alts: GbnfExpr[] = [];
  const low = prefixDigit(lit(String(x)), fracAtLeast(a.slice(1), loStrict));
  if (low) alts.push(low);
  if (x + 1 <= y - 1) alts.push(seq(digitClass(x + 1, y - 1), star(DIGIT)));
  const high = prefixDigit(lit(String(y)), fracAtMost(b.slice(1), hiStrict));
  if (high) alts.push(high);
  return { empty, nonEmpty: alts.length ? alt(...alts) : null };
}

function withFraction(intPart: GbnfExpr, f: Digits): GbnfExpr | null {
  const parts: GbnfExpr[] = [];
  if (f.empty && f.nonEmpty) return seq(intPart, opt(seq(lit("."), f.nonEmpty)));
  if (f.empty) parts.push(intPart);
  if (f.nonEmpty) parts.push(seq(intPart, lit("."), f.nonEmpty));
  return parts.length ? alt(...parts) : null;
}

/** An exact decimal bound. */
export interface DecimalBound {
  /** Non-negative integer part. */
  int: bigint;
  /** Fraction digits (may be empty). */
  frac: string;
  negative: boolean;
  strict: boolean;
}

/**
 * Parses a JS number into an exact decimal bound (shortest round-trip digits).
 *
 * @example
 * decimalBound(-2.5, false); // { int: 2n, frac: "5", negative: true, strict: false }
 */
export function decimalBound(n: number, strict: boolean): DecimalBound {
  if (!Number.isFinite(n)) throw new RangeError(`decimalBound: ${n} is not finite`);
  const [mant, expText] = Math.abs(n).toExponential().split("e") as [string, string];
  const digits = mant.replace(".", "");
  const exp = Number(expText);
  let intDigits: string;
  let frac: string;
  if (exp >= 0) {
    intDigits = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
    frac = digits.slice(exp + 1);
  } else {
    intDigits = "0";
    frac = "0".repeat(-exp - 1) + digits;
  }
  frac = frac.replace(/0+$/, "");
  return { int: BigInt(intDigits), frac, negative: n < 0 && !(BigInt(intDigits) === 0n && frac === ""), strict };
}

/** Non-negative decimals y with lo <= y <= hi (bounds on magnitudes; hi null: unbounded). */
function magnitudeRange(lo: DecimalBound, hi: DecimalBound | null): GbnfExpr | null {
  const alts: GbnfExpr[] = [];
  if (hi !== null && lo.int === hi.int) {
    const ip = naturalRange(lo.int, lo.int);
    const f = fracBetween(lo.frac, lo.strict, hi.frac, hi.strict);
    const e = ip ? withFraction(ip, f) : null;
    return e;
  }
  const lowInt = naturalRange(lo.int, lo.int);
  const low = lowInt ? withFraction(lowInt, fracAtLeast(lo.frac, lo.strict)) : null;
  if (low) alts.push(low);
  const mid = naturalRange(lo.int + 1n, hi === null ? null : hi.int - 1n);
  if (mid) alts.push(withFraction(mid, ANY_DIGITS)!);
  if (hi !== null) {
    const highInt = naturalRange(hi.int, hi.int);
    const high = highInt ? withFraction(highInt, fracAtMost(hi.frac, hi.strict)) : null;
    if (high) alts.push(high);
  }
  return alts.length ? alt(...alts) : null;
}

const ZERO: DecimalBound = { int: 0n, frac: "", negative: false, strict: false };

/**
 * JSON numbers in plain decimal notation (no exponent) between two bounds (null: unbounded);
 * null when no number fits.
 *
 * @example
 * decimalRange(decimalBound(0, true), decimalBound(1.5, false)); // 0 < x <= 1.5
 */
export function decimalRange(lo: DecimalBound | null, hi: DecimalBound | null): GbnfExpr | null {
  const alts: GbnfExpr[] = [];
  const loNeg = lo === null || lo.negative;
  const hiNonNeg = hi === null || !hi.negative;
  // Negative side: x = -y, y in [max(0, -hi), -lo].
  if (loNeg) {
    // "-0" and "-0.0" are zero; they cannot be confused with the unsigned side.
    const yLo: DecimalBound = hi?.negative ? { ...hi, negative: false } : ZERO;
    const yHi: DecimalBound | null = lo === null ? null : { ...lo, negative: false };
    const neg = magnitudeRange(yLo, yHi);
    if (neg && (yHi === null || compareMagnitude(yLo, yHi) <= 0)) alts.push(seq(lit("-"), neg));
  }
  if (hiNonNeg) {
    const yLo: DecimalBound = lo !== null && !lo.negative ? lo : ZERO;
    const pos = hi !== null && compareMagnitude(yLo, hi) > 0 ? null : magnitudeRange(yLo, hi);
    if (pos) alts.push(pos);
  }
  alts.push(...exponentForms(lo, hi));
  return alts.length ? alt(...alts) : null;
}

/** Whether the bound admits every value on its side of `v` (v itself included or not, per `strict`). */
function boundBelowOrAt(b: DecimalBound | null, v: number): boolean {
  return b === null || signedValue(b) <= v;
}

function boundAboveOrAt(b: DecimalBound | null, v: number): boolean {
  return b === null || signedValue(b) >= v;
}

function signedValue(b: DecimalBound): number {
  const v = Number(`${b.int}.${b.frac || "0"}`);
  return b.negative ? -v : v;
}

/**
 * Exponent spellings (`1e-05`, `1.5E+20`) where the whole magnitude class fits the range:
 * a negative exponent means 0 < |x| < 1, a non-negative one |x| >= 1 (unbounded above).
 */
function exponentForms(lo: DecimalBound | null, hi: DecimalBound | null): GbnfExpr[] {
  const mantissa = seq(cls([[0x31, 0x39]]), opt(seq(lit("."), rep(DIGIT, 1, null))));
  const e = cls([
    [0x45, 0x45],
    [0x65, 0x65],
  ]);
  const nonZeroExp = seq(star(lit("0")), cls([[0x31, 0x39]]), star(DIGIT));
  const small = seq(mantissa, e, lit("-"), nonZeroExp);
  const large = seq(mantissa, e, opt(lit("+")), rep(DIGIT, 1, null));
  const out: GbnfExpr[] = [];
  if (boundBelowOrAt(lo, 0) && boundAboveOrAt(hi, 1)) out.push(small);
  if (boundBelowOrAt(lo, -1) && boundAboveOrAt(hi, 0)) out.push(seq(lit("-"), small));
  // |x| >= 1 includes 1 itself, so a strict bound at 1 excludes the class.
  if (hi === null && (lo === null || signedValue(lo) < 1 || (signedValue(lo) === 1 && !lo.strict))) out.push(large);
  if (lo === null && (hi === null || signedValue(hi) > -1 || (signedValue(hi) === -1 && !hi.strict)))
    out.push(seq(lit("-"), large));
  return out;
}

function compareMagnitude(a: DecimalBound, b: DecimalBound): number {
  if (a.int !== b.int) return a.int < b.int ? -1 : 1;
  const n = Math.max(a.frac.length, b.frac.length);
  const x = a.frac.padEnd(n, "0");
  const y = b.frac.padEnd(n, "0");
  return x < y ? -1 : x > y ? 1 : 0;
}
