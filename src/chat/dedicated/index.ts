/**
 * Dedicated formats: one module per format, each saying what it detects, how it adapts messages
 * and how it builds its parser (or, with `generic`, why the generic generator reads it). The
 * registry is derived from the modules; detection tries them in the order below, first match
 * wins, as llama.cpp checks its hand-written handlers before running its autoparser.
 */
import { cohere2Moe } from "./cohere2-moe.js";
import { deepseekV32 } from "./deepseek-v3-2.js";
import { functionaryV32 } from "./functionary-v3-2.js";
import { gemma4 } from "./gemma4.js";
import { gigachatV3 } from "./gigachat-v3.js";
import { gptOss } from "./gpt-oss.js";
import type { DedicatedHandler, DedicatedHandlerDef } from "./handler.js";
import type { ReasoningAnalysis, TemplateAnalysis } from "../../analysis/index.js";
import { kimiK2 } from "./kimi-k2.js";
import { kimiK3 } from "./kimi-k3.js";
import { lfm25 } from "./lfm2-5.js";
import { ling3 } from "./ling-3.js";
import { minicpm5 } from "./minicpm5.js";
import { minimaxM3 } from "./minimax-m3.js";
import { ministral3 } from "./ministral-3.js";
import { museGlimmer } from "./muse-glimmer.js";
import { qwen3Coder } from "./qwen3-coder.js";

export type { DedicatedBuild, DedicatedContext, DedicatedHandler, DedicatedHandlerDef } from "./handler.js";

/** Every format, in detection order (a more specific signature before a looser one). */
export const DEDICATED_FORMATS: readonly DedicatedHandlerDef[] = [
  ministral3,
  gptOss,
  museGlimmer,
  functionaryV32,
  kimiK2,
  kimiK3,
  ling3,
  cohere2Moe,
  lfm25,
  gigachatV3,
  minimaxM3,
  deepseekV32,
  gemma4,
  minicpm5,
  qwen3Coder,
];

const BY_FAMILY = new Map<DedicatedHandler, DedicatedHandlerDef>(
  DEDICATED_FORMATS.flatMap((f) => f.handles.map((family) => [family, f] as const)),
);

/**
 * Families llama.cpp gives a hand-written handler that toolwright's generic analysis reads, and
 * why it can (each format module's `generic`). test/unit/chat-dedicated-coverage.test.ts checks
 * that these round trip through the generic generator.
 */
export const GENERIC_HANDLES: Readonly<Record<DedicatedHandler, string>> = Object.fromEntries(
  DEDICATED_FORMATS.flatMap((f) =>
    f.generic === undefined ? [] : f.handles.map((family) => [family, f.generic!] as const),
  ),
);

/**
 * The family whose hand-written handler llama.cpp would pick for this template source, or null
 * when the generic analysis applies.
 *
 * @example
 * detectDedicatedFormat(gptOssSource); // "gpt-oss"
 */
export function detectDedicatedFormat(source: string): DedicatedHandler | null {
  for (const format of DEDICATED_FORMATS) {
    const family = format.detect(source);
    if (family !== null) return family;
  }
  return null;
}

/** The format module serving a detected family (dedicated or generic), or null. */
export function dedicatedFormat(family: DedicatedHandler | null): DedicatedHandlerDef | null {
  return family === null ? null : (BY_FAMILY.get(family) ?? null);
}

/**
 * The dedicated handler for an analysis' `dedicatedHandler`, or null to use the generic one
 * (no family, or one the generic generator reads).
 *
 * @example
 * dedicatedHandler("gpt-oss")?.name; // "gpt-oss"
 */
export function dedicatedHandler(family: DedicatedHandler | null): DedicatedHandlerDef | null {
  const format = dedicatedFormat(family);
  return format === null || format.generic !== undefined ? null : format;
}

/**
 * The reasoning markers of the format that reads this analysis: a dedicated handler's own (the analysis may
 * diff out only part of them), else the analysis'.
 *
 * @example
 * formatReasoning(kimiK3Analysis).start; // "<|open|>think<|sep|>"
 */
export function formatReasoning(analysis: TemplateAnalysis): ReasoningAnalysis {
  const handler = dedicatedHandler(analysis.dedicatedHandler);
  return handler?.reasoning ? { mode: "TAG_BASED", ...handler.reasoning } : analysis.reasoning;
}
