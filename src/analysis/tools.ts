/**
 * Phase 3, tool calls: runs T1 (format), then for tag formats T2 (per-call markers, only
 * with parallel calls), T3 (function markers), A1/A2 (tagged argument markers), T5
 * (argument separator), T6 (argument block) and T7 (call ids).
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
import { taughtListStart } from "./taught-syntax.js";
import { analyzeToolCalls } from "./tool-format.js";
import { emptyToolsAnalysis } from "./tool-shapes.js";
import type { ReasoningAnalysis, ToolsAnalysis } from "./types.js";
import type { TemplateCaps } from "../template/types.js";

/** Runs the tool phases; templates that do not render tool calls get an empty analysis. */
export function analyzeTools(
  renderer: VariantRenderer,
  caps: TemplateCaps,
  reasoning: ReasoningAnalysis,
): ToolsAnalysis {
  const out = emptyToolsAnalysis();
  if (!caps.supportsToolCalls) return out;
  analyzeToolCalls(renderer, reasoning, caps.supportsParallelToolCalls, out);
  out.format.taughtListStart = taughtListStart(renderer, out.format);
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
