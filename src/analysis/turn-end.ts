/**
 * The marker that closes an assistant turn (ChatML's `<|im_end|>`, Llama 3's `<|eot_id|>`,
 * Ling's `<|role_end|>`): read from a rendered turn, after its content. Models write it when
 * they are done; where it is no end-of-generation token of the vocabulary it must still end
 * the output and never show in the content.
 *
 * @example
 * detectAssistantEnd(renderer, content); // ChatML: "<|im_end|>"
 */
import { trimWhitespace } from "./bytes.js";
import { ASSISTANT_MSG, ASSISTANT_TURN, USER_TURN } from "./probes.js";
import type { VariantRenderer } from "./render.js";
import { segmentizeMarkers } from "./segments.js";
import type { ContentAnalysis } from "./types.js";

/**
 * The first marker after an assistant turn's content that is not the content's own closer, or "". A template
 * that closes the turn only when another message follows (Apertus's `<|assistant_end|>` before the next
 * `<|user_start|>`) shows it before the next user turn (`userStart`).
 */
export function detectAssistantEnd(renderer: VariantRenderer, content: ContentAnalysis, userStart = ""): string {
  const last = markerAfterContent(renderer.render({ messages: [USER_TURN, ASSISTANT_TURN] }), content);
  const next = trimWhitespace(userStart);
  if (last !== "" || next === "") return last;
  const text = renderer.render({ messages: [USER_TURN, ASSISTANT_TURN, USER_TURN] });
  const at = text === null ? -1 : text.lastIndexOf(next);
  if (text === null || at < 0) return "";
  const found = markerAfterContent(text.slice(0, at), content) || bareMarkerBefore(text.slice(0, at));
  return next.startsWith(found) ? "" : found;
}

/**
 * A turn end no bracket pair delimits (MiniMax's `[e~[`): the text between the assistant's content and the next
 * user turn, where it holds no bracketed marker and is one short word of punctuation and letters (no whitespace,
 * not only letters and digits).
 */
function bareMarkerBefore(text: string): string {
  const at = text.lastIndexOf(ASSISTANT_MSG);
  if (at < 0) return "";
  const tail = trimWhitespace(text.slice(at + ASSISTANT_MSG.length));
  const bare = segmentizeMarkers(tail).every((seg) => seg.type === "text");
  return bare && tail.length <= 24 && /^\S+$/.test(tail) && /[^\p{L}\p{N}_]/u.test(tail) ? tail : "";
}

function markerAfterContent(text: string | null, content: ContentAnalysis): string {
  if (text === null) return "";
  const at = text.lastIndexOf(ASSISTANT_MSG);
  if (at < 0) return "";
  const contentEnd = trimWhitespace(content.end);
  for (const seg of segmentizeMarkers(text.slice(at + ASSISTANT_MSG.length))) {
    if (seg.type === "text") {
      if (trimWhitespace(seg.value) === "") continue;
      return "";
    }
    const marker = trimWhitespace(seg.value);
    if (marker !== "" && marker !== contentEnd) return marker;
  }
  return "";
}
