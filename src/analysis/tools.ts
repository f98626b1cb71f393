/**
 * Phase 3, tool calls: runs T1 (format; where no call renders, the call section the prompt
 * teaches in prose), then for tag formats T2 (per-call markers, only with parallel calls), T3
 * (function markers), A1/A2 (tagged argument markers), T5 (argument separator), T6 (argument
 * block) and T7 (call ids).
 *
 * @example
 * const tools = analyzeTools(renderer, caps, reasoning);
 */
import {
  extractArgsMarkers,
  extractArgumentNameMarkers,
  extractArgumentSeparator,
  extractArgumentValueMarkers,
} from "./arguments.js";
import { extractCallIdMarkers } from "./call-id.js";
import { extractFunctionMarkers } from "./function-markers.js";
import { checkPerCallMarkers } from "./per-call.js";
import type { VariantRenderer } from "./render.js";
import { taughtCallSection } from "./taught-section.js";
import { taughtListStart } from "./taught-syntax.js";
import { analyzeToolCalls } from "./tool-format.js";
import { emptyToolsAnalysis } from "./tool-shapes.js";
import type { ReasoningAnalysis, ToolsAnalysis } from "./types.js";
import type { TemplateCaps } from "../template/types.js";

/**
 * Runs the tool phases; templates that neither render tool calls nor teach a call syntax in
 * their tools prompt get an empty analysis.
 */
export function analyzeTools(
  renderer: VariantRenderer,
  caps: TemplateCaps,
  reasoning: ReasoningAnalysis,
): ToolsAnalysis {
  const out = emptyToolsAnalysis();
  if (caps.supportsToolCalls) {
    analyzeToolCalls(renderer, reasoning, caps.supportsParallelToolCalls, out);
    out.format.taughtListStart = taughtListStart(renderer, out.format);
  }
  // No rendered call to read: what the prompt teaches in words, if anything.
  if (out.format.mode === "NONE" && caps.supportsTools) {
    const taught = taughtCallSection(renderer);
    if (taught !== null) Object.assign(out.format, { mode: "JSON_NATIVE", ...taught });
  }
  const mode = out.format.mode;
  // JSON and Python call expressions are read whole: no tag markers to find.
  if (mode === "NONE" || mode === "JSON_NATIVE" || mode === "PYTHONIC") return out;

  if (caps.supportsParallelToolCalls) checkPerCallMarkers(renderer, out);
  extractFunctionMarkers(renderer, out);
  if (mode === "TAG_WITH_TAGGED") {
    extractArgumentNameMarkers(renderer, out);
    extractArgumentValueMarkers(renderer, out);
  }
  extractArgumentSeparator(renderer, out);
  extractArgsMarkers(renderer, out);
  extractCallIdMarkers(renderer, out);
  return out;
}
