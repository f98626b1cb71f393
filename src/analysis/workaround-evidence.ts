/**
 * The checks a workaround's result must pass before it replaces the diffed analysis. Rows are
 * keyed on source substrings, and template families copy each other's prologues (many
 * functionary templates share the Functionary 3.1 tool-list preamble but write DeepSeek-style
 * calls), so a matching substring alone is no proof that the row's model is there:
 *
 *   - evidence: every marker the row introduces appears, piece by piece, in the template source
 *     (a template that never writes `<function=` does not use Functionary 3.1's format);
 *   - no loss: every piece of every marker the diffing found survives inside some marker of the
 *     result (a row may move, split or extend a marker, never drop what the renderings showed).
 *
 * @example
 * workaroundProblem(source, diffed, corrected); // null, or why the row must not apply
 */
import type { TemplateAnalysis } from "./types.js";

/** The marker fields of an analysis: what the parser matches literally. */
export function analysisMarkers(a: TemplateAnalysis): string[] {
  const { format, function: fn, arguments: args, callId } = a.tools;
  const all = [
    a.reasoning.start,
    a.reasoning.end,
    a.content.start,
    a.content.end,
    format.sectionStart,
    format.sectionEnd,
    format.perCallStart,
    format.perCallEnd,
    fn.namePrefix,
    fn.nameSuffix,
    fn.argsSeparator,
    fn.close,
    args.start,
    args.end,
    args.namePrefix,
    args.nameSuffix,
    args.valuePrefix,
    args.valueSuffix,
    args.separator,
    callId.prefix,
    callId.suffix,
  ];
  return [...new Set(all.map((m) => m.trim()).filter((m) => m !== ""))];
}

/** A marker's pieces: its tags (`<...>`) apart from the text around them, whitespace dropped. */
function pieces(marker: string): string[] {
  return marker.split(/(?<=>)|(?=<)|\s+/).filter((p) => p !== "");
}

/** The source shows the piece, or the closing tag it opens (templates that only strip `</think>`). */
function inSource(source: string, piece: string): boolean {
  return source.includes(piece) || (/^<[^/<>][^<>]*>$/.test(piece) && source.includes(`</${piece.slice(1)}`));
}

/**
 * Why the corrected analysis must not replace the diffed one, or null when it may.
 * `source` is the template source; markers are compared trimmed; `overrides` are pieces of
 * diffed markers the row may drop.
 */
export function workaroundProblem(
  source: string,
  diffed: TemplateAnalysis,
  corrected: TemplateAnalysis,
  overrides: readonly string[] = [],
): string | null {
  const before = analysisMarkers(diffed);
  const after = analysisMarkers(corrected);
  for (const m of after) {
    if (before.includes(m)) continue;
    const missing = pieces(m).find((p) => !inSource(source, p));
    if (missing !== undefined)
      return `the template never writes ${JSON.stringify(missing)} (of the marker ${JSON.stringify(m)})`;
  }
  // Compared piece by piece: a row may split a marker across two fields (a prefix moved into
  // the call start) or extend it, not drop a piece of it.
  for (const m of before) {
    const lost = pieces(m).find((p) => !overrides.includes(p) && !after.some((n) => n.includes(p)));
    if (lost !== undefined)
      return `it drops ${JSON.stringify(lost)} (of the marker ${JSON.stringify(m)}) the renderings show`;
  }
  return null;
}
