/**
 * PYTHONIC tool calls: the template writes each call as a Python call expression with keyword
 * arguments, `FFF_FIRST_FUN_F(AA_ARG_FST_AA='XXXX', BB_ARG_SND_BB='YYYY')`, usually in a list
 * (`[f(a=1), g()]`) and possibly inside wrapper markers (`<|tool_call_start|>[...]<|tool_call_end|>`,
 * a fenced block, `functools[...]`). Recognised from the rendering alone: the probe function's
 * name is followed by `(` and one probe argument name by `=`.
 *
 * The wrapper markers are whatever the rendering puts around the call list, as for the other
 * formats; the list brackets are not part of them (`toolsArrayWrapped` says they are there).
 *
 * @example
 * // LFM2.5: "<|tool_call_start|>[FFF_FIRST_FUN_F(AA_ARG_FST_AA='XXXX', ...)]<|tool_call_end|>"
 * rendersPythonicCall(diff);   // true
 * analyzePythonic(diff, out);  // sectionStart "<|tool_call_start|>", toolsArrayWrapped true
 */
import { trimLeadingWhitespace, trimTrailingWhitespace, trimWhitespace } from "./bytes.js";
import { choice, findAnywhere, lit, seq, space } from "./pattern.js";
import { ARG_FIRST, ARG_SECOND, FUN_FIRST } from "./probes.js";
import type { ToolsAnalysis } from "./types.js";

/** `NAME(` then a probe argument name and `=` (what no JSON or tag format renders). */
const CALL_EXPRESSION = seq(
  lit(FUN_FIRST),
  space,
  lit("("),
  space,
  choice(lit(ARG_FIRST), lit(ARG_SECOND)),
  space,
  lit("="),
);

/** Whether the rendered tool-call section writes the probe call as a Python call expression. */
export function rendersPythonicCall(section: string): boolean {
  return findAnywhere(CALL_EXPRESSION, section).ok;
}

/** Index of the `)` that closes the probe call: the first one after its last value. */
function closingParen(text: string, from: number): number {
  const lastValue = Math.max(text.lastIndexOf("XXXX"), text.lastIndexOf("YYYY"));
  return text.indexOf(")", Math.max(from, lastValue));
}

/**
 * Fills the PYTHONIC markers from the tool-call section of a one-call rendering (reasoning
 * markers already removed).
 */
export function analyzePythonic(section: string, out: ToolsAnalysis): void {
  const format = out.format;
  format.mode = "PYTHONIC";
  // Values are Python literals (repr or hand-quoted strings, True/False/None).
  format.usesPythonDicts = true;

  const nameAt = section.indexOf(FUN_FIRST);
  const closeAt = closingParen(section, nameAt);
  let before = trimTrailingWhitespace(section.slice(0, nameAt));
  let after = closeAt < 0 ? "" : trimLeadingWhitespace(section.slice(closeAt + 1));
  // The list brackets belong to the call list, not to the wrapper markers.
  if (before.endsWith("[") && after.startsWith("]")) {
    format.toolsArrayWrapped = true;
    before = before.slice(0, -1);
    after = after.slice(1);
  }
  format.sectionStart = trimLeadingWhitespace(before);
  format.sectionEnd = trimWhitespace(after);

  out.function.nameSuffix = "(";
  out.function.close = ")";
  out.arguments.nameSuffix = "=";
  out.arguments.separator = argumentSeparator(section);
}

/** What the rendering writes between the first value and the second argument name (", "). */
function argumentSeparator(section: string): string {
  const first = section.indexOf("XXXX");
  const second = section.indexOf(ARG_SECOND);
  if (first < 0 || second < first) return ", ";
  const between = section.slice(first + 4, second).replace(/^['"]/, "");
  return between.includes(",") ? between : ", ";
}
