/**
 * T2, per-call markers (tag formats with parallel calls): renders one call against two.
 * If the second call starts with what T1 took for the section opener, that marker is really
 * per call; if a per-call closer appears as often with one call as with two, it really
 * closes the section.
 *
 * @example
 * checkPerCallMarkers(renderer, tools); // "<tool_call>" moves from sectionStart to perCallStart
 */
import { trimLeadingWhitespace } from "./bytes.js";
import { calculateDiffSplit } from "./diff.js";
import { FIRST_CALL, PROBE_TOOLS, SECOND_CALL, USER_TURN, assistantWithCalls } from "./probes.js";
import type { VariantRenderer } from "./render.js";
import { countOccurrences } from "./tool-shapes.js";
import type { ToolsAnalysis } from "./types.js";

/** Runs T2. */
export function checkPerCallMarkers(renderer: VariantRenderer, out: ToolsAnalysis): void {
  const cmp = renderer.compare(
    { messages: [USER_TURN, assistantWithCalls([FIRST_CALL])], tools: PROBE_TOOLS },
    { messages: [USER_TURN, assistantWithCalls([FIRST_CALL, SECOND_CALL])] },
  );
  if (!cmp) return;
  const format = out.format;

  // The part of the two-call rendering that is not shared with the one-call suffix.
  const secondCall = trimLeadingWhitespace(calculateDiffSplit(cmp.diff.suffix, cmp.diff.right).right);
  if (format.sectionStart !== "" && secondCall.startsWith(format.sectionStart)) {
    format.perCallStart = format.sectionStart;
    format.perCallEnd = format.sectionEnd;
    format.sectionStart = "";
    format.sectionEnd = "";
  }

  if (format.perCallEnd !== "") {
    const withOne = countOccurrences(cmp.outputA, format.perCallEnd);
    const withTwo = countOccurrences(cmp.outputB, format.perCallEnd);
    if (withOne > 0 && withOne === withTwo) {
      format.sectionEnd = format.perCallEnd;
      format.perCallEnd = "";
    }
  }
}
