/**
 * Chat requests end to end: template, grammar, generation, streaming parse, tool runner.
 *
 * @example
 * import { ChatSession } from "./chat/session/index.js";
 * const session = new ChatSession(model);
 * const { message } = await session.chat({ messages: [{ role: "user", content: "Hi" }] });
 */
export { ChatSession } from "./session.js";
export type { ChatStream } from "./session.js";
export { setDefaultChatGrammarEngine } from "./grammar.js";
export type {
  ChatChunk,
  ChatOptions,
  ChatResult,
  ChatSessionOptions,
  ChatStep,
  ChatTimings,
  ChatTool,
  ChatUsage,
  FinishReason,
  ToolExecuteContext,
} from "./types.js";
