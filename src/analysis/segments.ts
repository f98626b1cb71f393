/**
 * Marker segmentation: splits rendered template text into MARKER segments (`<...>` or
 * `[...]`, brackets included) and the TEXT between them. Markers are how the analysis tells
 * structure from payload: a diff boundary never cuts through one.
 *
 * @example
 * segmentizeMarkers("<tool_call>\n{}[/x]");
 * // [{type:"marker",value:"<tool_call>"}, {type:"text",value:"\n{}"}, {type:"marker",value:"[/x]"}]
 */
import { trimWhitespace } from "./bytes.js";

export type SegmentType = "text" | "marker";

export interface Segment {
  type: SegmentType;
  value: string;
}

const OPENER = /[<[]/g;

/**
 * Splits `text` into markers and text. A marker runs from an opening `<` or `[` to the
 * first matching closer; openers inside a marker are plain characters; an unclosed marker
 * at the end is text (a segment of its own).
 */
export function segmentizeMarkers(text: string): Segment[] {
  const segments: Segment[] = [];
  let segmentStart = 0;
  for (;;) {
    OPENER.lastIndex = segmentStart;
    const found = OPENER.exec(text);
    if (found === null) break;
    const open = found.index;
    const close = text.indexOf(text[open] === "<" ? ">" : "]", open + 1);
    if (open > segmentStart) segments.push({ type: "text", value: text.slice(segmentStart, open) });
    if (close < 0) {
      segmentStart = open;
      break;
    }
    segments.push({ type: "marker", value: text.slice(open, close + 1) });
    segmentStart = close + 1;
  }
  if (segmentStart < text.length) segments.push({ type: "text", value: text.slice(segmentStart) });
  return segments;
}

/** Drops segments that are only whitespace. */
export function pruneWhitespaceSegments(segments: readonly Segment[]): Segment[] {
  return segments.filter((s) => trimWhitespace(s.value) !== "");
}

/** True when two segments have the same type and text. */
export function sameSegment(a: Segment, b: Segment): boolean {
  return a.type === b.type && a.value === b.value;
}
