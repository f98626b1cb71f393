/**
 * Phase 2, content (C1): finds whether assistant content is wrapped in markers. Renders a
 * content-only turn against a tool-call turn and against a reasoning-only turn; if the
 * content text is all that differs, content is plain, otherwise the markers around it are
 * the wrapper.
 *
 * @example
 * analyzeContent(renderer, reasoning); // Command R7B: { mode: "ALWAYS_WRAPPED", start: "<|START_RESPONSE|>", ... }
 */
import { trimWhitespace } from "./bytes.js";
import { end, findAnywhere, lit, marker, matchAt, opt, rest, seq, space, tag, tagText } from "./pattern.js";
import { ASSISTANT_MSG, ASSISTANT_TURN, PROBE_TOOLS, THINKING_CONTENT, USER_TURN, toolCall } from "./probes.js";
import type { VariantRenderer } from "./render.js";
import type { ContentAnalysis, ReasoningAnalysis } from "./types.js";

const WRAPPED_CONTENT = seq(
  tag("pre", seq(marker, space)),
  lit(ASSISTANT_MSG),
  space,
  tag("post", seq(marker, space)),
  rest,
);

/** Longest content prefix taken for one (bytes): a short label, not a paragraph of instructions. */
const PREFIX_MAX_BYTES = 32;

/**
 * The text a content turn writes right before the content, where no marker wraps it (Hunyuan's
 * "助手："): a short label on one line, no tag characters (tags are WRAPPED_CONTENT's). "" when
 * there is none. The parser strips it where the model writes it.
 */
function textPrefix(turn: string): string {
  const at = turn.indexOf(ASSISTANT_MSG);
  if (at <= 0) return "";
  const prefix = turn.slice(0, at);
  const label = trimWhitespace(prefix);
  if (label === "" || label.length > PREFIX_MAX_BYTES || /[\n<>[\]{}]/.test(label)) return "";
  return prefix.slice(prefix.indexOf(label));
}

/** Runs C1. */
export function analyzeContent(renderer: VariantRenderer, reasoning: ReasoningAnalysis): ContentAnalysis {
  const out: ContentAnalysis = { mode: "PLAIN", start: "", end: "", requiresNonNullContent: false };
  const contentOnly = { messages: [USER_TURN, ASSISTANT_TURN], tools: PROBE_TOOLS };
  const withCall = {
    role: "assistant",
    content: "",
    tool_calls: [toolCall("test_func", { arg1: "value1" })],
  };
  const withReasoning = { role: "assistant", content: "", reasoning_content: THINKING_CONTENT };
  const vsTools = renderer.compare(contentOnly, { messages: [USER_TURN, withCall] });
  const vsReasoning = renderer.compare(contentOnly, { messages: [USER_TURN, withReasoning] });
  if (!vsTools || !vsReasoning) return out;
  const toolsLeft = vsTools.diff.left;
  const reasoningLeft = vsReasoning.diff.left;

  let plain = false;
  if (trimWhitespace(toolsLeft) === ASSISTANT_MSG) {
    // Only the text (possibly with a stray end-of-turn marker) differs from the reasoning turn.
    const textOnly = seq(space, lit(reasoningLeft), space, opt(marker), space, end);
    if (matchAt(textOnly, reasoningLeft).ok) {
      plain = true;
    } else if (reasoning.mode !== "NONE" && reasoning.end !== "") {
      const afterReasoning = seq(lit(reasoning.end), space, lit(ASSISTANT_MSG));
      plain = findAnywhere(afterReasoning, reasoningLeft).ok;
    }
  }
  if (!plain) {
    let fromReasoning = reasoningLeft;
    if (reasoning.end !== "" && fromReasoning.includes(reasoning.end)) {
      fromReasoning = fromReasoning.slice(fromReasoning.indexOf(reasoning.end) + reasoning.end.length);
    }
    // The longer of the two diffs carries more of the wrapper.
    const candidate = fromReasoning.length > toolsLeft.length ? fromReasoning : toolsLeft;
    const wrapped = findAnywhere(WRAPPED_CONTENT, candidate);
    out.start = tagText(wrapped, "pre");
    out.end = tagText(wrapped, "post");
    if (out.start === "" && out.end === "") out.start = textPrefix(candidate);
  }
  if (out.start !== "" || out.end !== "") out.mode = "ALWAYS_WRAPPED";
  return out;
}
