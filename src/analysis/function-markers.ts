/**
 * T3, function markers: renders a call to FUN_FIRST against a call to FUN_SECOND. The text
 * around the differing name gives the name prefix and suffix; the suffix extends up to the
 * first argument marker (tagged args) or the opening brace (JSON args); what follows the last
 * argument value up to the call/section closer is the function closer.
 *
 * @example
 * extractFunctionMarkers(renderer, tools); // Qwen3-Coder: namePrefix "<function=", nameSuffix ">\n"
 */
import { trimLeadingWhitespace, trimWhitespace } from "./bytes.js";
import { TemplateAnalysisError } from "./errors.js";
import { any, choice, lit, many, marker, matchAt, not, rest, seq, space, tag, tagText, until } from "./pattern.js";
import {
  ARG_FIRST,
  ARG_SECOND,
  ASSISTANT_TURN,
  FIRST_CALL,
  FUN_FIRST,
  FUN_SECOND,
  PROBE_TOOLS,
  SECOND_CALL,
  USER_TURN,
  assistantWithCalls,
} from "./probes.js";
import type { VariantRenderer } from "./render.js";
import type { ToolsAnalysis } from "./types.js";

/** Text up to (not including) the next marker. */
const NON_MARKER_RUN = many(seq(not(marker), any));

const NAME_IN_DIFF = seq(tag("pre", until(FUN_FIRST)), lit(FUN_FIRST), tag("post", NON_MARKER_RUN));

/** JSON args: name suffix runs to the first `{`/`[` that is not inside a marker, if a marker follows. */
const JSON_NAME_SUFFIX = seq(
  tag("ext", many(choice(marker, seq(not(lit("{")), not(lit("[")), any)))),
  NON_MARKER_RUN,
  marker,
);

const ARG_START = seq(marker, space, choice(lit(ARG_FIRST), lit(ARG_SECOND)));
const ARGS_SEPARATOR = seq(tag("sep", many(seq(not(ARG_START), any))), ARG_START);

const TAGGED_CLOSER = seq(until("YYYY"), lit("YYYY"), space, marker, space, tag("close", rest));
const JSON_CLOSER = seq(until("YYYY"), lit("YYYY"), tag("post_val", rest));

/** The text after the last argument value, up to the call or section closer. */
function closerRegion(renderer: VariantRenderer, suffix: string, out: ToolsAnalysis): string {
  const suffixMarker = out.format.perCallEnd || out.format.sectionEnd;
  if (suffixMarker !== "") {
    const at = suffix.indexOf(suffixMarker);
    return at < 0 ? suffix : suffix.slice(0, at);
  }
  // No closer known: compare against a turn without calls to see where the call ends.
  const noCall = renderer.compare(
    { messages: [USER_TURN, assistantWithCalls([FIRST_CALL])], tools: PROBE_TOOLS },
    { messages: [USER_TURN, ASSISTANT_TURN] },
  );
  if (!noCall) return "";
  const left = noCall.diff.left;
  const at = left.indexOf("YYYY");
  // Mirrors the position arithmetic of a missing value (npos + 4 wraps to 3).
  const from = at < 0 ? 3 : at + 4;
  if (from > left.length) throw new TemplateAnalysisError("tool call rendering too short to find the function closer");
  return left.slice(from);
}

/** Runs T3. */
export function extractFunctionMarkers(renderer: VariantRenderer, out: ToolsAnalysis): void {
  const cmp = renderer.compare(
    { messages: [USER_TURN, assistantWithCalls([FIRST_CALL])], tools: PROBE_TOOLS },
    { messages: [USER_TURN, assistantWithCalls([SECOND_CALL])] },
  );
  if (!cmp) return;
  const { diff } = cmp;
  if (!diff.left.includes(FUN_FIRST) || !diff.right.includes(FUN_SECOND)) return;
  const fn = out.function;
  const format = out.format;

  const opener = format.perCallStart || format.sectionStart;
  if (opener !== "" && diff.prefix.includes(opener)) {
    fn.namePrefix = diff.prefix.slice(diff.prefix.lastIndexOf(opener) + opener.length);
  }
  const name = matchAt(NAME_IN_DIFF, diff.left);
  if (name.ok) {
    fn.namePrefix += tagText(name, "pre");
    fn.nameSuffix = tagText(name, "post");
  }

  if (format.mode === "TAG_WITH_JSON") {
    const ext = matchAt(JSON_NAME_SUFFIX, diff.suffix);
    if (ext.ok) fn.nameSuffix += tagText(ext, "ext");
  } else {
    const ext = tagText(matchAt(tag("ext", NON_MARKER_RUN), diff.suffix), "ext");
    fn.nameSuffix += ext;
    const sep = matchAt(ARGS_SEPARATOR, diff.suffix.slice(ext.length));
    if (sep.ok) fn.argsSeparator = trimWhitespace(tagText(sep, "sep"));
  }

  const region = closerRegion(renderer, diff.suffix, out);
  if (region !== "") {
    if (format.mode === "TAG_WITH_TAGGED") {
      // After the last value comes its closing marker; the rest closes the function.
      const closer = matchAt(TAGGED_CLOSER, region);
      if (closer.ok) fn.close = tagText(closer, "close");
    } else if (format.mode === "TAG_WITH_JSON") {
      const closer = matchAt(JSON_CLOSER, region);
      if (closer.ok) {
        const post = tagText(closer, "post_val");
        const brace = Math.max(post.lastIndexOf("}"), post.lastIndexOf("]"));
        if (brace >= 0 && brace < post.length - 1) fn.close = trimLeadingWhitespace(post.slice(brace + 1));
      }
    }
  }
  fn.close = trimLeadingWhitespace(fn.close);
}
