/**
 * The analysis the chat pipeline uses: the dedicated format is detected first (each format
 * module carries its own signature, src/chat/dedicated/), then the generic analysis runs with
 * that format's hints. For a template no format claims, it is exactly `analyzeTemplate`.
 *
 * @example
 * import { analyzeChatTemplate, generateChatParams } from "toolwright/chat";
 * const analysis = analyzeChatTemplate(source, { template });
 * analysis.dedicatedHandler; // "gpt-oss" for a GPT-OSS template, null for Qwen3
 */
import { type AnalyzeOptions, type TemplateAnalysis, analyzeTemplate } from "../analysis/index.js";
import { dedicatedFormat, detectDedicatedFormat } from "./dedicated/index.js";

/** The options of `analyzeTemplate`, less `format`, which this function detects itself. */
export type AnalyzeChatOptions = Omit<AnalyzeOptions, "format">;

/**
 * Analyses a chat template as the chat pipeline reads it: detects a dedicated format (the
 * family llama.cpp would give a hand-written handler) and runs the analysis with its hints.
 * Throws what `analyzeTemplate` throws.
 *
 * @example
 * import { analyzeChatTemplate } from "toolwright/chat";
 * const { tools, dedicatedHandler } = analyzeChatTemplate(readFileSync("Kimi-K2.jinja", "utf8"));
 */
export function analyzeChatTemplate(source: string, options: AnalyzeChatOptions = {}): TemplateAnalysis {
  if (typeof source !== "string") {
    throw new TypeError(
      `analyzeChatTemplate: source must be a string, got ${source === null ? "null" : typeof source}`,
    );
  }
  if (options !== null && typeof options === "object" && "format" in options) {
    throw new TypeError(
      "analyzeChatTemplate: options.format is detected from the source; call analyzeTemplate to give one",
    );
  }
  const family = detectDedicatedFormat(source);
  if (family === null) return analyzeTemplate(source, options);
  const probeMessages = dedicatedFormat(family)?.probeMessages;
  return analyzeTemplate(source, { ...options, format: { name: family, ...(probeMessages ? { probeMessages } : {}) } });
}
