/**
 * Turn openers: the marker that starts an assistant turn and the one that starts a user
 * turn, read from renderings with and without that turn. Used to split rendered history and
 * to stop generation at a new turn.
 *
 * @example
 * detectAssistantStart(renderer, reasoning); // ChatML: "<|im_start|>assistant"
 */
import { trimWhitespace } from "./bytes.js";
import { ASSISTANT_MSG, ASSISTANT_TURN, USER_MSG, USER_TURN, USER_TURN_TWO } from "./probes.js";
import type { VariantRenderer } from "./render.js";
import { segmentizeMarkers } from "./segments.js";
import type { ReasoningAnalysis } from "./types.js";

/** Cuts `text` before the first occurrence of `needle` (no-op when absent). */
function cutBefore(text: string, needle: string): string {
  const at = text.indexOf(needle);
  return at < 0 ? text : text.slice(0, at);
}

/** The text that opens an assistant turn, before any reasoning marker. */
export function detectAssistantStart(renderer: VariantRenderer, reasoning: ReasoningAnalysis): string {
  const cmp = renderer.compare({ messages: [USER_TURN] }, { messages: [USER_TURN, ASSISTANT_TURN] });
  if (!cmp) return "";
  let opener = cutBefore(cmp.diff.right, ASSISTANT_MSG);
  const start = trimWhitespace(reasoning.start);
  const end = trimWhitespace(reasoning.end);
  if (reasoning.start !== "" && opener.includes(start)) opener = cutBefore(opener, start);
  if (reasoning.end !== "" && opener.includes(end)) opener = cutBefore(opener, end);
  return trimWhitespace(opener);
}

/** ASCII-only lower-casing (byte strings must not have Latin-1 letters folded). */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

/** The text that opens a user turn; leading end-of-previous-turn markers are skipped. */
export function detectUserStart(renderer: VariantRenderer): string {
  let cmp = renderer.compare({ messages: [] }, { messages: [USER_TURN] });
  if (!cmp) {
    // Templates that refuse an empty conversation: add a user turn after an exchange.
    cmp = renderer.compare(
      { messages: [USER_TURN_TWO, ASSISTANT_TURN] },
      { messages: [USER_TURN_TWO, ASSISTANT_TURN, USER_TURN] },
    );
    if (!cmp) return "";
  }
  let turn = cmp.diff.right;
  const afterAssistant = turn.indexOf(ASSISTANT_MSG);
  if (afterAssistant >= 0) turn = turn.slice(afterAssistant + ASSISTANT_MSG.length);
  const candidate = cutBefore(turn, USER_MSG);

  let opener = "";
  let seenMarker = false;
  for (const seg of segmentizeMarkers(candidate)) {
    if (!seenMarker) {
      const lower = asciiLower(seg.value);
      if (seg.type === "marker" && (lower.includes("end") || lower.includes("close"))) continue;
      if (seg.type === "text" && trimWhitespace(seg.value) === "") continue;
    }
    if (seg.type === "marker") seenMarker = true;
    opener += seg.value;
  }
  return trimWhitespace(opener);
}
