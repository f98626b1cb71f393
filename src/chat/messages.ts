/**
 * Messages as a template renders them: dedicated formats keep reasoning in their own places
 * (GPT-OSS's `thinking`, Ministral's thinking block), so history must be adapted the same way
 * the prompt of a request is. An assistant's `reasoning_content` is also given as `reasoning`, vLLM's
 * name for it, which some templates read alone (Solar Open) and the others read first, falling back
 * to `reasoning_content`.
 */
import type { TemplateAnalysis } from "../analysis/index.js";
import type { ChatMessage } from "../types.js";
import { dedicatedHandler } from "./dedicated/index.js";

/**
 * The messages the template should render for this analysis (unchanged for generic formats).
 *
 * @example
 * template.render({ messages: prepareMessages(analysis, history), tools, addGenerationPrompt: false });
 */
export function prepareMessages(analysis: TemplateAnalysis, messages: ChatMessage[]): ChatMessage[] {
  if (!Array.isArray(messages))
    throw new TypeError(
      `prepareMessages: messages must be an array, got ${messages === null ? "null" : typeof messages}`,
    );
  const handler = dedicatedHandler(analysis.dedicatedHandler);
  const named = messages.map(withReasoningName);
  return handler?.adaptMessages ? handler.adaptMessages(named) : named;
}

/** An assistant message with its reasoning under both names (unchanged when it has none, or both). */
function withReasoningName(m: ChatMessage): ChatMessage {
  if (m.role !== "assistant" || typeof m.reasoning_content !== "string" || "reasoning" in m) return m;
  return { ...m, reasoning: m.reasoning_content } as ChatMessage;
}
