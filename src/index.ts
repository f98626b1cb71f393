/**
 * toolwright: run GGUF language models locally, with tool calling for any model. The root
 * export is what an app uses: load a model, chat with tools, stream, generate; the errors it may
 * catch; the shared OpenAI-shaped types. The layers below have subpath exports of their own:
 * `toolwright/chat` (params and parsers), `toolwright/analysis`, `toolwright/template`,
 * `toolwright/grammar`, `toolwright/peg`, `toolwright/gguf` and `toolwright/testing`.
 *
 * @example
 * import { loadModel } from "toolwright";
 * const model = await loadModel("model.gguf");
 * const { message } = await model.chat({ messages: [{ role: "user", content: "Hi" }] });
 *
 * @module toolwright
 */
export type * from "./types.js";
export { ToolwrightError, ERROR_CODES, type ToolwrightErrorCode } from "./errors.js";
export { loadModel, ChatModel, ChatSession, defineTool } from "./session/index.js";
export type {
  ChatStream,
  ChatChunk,
  ChatOptions,
  ChatResult,
  ChatSessionOptions,
  ChatStep,
  ChatTimings,
  ChatTool,
  ChatToolFunction,
  ChatUsage,
  ToolArguments,
  FromJsonSchema,
  ToolSpec,
  FinishReason,
  ResponseFormatError,
  ToolCallError,
  ToolExecuteContext,
} from "./session/index.js";
export {
  Model,
  TokenAttribute,
  listDevices,
  Context,
  Generation,
  LoraAdapter,
  LoraError,
  SavedStateError,
  AbortError,
  ModelLoadError,
  NativeAddonError,
  loadedAddon,
  addonVariants,
  serveRpc,
} from "./runtime/index.js";
export {
  pullModel,
  ModelDownloadError,
  hfCacheDir,
  modelCacheDir,
  isHfModelRef,
  parseHfModelRef,
} from "./runtime/index.js";
export { ContextOverflowError, NotARerankerError, estimateMemory, MediaError, MediaPrompt } from "./runtime/index.js";
export { grammarCacheStats, clearGrammarCache, setGrammarCacheLimit } from "./runtime/index.js";
export type * from "./runtime/index.js";
export { ChatTemplate, TemplateError, TemplateRuntimeError, TemplateSyntaxError } from "./template/index.js";
export type {
  ChatTemplateOptions,
  RenderInput,
  TemplateCaps,
  CompatMode,
  RenderMode,
  RenderResult,
} from "./template/index.js";
export { TemplateAnalysisError } from "./analysis/index.js";
export type { TemplateAnalysis } from "./analysis/index.js";
export { readGgufMetadata, GgufError } from "./runtime/gguf/index.js";
export { SchemaError, GbnfSyntaxError } from "./grammar/index.js";
