/**
 * Messages as a template renders them: dedicated formats keep reasoning in their own places
 * (GPT-OSS's `thinking`, Ministral's thinking block), so history must be adapted the same way
 * the prompt of a request is.
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
  return handler?.adaptMessages ? handler.adaptMessages(messages) : messages;
}
