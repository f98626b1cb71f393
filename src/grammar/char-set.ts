/**
 * Sets of Unicode code points as sorted, disjoint, non-adjacent inclusive ranges.
 * GBNF character classes, regex classes and JSON string escaping all reduce to these.
 */

/**
 * One inclusive code-point range `[lo, hi]`.
 *
 * @example
 * import type { CodeRange } from "toolwright/grammar";
 * const digits: CodeRange = [0x30, 0x39]; // [0-9]
 */
export type CodeRange = readonly [lo: number, hi: number];

/** The largest Unicode code point. */
export const MAX_CODE_POINT = 0x10ffff;

/**
 * Normalises ranges: sorts, merges overlapping and adjacent ranges, drops empty ones.
 *
 * @example
 * normalizeRanges([[98, 99], [97, 97]]); // [[97, 99]]
 */
export function normalizeRanges(ranges: readonly CodeRange[]): CodeRange[] {
  const sorted = ranges
    .filter(([lo, hi]) => lo <= hi)
    .slice()
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) {
      if (hi > last[1]) last[1] = hi;
    } else {
      out.push([lo, hi]);
    }
  }
  return out;
}

/**
 * The complement of a set within `[0, MAX_CODE_POINT]`.
 *
 * @example
 * complementRanges([[0, 96], [123, 0x10ffff]]); // [[97, 122]]
 */
export function complementRanges(ranges: readonly CodeRange[]): CodeRange[] {
  const norm = normalizeRanges(ranges);
  const out: CodeRange[] = [];
  let next = 0;
  for (const [lo, hi] of norm) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

/**
 * The union of two sets.
 *
 * @example
 * unionRanges([[97, 98]], [[99, 100]]); // [[97, 100]]
 */
export function unionRanges(a: readonly CodeRange[], b: readonly CodeRange[]): CodeRange[] {
  return normalizeRanges([...a, ...b]);
}

/**
 * The intersection of two sets.
 *
 * @example
 * intersectRanges([[97, 122]], [[100, 200]]); // [[100, 122]]
 */
export function intersectRanges(a: readonly CodeRange[], b: readonly CodeRange[]): CodeRange[] {
  const x = normalizeRanges(a);
  const y = normalizeRanges(b);
  const out: CodeRange[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const [alo, ahi] = x[i]!;
    const [blo, bhi] = y[j]!;
    const lo = Math.max(alo, blo);
    const hi = Math.min(ahi, bhi);
    if (lo <= hi) out.push([lo, hi]);
    if (ahi < bhi) i++;
    else j++;
  }
  return out;
}

/**
 * The set difference `a \ b`.
 *
 * @example
 * subtractRanges([[97, 122]], [[101, 101]]); // [[97, 100], [102, 122]]
 */
export function subtractRanges(a: readonly CodeRange[], b: readonly CodeRange[]): CodeRange[] {
  return intersectRanges(a, complementRanges(b));
}

/**
 * Whether a code point is in a (normalised or not) set.
 *
 * @example
 * rangesContain([[97, 122]], 0x61); // true
 */
export function rangesContain(ranges: readonly CodeRange[], cp: number): boolean {
  for (const [lo, hi] of ranges) if (cp >= lo && cp <= hi) return true;
  return false;
}

/**
 * Number of code points in a normalised set.
 *
 * @example
 * rangesSize([[97, 99]]); // 3
 */
export function rangesSize(ranges: readonly CodeRange[]): number {
  let n = 0;
  for (const [lo, hi] of ranges) n += hi - lo + 1;
  return n;
}

/**
 * Whether two normalised sets are equal.
 *
 * @example
 * rangesEqual([[1, 2]], [[1, 2]]); // true
 */
export function rangesEqual(a: readonly CodeRange[], b: readonly CodeRange[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i]![0] !== b[i]![0] || a[i]![1] !== b[i]![1]) return false;
  }
  return true;
}

/**
 * Splits a string into its code points (lone surrogates stay as their own code points).
 *
 * @example
 * codePoints("aé😀"); // [0x61, 0xe9, 0x1f600]
 */
export function codePoints(text: string): number[] {
  const out: number[] = [];
  for (const ch of text) out.push(ch.codePointAt(0)!);
  return out;
}
