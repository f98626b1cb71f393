/**
 * Differential chat-template analysis: how a model writes reasoning, content and tool calls,
 * worked out by rendering its template with probe conversations and diffing the results.
 *
 * @example
 * import { analyzeTemplate } from "toolwright/analysis";
 * const { reasoning, tools } = analyzeTemplate(source);
 *
 * @module toolwright/analysis
 */
export { analyzeTemplate, type AnalyzeOptions } from "./analyze.js";
export { TemplateAnalysisError } from "./errors.js";
export type * from "./types.js";
