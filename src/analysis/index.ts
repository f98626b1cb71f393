/**
 * Differential chat-template analysis: how a model writes reasoning, content and tool calls,
 * worked out by rendering its template with probe conversations and diffing the results.
 *
 * @example
 * import { analyzeTemplate } from "toolwright/analysis";
 * const { reasoning, tools } = analyzeTemplate(source);
 */
export { analyzeTemplate, type AnalyzeOptions } from "./analyze.js";
export { TemplateAnalysisError } from "./errors.js";
export { analysisMarkers } from "./workaround-evidence.js";
export { calculateDiffSplit, untilCommonPrefix, afterCommonSuffix, type DiffSplit } from "./diff.js";
export { segmentizeMarkers, pruneWhitespaceSegments, type Segment, type SegmentType } from "./segments.js";
export { WORKAROUNDS, type Workaround } from "./workarounds.js";
export type * from "./types.js";
