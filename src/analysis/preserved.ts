/**
 * Preserved tokens: every marker the analysis found, whitespace-trimmed, each once, in a
 * fixed order (reasoning, content, tool section/call, function, arguments, call id). The
 * tokenizer must keep these whole so the parser and grammar can see them.
 *
 * @example
 * collectPreservedTokens(analysis); // ["<think>", "</think>", "<tool_call>", "</tool_call>"]
 */
import { trimWhitespace } from "./bytes.js";
import type { ContentAnalysis, ReasoningAnalysis, ToolsAnalysis } from "./types.js";

/** The trimmed, distinct, non-empty markers of an analysis. */
export function collectPreservedTokens(
  reasoning: ReasoningAnalysis,
  content: ContentAnalysis,
  tools: ToolsAnalysis,
): string[] {
  const { format, function: fn, arguments: args, callId } = tools;
  // Python call syntax ("(", "=", ", ") is ordinary text: only the wrappers are tokens.
  const syntax =
    format.mode === "PYTHONIC"
      ? []
      : [
          fn.namePrefix,
          fn.nameSuffix,
          fn.argsSeparator,
          fn.close,
          args.start,
          args.end,
          args.namePrefix,
          args.nameSuffix,
          args.separator,
          args.valuePrefix,
          args.valueSuffix,
          callId.prefix,
          callId.suffix,
        ];
  const markers = [
    reasoning.start,
    reasoning.end,
    content.start,
    content.end,
    format.sectionStart,
    format.sectionEnd,
    format.perCallStart,
    format.perCallEnd,
    ...syntax,
  ];
  const tokens: string[] = [];
  for (const m of markers) {
    const token = trimWhitespace(m);
    if (token !== "" && !tokens.includes(token)) tokens.push(token);
  }
  return tokens;
}
