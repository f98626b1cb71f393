/**
 * toolwright: run GGUF language models locally, with tool calling for any model.
 *
 * @example
 * import { loadModel } from "toolwright";
 * const model = await loadModel("model.gguf");
 */
export type * from "./types.js";
export { loadModel, ChatModel } from "./session/index.js";
export { Model, TokenAttribute, listDevices, Context, Generation, StopStringFilter, AbortError, ModelLoadError, loadNative, NativeAddonError } from "./runtime/index.js";
export type * from "./runtime/index.js";
export { ChatTemplate, TemplateError, TemplateRuntimeError, TemplateSyntaxError, LENIENT_RELAXATIONS } from "./template/index.js";
export type { ChatTemplateOptions, RenderInput, TemplateCaps, CompatMode, RenderMode, RenderResult } from "./template/index.js";
export { analyzeTemplate, TemplateAnalysisError } from "./analysis/index.js";
export type { TemplateAnalysis } from "./analysis/index.js";
export { readGguf, readGgufMetadata, GgufError, createTestModel } from "./runtime/gguf/index.js";
export { jsonSchemaToGbnf, SchemaConverter, SchemaError, RELAXATIONS, GbnfBuilder, parseGbnf, matchGbnf, GbnfMatcher, GbnfSyntaxError } from "./grammar/index.js";
export type { SchemaToGbnfOptions, Relaxation, RelaxationKind, GbnfExpr, WhitespacePolicy } from "./grammar/index.js";
export { PegArena, PegStreamParser, parsePeg, pegToGbnf } from "./peg/index.js";
export type { PegId, PegNode, PegParseResult, PegTreeNode, PegGbnf, GrammarTrigger } from "./peg/index.js";
export { generateChatParams, parseChatOutput, ChatStreamParser, accumulateDeltas, prepareMessages } from "./chat/index.js";
export type { ChatParams, ChatRequest, ChatDelta, ToolCallDelta, ChatGrammarTrigger, ChatParseOptions, ChatParserSpec, ChatMappingOptions } from "./chat/index.js";
export { ChatSession } from "./session/index.js";
export type { ChatStream, ChatChunk, ChatOptions, ChatResult, ChatSessionOptions, ChatStep, ChatTimings, ChatTool, ChatUsage, FinishReason, ToolExecuteContext } from "./session/index.js";
