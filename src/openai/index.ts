/**
 * `toolwright/openai`: OpenAI's chat-completions API over a local model, in process, with
 * OpenAI's own types (the `openai` package, an optional peer dependency, for types only). The
 * request mapping and response shapes here are the ones `toolwright serve` speaks over HTTP.
 *
 * @example
 * import { loadModel } from "toolwright";
 * import { createOpenAIClient } from "toolwright/openai";
 * const openai = createOpenAIClient(await loadModel("model.gguf"));
 * const completion = await openai.chat.completions.create({
 *   model: "local",
 *   messages: [{ role: "user", content: "Hi" }],
 * });
 *
 * @module toolwright/openai
 */
export { createOpenAIClient } from "./client.js";
export type {
  ChatBackend,
  ChatCompletionStream,
  ChatRequestOptions,
  ModelInfoObject,
  OpenAIClient,
  OpenAIClientOptions,
} from "./client.js";
export type { EmbeddingBackend } from "./embeddings.js";
export type { RerankBackend, RerankCreateParams, RerankResponse, RerankResult } from "./rerank.js";
export { ChatCompletionError, toChatCompletionError } from "./errors.js";
export type { ChatCompletionErrorBody, ChatCompletionErrorType } from "./errors.js";
export type * from "./types.js";
