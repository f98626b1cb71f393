/**
 * The chat layer: from a template analysis and a chat request to prompt, output parser and
 * grammar (generateChatParams), and from model output to an OpenAI assistant message, whole
 * (parseChatOutput) or streamed as deltas (ChatStreamParser).
 *
 * @example
 * import { generateChatParams, ChatStreamParser } from "toolwright/chat";
 * const params = generateChatParams(analysis, template, { messages, tools });
 * const stream = new ChatStreamParser(params);
 * stream.feed("<tool_call>\n{\"name\": \"get_weather\", ");
 *
 * @module toolwright/chat
 */
export { generateChatParams } from "./generate.js";
export { analyzeChatTemplate, type AnalyzeChatOptions } from "./analyze-chat.js";
export { ChatStreamParser, parseChatOutput } from "./chat-parser.js";
export { accumulateDeltas } from "./deltas.js";
export { ToolSchemaError } from "./tool-schema.js";
export type { ValueDialect } from "./json-normalizer.js";
export type {
  ChatDelta,
  ChatGrammarTrigger,
  ChatMappingOptions,
  ChatParams,
  ChatParseOptions,
  ChatParserSpec,
  ChatRequest,
  GrammarPlan,
  ToolCallDelta,
} from "./types.js";
