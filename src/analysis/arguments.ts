/**
 * Argument markers for tag formats.
 *  A1 (tagged args): one argument named ARG_FIRST vs one named ARG_SECOND → the text around
 *     the name is the name prefix / suffix;
 *  A2 (tagged args): value "XXXX" vs "YYYY" → the markers around the value;
 *  T5: one argument vs two → what separates consecutive arguments;
 *  T6: no arguments vs one → markers around the argument block. As in llama.cpp it only reads
 *     JSON_NATIVE calls, and runs in the tag-format phase list, so it never changes a result;
 *     it is kept so the phase list matches the reference.
 *
 * @example
 * extractArgumentNameMarkers(renderer, tools); // Qwen3-Coder: namePrefix "<parameter=", nameSuffix ">\n"
 */
import { trimWhitespace } from "./bytes.js";
import { afterCommonSuffix, untilCommonPrefix } from "./diff.js";
import { any, end, findAnywhere, lit, many, marker, matchAt, not, seq, space, tag, tagText, until } from "./pattern.js";
import {
  ARG_FIRST,
  ARG_SECOND,
  CALL_ID_001,
  FIRST_CALL,
  FIRST_CALL_NO_ARGS,
  FIRST_CALL_ONE_ARG,
  FIRST_CALL_ONE_ARG_OTHER_VALUE,
  FIRST_CALL_OTHER_ARG,
  FUN_FIRST,
  PROBE_TOOLS,
  USER_TURN,
  assistantWithCalls,
  type ProbeMessage,
} from "./probes.js";
import type { VariantRenderer } from "./render.js";
import type { ToolsAnalysis } from "./types.js";

/** The last marker of a string together with the non-marker text after it. */
const LAST_MARKER_TO_END = seq(marker, many(seq(not(marker), any)), end);
const FROM_LAST_MARKER = seq(many(seq(not(LAST_MARKER_TO_END), any)), tag("m", LAST_MARKER_TO_END));

/** Last marker of `text` plus what trails it, or all of `text` when it has no marker. */
function lastMarkerWithTail(text: string): string {
  const found = matchAt(FROM_LAST_MARKER, text);
  return found.ok ? tagText(found, "m") : text;
}

function compareCalls(renderer: VariantRenderer, a: ProbeMessage, b: ProbeMessage) {
  return renderer.compare(
    { messages: [USER_TURN, assistantWithCalls([a])], tools: PROBE_TOOLS },
    { messages: [USER_TURN, assistantWithCalls([b])] },
  );
}

/** A1. */
export function extractArgumentNameMarkers(renderer: VariantRenderer, out: ToolsAnalysis): void {
  const cmp = compareCalls(renderer, FIRST_CALL_ONE_ARG, FIRST_CALL_OTHER_ARG);
  if (!cmp || cmp.diff.left === "" || cmp.diff.right === "") return;
  const { diff } = cmp;
  const args = out.arguments;

  const left = findAnywhere(
    seq(tag("pre", until(ARG_FIRST)), lit(ARG_FIRST), tag("suffix", until('"', "X"))),
    diff.left,
  );
  const right = findAnywhere(
    seq(tag("pre", until(ARG_SECOND)), lit(ARG_SECOND), tag("suffix", until('"', "Y"))),
    diff.right,
  );
  const leftPre = tagText(left, "pre");
  if (
    left.ok &&
    right.ok &&
    leftPre !== "" &&
    leftPre === tagText(right, "pre") &&
    tagText(left, "suffix") === tagText(right, "suffix")
  ) {
    // The name sits inside a shared structure (e.g. a JSON key): that structure is the wrapper.
    args.namePrefix = leftPre;
    args.nameSuffix = tagText(left, "suffix");
  } else if (diff.left.startsWith(ARG_FIRST) && diff.right.startsWith(ARG_SECOND)) {
    // The name starts the diff: its prefix is the last marker before it.
    args.namePrefix = lastMarkerWithTail(diff.prefix);
    // The suffix runs to the first marker after the name (in the diff or the shared suffix).
    const afterName = diff.left.slice(ARG_FIRST.length) + diff.suffix;
    const suffix = findAnywhere(tag("suffix", seq(many(seq(not(marker), any)), marker, space)), afterName);
    if (suffix.ok) args.nameSuffix = tagText(suffix, "suffix");
  }
}

/** A2. */
export function extractArgumentValueMarkers(renderer: VariantRenderer, out: ToolsAnalysis): void {
  const cmp = compareCalls(renderer, FIRST_CALL_ONE_ARG, FIRST_CALL_ONE_ARG_OTHER_VALUE);
  if (cmp?.diff.left !== "XXXX" || cmp.diff.right !== "YYYY") return;
  const { diff } = cmp;
  const args = out.arguments;

  const nameEnding = ARG_FIRST + args.nameSuffix;
  let prefix = diff.prefix;
  const nameAt = prefix.lastIndexOf(nameEnding);
  if (nameAt >= 0) prefix = prefix.slice(nameAt + nameEnding.length);
  if (prefix !== "") args.valuePrefix = lastMarkerWithTail(prefix);

  let valueSuffix = diff.suffix;
  const closer = out.function.close || out.format.perCallEnd || out.format.sectionEnd;
  if (closer !== "") {
    const at = valueSuffix.indexOf(closer);
    if (at >= 0) valueSuffix = valueSuffix.slice(0, at);
  }
  if (trimWhitespace(valueSuffix) !== "") args.valueSuffix = valueSuffix;
}

/** T5. */
export function extractArgumentSeparator(renderer: VariantRenderer, out: ToolsAnalysis): void {
  const cmp = compareCalls(renderer, FIRST_CALL_ONE_ARG, FIRST_CALL);
  if (!cmp || cmp.diff.right === "") return;
  out.arguments.separator = untilCommonPrefix(cmp.diff.right, ARG_FIRST, ARG_SECOND);
}

/** Cuts `text` after the first occurrence of `needle` (no-op when absent). */
function afterFirst(text: string, needle: string): string {
  const at = text.indexOf(needle);
  return at < 0 ? text : text.slice(at + needle.length);
}

/** T6. */
export function extractArgsMarkers(renderer: VariantRenderer, out: ToolsAnalysis): void {
  const format = out.format;
  if (format.mode !== "JSON_NATIVE") return;
  const cmp = compareCalls(renderer, FIRST_CALL_NO_ARGS, FIRST_CALL_ONE_ARG);
  if (!cmp) return;
  const { diff } = cmp;
  // The call's own markers may also occur earlier (e.g. in an example): use the nearest ones.
  const opener = format.sectionStart || format.perCallStart;
  const closer = format.sectionEnd || format.perCallEnd;
  const openerAt = opener === "" ? 0 : Math.max(diff.prefix.lastIndexOf(opener), 0);
  const closerAt = closer === "" ? diff.suffix.length : diff.suffix.indexOf(closer);
  const beforeArgs = diff.prefix.slice(openerAt + opener.length);
  const afterArgs = diff.suffix.slice(0, closerAt < 0 ? diff.suffix.length : closerAt);
  let start = untilCommonPrefix(beforeArgs, "{}", '{"first":');
  const end = afterCommonSuffix(afterArgs, "{}", '"XXXX"}');
  if (start === "" && end === "") return;
  start = afterFirst(afterFirst(start, FUN_FIRST), CALL_ID_001);
  out.arguments.start = start;
  out.arguments.end = end;
}
