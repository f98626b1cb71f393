/**
 * `toolwright/ai-sdk`: a Vercel AI SDK provider (`@ai-sdk/provider`'s LanguageModelV3, an
 * optional peer dependency) over a loaded model.
 *
 * @example
 * import { loadModel } from "toolwright";
 * import { toolwright } from "toolwright/ai-sdk";
 * // generateText from the "ai" package
 * const { text } = await generateText({ model: toolwright(await loadModel("model.gguf")), prompt: "Hi" });
 *
 * @module toolwright/ai-sdk
 */
export { toolwright } from "./language-model.js";
export type { ToolwrightModelSettings } from "./language-model.js";
export type { ToolwrightProviderOptions } from "./prompt.js";
