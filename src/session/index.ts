/**
 * The session layer, on top of the runtime and the chat layer: chat requests end to end
 * (template, grammar, generation, streaming parse, tool runner), and the model an app loads.
 *
 * @example
 * import { loadModel } from "toolwright";
 * const model = await loadModel("model.gguf");
 * const { message } = await model.chat({ messages: [{ role: "user", content: "Hi" }] });
 */
export { ChatModel, loadModel } from "./chat-model.js";
export { ChatSession } from "./session.js";
export { DEFAULT_MAX_TOKENS } from "./options.js";
export type { ChatStream } from "./session.js";
export { defineTool, type ToolSpec } from "./define-tool.js";
export type { ToolArguments, FromJsonSchema } from "./schema-type.js";
export { chatGrammar, strictGrammar, type TriggerTokenizer } from "./grammar.js";
export type {
  ChatChunk,
  ChatOptions,
  ChatResult,
  ChatSessionOptions,
  ChatStep,
  ChatTimings,
  ChatTool,
  ChatToolFunction,
  ChatUsage,
  FinishReason,
  ResponseFormatError,
  ToolCallError,
  ToolExecuteContext,
} from "./types.js";
