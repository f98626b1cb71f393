/**
 * The diff split at the heart of the differential analysis: two renderings of the same
 * template are cut into a shared prefix, a shared suffix and the two parts that differ,
 * with the cut moved so that it never splits a `<...>` / `[...]` marker.
 *
 * @example
 * calculateDiffSplit("<a><b>X</b></a>", "<a><b>Y</b></a>");
 * // { prefix: "<a><b>", suffix: "</b></a>", left: "X", right: "Y" }
 */
import { sameSegment, segmentizeMarkers, type Segment } from "./segments.js";

/** Result of comparing two renderings. */
export interface DiffSplit {
  /** Text both renderings start with. */
  prefix: string;
  /** Text both renderings end with (after the prefix). */
  suffix: string;
  /** What only the first rendering has between prefix and suffix. */
  left: string;
  /** What only the second rendering has between prefix and suffix. */
  right: string;
}

function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let n = 0;
  while (n < limit && a.charCodeAt(n) === b.charCodeAt(n)) n++;
  return n;
}

function commonSuffixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let n = 0;
  while (n < limit && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++;
  return n;
}

function joinSegments(segments: readonly Segment[], from: number, toExclusive: number): string {
  let out = "";
  for (let i = from; i < toExclusive; i++) out += segments[i]!.value;
  return out;
}

/**
 * Splits `left` and `right` into common prefix, common suffix and the differing middles.
 * Whole segments are matched from both ends first (so markers stay intact); inside the
 * remaining middle, plain-text ends are trimmed character by character. When the left
 * rendering is a plain prefix of the right one, the split says exactly that.
 */
export function calculateDiffSplit(left: string, right: string): DiffSplit {
  const result: DiffSplit = { prefix: "", suffix: "", left: "", right: "" };
  const segL = segmentizeMarkers(left);
  const segR = segmentizeMarkers(right);
  if (segL.length === 0) {
    result.right = right;
    return result;
  }
  if (segR.length === 0) {
    result.left = left;
    return result;
  }

  // Inclusive windows [ls, le] and [rs, re] of segments not yet assigned to prefix/suffix.
  let ls = 0;
  let le = segL.length - 1;
  let rs = 0;
  let re = segR.length - 1;
  // Set when the last remaining segment of a side went to the suffix without its window shrinking.
  let leftConsumed = false;
  let rightConsumed = false;

  while (ls !== le && rs !== re) {
    let moved = false;
    if (sameSegment(segL[ls]!, segR[rs]!)) {
      result.prefix += segL[ls]!.value;
      ls++;
      rs++;
      moved = true;
    }
    if (sameSegment(segL[le]!, segR[re]!)) {
      result.suffix = segL[le]!.value + result.suffix;
      if (ls !== le) le--;
      else leftConsumed = true;
      if (rs !== re) re--;
      else rightConsumed = true;
      moved = true;
    }
    if (!moved) break;
  }

  // One side is down to a single segment: give it to whichever end it matches.
  if (ls === le && rs !== re) {
    if (sameSegment(segL[ls]!, segR[re]!)) {
      result.suffix = segR[re]!.value + result.suffix;
      re--;
      leftConsumed = true;
    } else if (sameSegment(segL[ls]!, segR[rs]!)) {
      result.prefix += segR[rs]!.value;
      rs++;
      leftConsumed = true;
    }
  } else if (rs === re && ls !== le) {
    if (sameSegment(segL[le]!, segR[rs]!)) {
      result.suffix = segL[le]!.value + result.suffix;
      le--;
      rightConsumed = true;
    } else if (sameSegment(segL[ls]!, segR[rs]!)) {
      result.prefix += segL[ls]!.value;
      ls++;
      rightConsumed = true;
    }
  } else if (ls === le && rs === re && sameSegment(segL[ls]!, segR[rs]!) && segL[ls]!.type === "marker") {
    result.prefix += segR[rs]!.value;
    leftConsumed = true;
    rightConsumed = true;
  }

  // Character-level trimming is only allowed where both sides end (or start) in plain text.
  const textSuffixAllowed = segL[le]!.type === "text" && segR[re]!.type === "text";
  const textPrefixAllowed = segR[rs]!.type === "text" && segL[ls]!.type === "text";

  const restL = joinSegments(segL, ls, leftConsumed ? le : le + 1);
  const restR = joinSegments(segR, rs, rightConsumed ? re : re + 1);

  const suffixLength = textSuffixAllowed ? commonSuffixLength(restL, restR) : 0;
  // The prefix is measured without the suffix so that the two never overlap.
  const prefixLength = textPrefixAllowed
    ? commonPrefixLength(restL.slice(0, restL.length - suffixLength), restR.slice(0, restR.length - suffixLength))
    : 0;

  result.prefix += restL.slice(0, prefixLength);
  result.suffix = restL.slice(restL.length - suffixLength) + result.suffix;
  result.left = restL.slice(prefixLength, restL.length - suffixLength);
  result.right = restR.slice(prefixLength, restR.length - suffixLength);

  if (result.left === "" && result.right === "") {
    // No difference at all: report everything as prefix.
    result.prefix = left;
    result.suffix = "";
  }

  // When the left rendering is a prefix of the right one, segment matching from the end can
  // wrongly pull shared trailing text into the suffix; state the obvious split instead.
  if (result.left === "" && result.right !== "" && left.length <= right.length && right.startsWith(left)) {
    result.prefix = left;
    result.suffix = "";
    result.right = right.slice(left.length);
  }
  return result;
}

/**
 * The part of `full` before the first occurrence of the common prefix of `a` and `b`;
 * empty when they share no prefix or it does not occur in `full`.
 *
 * @example
 * untilCommonPrefix("really want a FUNCTION call", "FUNCTION alpha", "FUNCTION beta"); // "really want a "
 */
export function untilCommonPrefix(full: string, a: string, b: string): string {
  const n = commonPrefixLength(a, b);
  if (n === 0) return "";
  const pos = full.indexOf(a.slice(0, n));
  return pos < 0 ? "" : full.slice(0, pos);
}

/**
 * The part of `full` after the last occurrence of the common suffix of `a` and `b`;
 * empty when they share no suffix or it does not occur in `full`.
 *
 * @example
 * afterCommonSuffix("really want a FUNCTION call", "first FUNCTION", "second FUNCTION"); // " call"
 */
export function afterCommonSuffix(full: string, a: string, b: string): string {
  const n = commonSuffixLength(a, b);
  if (n === 0) return "";
  const pos = full.lastIndexOf(a.slice(a.length - n));
  return pos < 0 ? "" : full.slice(pos + n);
}
