/**
 * toolwright: run GGUF language models locally, with tool calling for any model.
 *
 * @example
 * import { loadModel } from "toolwright";
 * const model = await loadModel("model.gguf");
 */
export type * from "./types.js";
export * from "./runtime/index.js";
export { ChatTemplate, TemplateError, TemplateRuntimeError, TemplateSyntaxError } from "./template/index.js";
export type { ChatTemplateOptions, RenderInput, TemplateCaps } from "./template/index.js";
export { analyzeTemplate, TemplateAnalysisError } from "./analysis/index.js";
export type { TemplateAnalysis } from "./analysis/index.js";
export { readGguf, readGgufMetadata, GgufError, createTestModel } from "./runtime/gguf/index.js";
