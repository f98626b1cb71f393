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

/** The first marker after an assistant turn's content that is not the content's own closer, or "". */
export function detectAssistantEnd(renderer: VariantRenderer, content: ContentAnalysis): string {
  const text = renderer.render({ messages: [USER_TURN, ASSISTANT_TURN] });
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
