/**
 * Phase 1, reasoning: finds how a template delimits the model's reasoning.
 *  R1 renders an assistant turn with and without `reasoning_content` and reads the markers
 *     around the reasoning text;
 *  R2 renders the generation prompt with `enable_thinking` false and true and reads the
 *     markers the prompt gains or loses (reasoning forced open / closed in the prompt);
 *  R3 (templates with tool calls) checks whether reasoning is only rendered on tool turns.
 *
 * @example
 * const reasoning = analyzeReasoning(renderer, caps.supportsToolCalls);
 * // Qwen3: { mode: "TAG_BASED", start: "<think>\n", end: "</think>\n\n" }
 */
import { trimWhitespace } from "./bytes.js";
import { findAnywhere, lit, marker, opt, rest, seq, space, tag, tagText } from "./pattern.js";
import {
  ASSISTANT_TURN,
  FUN_FIRST,
  ARG_FIRST,
  ARG_SECOND,
  PROBE_TOOLS,
  THINKING_CONTENT,
  USER_TURN,
  ASSISTANT_MSG,
  toolCall,
} from "./probes.js";
import type { VariantRenderer } from "./render.js";
import { pruneWhitespaceSegments, segmentizeMarkers } from "./segments.js";
import type { ReasoningAnalysis } from "./types.js";

/** Reasoning text wrapped by a marker on each side (whitespace after each marker kept). */
const WRAPPED_REASONING = seq(
  tag("pre", seq(marker, space)),
  lit(THINKING_CONTENT),
  tag("post", seq(space, marker, space)),
  rest,
);

/** Reasoning text followed by a closing marker only. */
const DELIMITED_REASONING = seq(lit(THINKING_CONTENT), space, opt(seq(tag("post", seq(marker, space)), rest)));

/** R1: an assistant turn with reasoning vs the same turn without. */
function compareReasoningPresence(renderer: VariantRenderer, out: ReasoningAnalysis): void {
  const withReasoning = { role: "assistant", content: ASSISTANT_MSG, reasoning_content: THINKING_CONTENT };
  const cmp = renderer.compare({ messages: [USER_TURN, ASSISTANT_TURN] }, { messages: [USER_TURN, withReasoning] });
  if (!cmp || cmp.diff.right === "" || !cmp.diff.right.includes(THINKING_CONTENT)) return;

  let found = findAnywhere(WRAPPED_REASONING, cmp.outputB);
  if (!found.ok) found = findAnywhere(DELIMITED_REASONING, cmp.outputB);
  if (!found.ok) return;
  const pre = tagText(found, "pre");
  const post = tagText(found, "post");
  if (pre !== "" && post !== "") {
    out.mode = "TAG_BASED";
    out.start = pre;
    out.end = post;
  } else if (post !== "") {
    out.mode = "TAG_BASED";
    out.end = post;
  }
}

/** Tail-anchors one prompt in the other and reads exactly two markers appended after it. */
function markersAppendedAfterTail(base: string, extended: string): [string, string] | null {
  const anchorLength = Math.min(base.length, 64);
  const anchor = base.slice(base.length - anchorLength);
  const at = extended.lastIndexOf(anchor);
  if (at < 0 || at + anchorLength >= extended.length) return null;
  const extra = trimWhitespace(extended.slice(at + anchorLength));
  if (extra === "") return null;
  const segs = pruneWhitespaceSegments(segmentizeMarkers(extra));
  if (segs.length === 2 && segs[0]!.type === "marker" && segs[1]!.type === "marker") {
    return [segs[0]!.value, segs[1]!.value];
  }
  return null;
}

/** R2: the generation prompt with thinking disabled vs enabled. */
function compareThinkingEnabled(renderer: VariantRenderer, out: ReasoningAnalysis): void {
  const cmp = renderer.compare(
    { messages: [USER_TURN], addGenerationPrompt: true, enableThinking: false },
    { enableThinking: true },
  );
  if (!cmp) return;
  const { diff, outputA, outputB } = cmp;
  const leftTrimmed = trimWhitespace(diff.left);
  const rightTrimmed = trimWhitespace(diff.right);

  if (leftTrimmed === "" && diff.right !== "") {
    // Thinking on appends an opening marker to the prompt: reasoning is forced open.
    if (rightTrimmed !== "" && outputB.endsWith(rightTrimmed) && out.start === "") {
      out.start = diff.right;
      out.mode = "TAG_BASED";
    }
  } else if (rightTrimmed === "" && diff.left !== "") {
    // Thinking off appends a closing marker (an empty, closed reasoning block).
    if (leftTrimmed !== "" && outputA.endsWith(leftTrimmed) && out.end === "") {
      const segs = pruneWhitespaceSegments(segmentizeMarkers(outputA));
      const last = segs[segs.length - 1];
      const beforeLast = segs[segs.length - 2];
      if (last && beforeLast && last.value === leftTrimmed && beforeLast.type === "marker") {
        out.start = beforeLast.value;
      }
      out.end = diff.left;
      out.mode = "TAG_BASED";
    }
  } else if (leftTrimmed !== "" && rightTrimmed !== "") {
    // Both prompts differ elsewhere too (e.g. a system line changes): look for one prompt's
    // tail inside the other, followed by an open/close marker pair.
    for (const [base, extended] of [
      [outputB, outputA],
      [outputA, outputB],
    ] as const) {
      const pair = markersAppendedAfterTail(base, extended);
      if (!pair) continue;
      if (out.start === "") out.start = pair[0];
      if (out.end === "") out.end = pair[1];
      out.mode = "TAG_BASED";
      break;
    }
  }

  if (out.mode === "NONE" && out.start === "" && out.end !== "") out.mode = "TAG_BASED";
}

const TOOL_TURN_WRAPPED = seq(
  tag("pre", seq(marker, space)),
  lit(THINKING_CONTENT),
  space,
  tag("post", seq(marker, space)),
);
const TOOL_TURN_DELIMITED = seq(lit(THINKING_CONTENT), space, opt(tag("post", seq(marker, space))));

/** R3: reasoning with text content vs reasoning with a tool call. */
function compareReasoningScope(renderer: VariantRenderer, out: ReasoningAnalysis): void {
  const withContent = { role: "assistant", content: ASSISTANT_MSG, reasoning_content: THINKING_CONTENT };
  const withCall = {
    role: "assistant",
    content: null,
    reasoning_content: THINKING_CONTENT,
    tool_calls: [toolCall(FUN_FIRST, { [ARG_FIRST]: "VVVV", [ARG_SECOND]: "XXXX" })],
  };
  const cmp = renderer.compare(
    { messages: [USER_TURN, withContent], tools: PROBE_TOOLS },
    { messages: [USER_TURN, withCall] },
  );
  if (!cmp) return;
  const inA = cmp.outputA.includes(THINKING_CONTENT);
  const inB = cmp.outputB.includes(THINKING_CONTENT);
  if (inA || !inB) return;

  out.mode = "TOOLS_ONLY";
  const wrapped = findAnywhere(TOOL_TURN_WRAPPED, cmp.outputB);
  if (wrapped.ok) {
    out.start = tagText(wrapped, "pre");
    out.end = tagText(wrapped, "post");
    return;
  }
  const delimited = findAnywhere(TOOL_TURN_DELIMITED, cmp.outputB);
  if (delimited.ok) out.end = tagText(delimited, "post");
  else out.mode = "NONE";
}

/** Runs R1–R3. */
export function analyzeReasoning(renderer: VariantRenderer, supportsToolCalls: boolean): ReasoningAnalysis {
  const out: ReasoningAnalysis = { mode: "NONE", start: "", end: "" };
  compareReasoningPresence(renderer, out);
  compareThinkingEnabled(renderer, out);
  if (supportsToolCalls) compareReasoningScope(renderer, out);
  return out;
}
