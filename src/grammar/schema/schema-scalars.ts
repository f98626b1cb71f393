/**
 * Grammars for scalar schemas: strings (length, pattern, format, excluded values) and numbers
 * (exact integer ranges, decimal ranges, multipleOf where a grammar can say it).
 */
import { type GbnfExpr, alt, cls, lit, opt, ref, rep, seq } from "../gbnf-ast.js";
import type { RegexNode } from "../regex/regex-ast.js";
import { RegexSyntaxError } from "../regex/regex-ast.js";
import { parseRegex } from "../regex/regex-parse.js";
import type { JsonText } from "./json-text.js";
import { decimalBound, decimalRange, integerRange } from "./numeric-range.js";
import type { RelaxationKind } from "./schema-error.js";
import type { Norm } from "./schema-normalize.js";
import { isNothing, nothingBecause, nothingOr, stringLanguage } from "./string-language.js";
import { FORMAT_PATTERNS, LOOSE_FORMATS } from "./format.js";
import { decimalMultiples } from "./multiple-of.js";
import { checkPatternBudget } from "./schema-budget.js";

export { FORMAT_PATTERNS } from "./format.js";

/** What scalar generation needs from the converter. */
export interface ScalarContext {
  jt: JsonText;
  relax(kind: RelaxationKind, pointer: string, keyword: string, detail?: string): void;
}

function parsePattern(ctx: ScalarContext, source: string, pointer: string, keyword: string): RegexNode | null {
  let node: RegexNode;
  try {
    node = parseRegex(source);
  } catch (e) {
    if (!(e instanceof RegexSyntaxError)) throw e;
    ctx.relax("regexUnsupported", pointer, keyword, e.message);
    return null;
  }
  checkPatternBudget(node, pointer, keyword);
  return node;
}

/**
 * A JSON string satisfying the string keywords of `n`.
 *
 * @example
 * stringExpr(ctx, norm, "name"); // "\"" [a-z]{1,8} "\""
 */
export function stringExpr(ctx: ScalarContext, n: Norm, hint: string): GbnfExpr {
  const patterns: RegexNode[] = [];
  for (const p of n.patterns) {
    const node = parsePattern(ctx, p.source, p.pointer, "pattern");
    if (node) patterns.push(node);
  }
  for (const f of n.formats) {
    const source = FORMAT_PATTERNS[f.name];
    if (source === undefined) {
      ctx.relax("format", f.pointer, "format", `unknown format ${JSON.stringify(f.name)} ignored`);
      continue;
    }
    const loose = LOOSE_FORMATS[f.name];
    if (loose !== undefined) ctx.relax("format", f.pointer, "format", `${f.name}: ${loose}`);
    patterns.push(parseRegex(source));
  }
  if (n.maxLength !== null && n.minLength > n.maxLength)
    return nothingBecause(
      n.pointer,
      "minLength/maxLength",
      `minLength ${n.minLength} exceeds maxLength ${n.maxLength}`,
    );
  const excludeWords = n.notValues.filter((v): v is string => typeof v === "string");
  if (n.maxLength !== null && n.maxLength > 2000) ctx.relax("repetitionCap", n.pointer, "maxLength");
  const result = stringLanguage(
    ctx.jt,
    {
      patterns,
      minLength: n.minLength,
      maxLength: n.maxLength !== null && n.maxLength > 2000 ? null : n.maxLength,
      excludeWords,
    },
    hint,
  );
  for (const r of result.relaxations)
    ctx.relax(r.includes("too complex") ? "stringComplexity" : "regexFeature", n.pointer, "pattern", r);
  if (isNothing(result.expr))
    return nothingOr(result.expr, n.pointer, "pattern", "no string satisfies the pattern, format and length keywords");
  return result.expr;
}

function integerBounds(n: Norm): [bigint | null, bigint | null] {
  let lo: bigint | null = null;
  let hi: bigint | null = null;
  if (n.minimum) {
    const v = n.minimum.value;
    lo = Number.isInteger(v) ? BigInt(v) + (n.minimum.strict ? 1n : 0n) : BigInt(Math.ceil(v));
  }
  if (n.maximum) {
    const v = n.maximum.value;
    hi = Number.isInteger(v) ? BigInt(v) - (n.maximum.strict ? 1n : 0n) : BigInt(Math.floor(v));
  }
  return [lo, hi];
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** Non-negative integers divisible by k, as a remainder automaton over digits. */
function multipleOfDigits(ctx: ScalarContext, k: number, hint: string): GbnfExpr {
  const names: string[] = [];
  for (let r = 0; r < k; r++) names.push(ctx.jt.builder.reserve(`${hint}-mod${k}-r${r}`));
  const digitsTo = (r: number, first: boolean): GbnfExpr[] => {
    const byTarget = new Map<number, number[]>();
    for (let d = first ? 1 : 0; d <= 9; d++) {
      const t = (10 * r + d) % k;
      byTarget.set(t, [...(byTarget.get(t) ?? []), d]);
    }
    return [...byTarget].map(([t, ds]) => seq(cls(ds.map((d) => [0x30 + d, 0x30 + d] as const)), ref(names[t]!)));
  };
  for (let r = 0; r < k; r++) {
    const alts = digitsTo(r, false);
    ctx.jt.builder.define(names[r]!, r === 0 ? alt(lit(""), ...alts) : alt(...alts));
  }
  return alt(lit("0"), ...digitsTo(0, true));
}

/**
 * A JSON integer satisfying the numeric keywords of `n` (bounds exact).
 *
 * @example
 * integerExpr(ctx, norm, "age"); // [0-9] | [1-9] [0-9] | "1" [0-4] [0-9] | "150"
 */
export function integerExpr(ctx: ScalarContext, n: Norm, hint: string): GbnfExpr {
  const [lo, hi] = integerBounds(n);
  let k = 1;
  for (const m of n.multipleOf) {
    if (Number.isInteger(m)) k = (k * m) / gcd(k, m);
    else if (!Number.isInteger(1 / m)) ctx.relax("multipleOf", n.pointer, "multipleOf", `${m} on integers`);
  }
  if (k > 1) {
    if (lo === null && hi === null && k <= 1000) return seq(opt(lit("-")), multipleOfDigits(ctx, k, hint));
    // A bounded range with few multiples: list them.
    if (lo !== null && hi !== null && (hi - lo) / BigInt(k) <= 256n) {
      const first =
        ((lo % BigInt(k)) + BigInt(k)) % BigInt(k) === 0n
          ? lo
          : lo + (BigInt(k) - (((lo % BigInt(k)) + BigInt(k)) % BigInt(k)));
      const values: GbnfExpr[] = [];
      for (let v = first; v <= hi; v += BigInt(k)) values.push(lit(v.toString()));
      return values.length ? alt(...values) : nothingBecause(n.pointer, "multipleOf", `no multiple of ${k} in bounds`);
    }
    ctx.relax("multipleOf", n.pointer, "multipleOf", `${k} with bounds`);
  }
  if (lo === null && hi === null) return ctx.jt.integer();
  return integerRange(lo, hi) ?? nothingBecause(n.pointer, "minimum/maximum", "no integer lies within the bounds");
}

/**
 * A JSON number satisfying the numeric keywords of `n`. Without constraints any JSON number;
 * with bounds, plain decimals within them (see RELAXATIONS.numberExponent).
 *
 * @example
 * numberExpr(ctx, norm, "price"); // "-"? ... with the bounds as digit ranges
 */
export function numberExpr(ctx: ScalarContext, n: Norm, hint: string): GbnfExpr {
  const bounded = n.minimum !== null || n.maximum !== null;
  if (n.multipleOf.length > 0) {
    const m = n.multipleOf.length === 1 ? n.multipleOf[0]! : null;
    if (m !== null && Number.isInteger(m)) {
      const int = integerExpr(ctx, n, hint);
      ctx.relax("numberExponent", n.pointer, "multipleOf");
      return seq(int, opt(seq(lit("."), rep(lit("0"), 1, null))));
    }
    const digits = m !== null ? Math.round(-Math.log10(m)) : NaN;
    const powerOfTen = m !== null && digits > 0 && Math.abs(10 ** -digits - m) < 1e-15;
    const multiples = powerOfTen && bounded ? decimalMultiples(ctx.jt, digits, n.minimum, n.maximum, hint) : null;
    if (multiples !== null) {
      ctx.relax("numberExponent", n.pointer, "multipleOf");
      return multiples;
    }
    if (powerOfTen && !bounded) {
      ctx.relax("numberExponent", n.pointer, "multipleOf");
      const d = cls([[0x30, 0x39]]);
      return seq(ctx.jt.integer(), opt(seq(lit("."), rep(d, 1, digits), rep(lit("0"), 0, null))));
    }
    ctx.relax("multipleOf", n.pointer, "multipleOf", String(n.multipleOf));
  }
  if (!bounded) return ctx.jt.number();
  ctx.relax("numberExponent", n.pointer, "minimum/maximum");
  const lo = n.minimum ? decimalBound(n.minimum.value, n.minimum.strict) : null;
  const hi = n.maximum ? decimalBound(n.maximum.value, n.maximum.strict) : null;
  return decimalRange(lo, hi) ?? nothingBecause(n.pointer, "minimum/maximum", "no number lies within the bounds");
}
