/**
 * The model an app loads: the runtime's {@link Model} with chat requests on top. The runtime
 * knows nothing of chat; this layer composes the two.
 */
import type { NativeModel } from "../runtime/binding-types.js";
import { Model } from "../runtime/model.js";
import { loadModelAs, type LoadModelOptions } from "../runtime/load-model.js";
import { ChatSession, type ChatStream } from "./session.js";
import type { ChatOptions, ChatResult } from "./types.js";

/**
 * Requests {@link ChatModel.chat} runs at once (one sequence each in its context; more wait for a
 * free one). Each sequence has its own KV cache of the context size.
 */
const CHAT_SEQUENCES = 4;

/**
 * A loaded model with `chat()` and `streamChat()` on its own chat context.
 *
 * @example
 * import { loadModel } from "toolwright";
 * const model = await loadModel("model.gguf");
 * const { message } = await model.chat({ messages: [{ role: "user", content: "Hi" }] });
 */
export class ChatModel extends Model {
  /**
   * The session behind {@link ChatModel.chat}: one KV cache with CHAT_SEQUENCES sequences,
   * so concurrent requests run together and a conversation's turns reuse their prefix.
   */
  #session: ChatSession | undefined;

  /** @internal Use {@link loadModel}. */
  constructor(native: NativeModel, path: string) {
    super(native, path);
  }

  /**
   * Runs a chat request (template, grammar, tool calls, tool runner) on the model's own chat
   * context: consecutive turns of a conversation only evaluate the new part of the prompt, and
   * concurrent requests (up to 4) are decoded together in one batch.
   *
   * @example
   * const { message, finishReason } = await model.chat({
   *   messages: [{ role: "user", content: "Weather in Paris?" }],
   *   tools: [{
   *     type: "function",
   *     function: {
   *       name: "get_weather",
   *       parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
   *     },
   *     execute: async ({ city }) => ({ city, temperature: 21 }),
   *   }],
   * });
   */
  chat(options: ChatOptions): Promise<ChatResult> {
    return this.#chatSession().chat(options);
  }

  /**
   * {@link ChatModel.chat} streamed as OpenAI-style chunks; `stream.result` holds the final result.
   *
   * @example
   * const stream = model.streamChat({ messages: [{ role: "user", content: "Hi" }] });
   * for await (const chunk of stream) process.stdout.write(chunk.choices[0].delta.content ?? "");
   */
  streamChat(options: ChatOptions): ChatStream {
    return this.#chatSession().streamChat(options);
  }

  #chatSession(): ChatSession {
    this.native; // throws when disposed
    this.#session ??= new ChatSession(this, { context: { sequences: CHAT_SEQUENCES } });
    return this.#session;
  }
}

/**
 * Loads a GGUF model file on a worker thread, ready for chat requests. `path` may be an `hf:`
 * reference (`hf:OWNER/REPO/FILE.gguf`, `hf:OWNER/REPO:QUANT`): the file is downloaded into the
 * model cache first, or taken from it (see `pullModel`; `options.download` says how).
 *
 * @throws {ModelLoadError} naming the path and the reason (missing file, directory, not GGUF, malformed).
 * @throws {ModelDownloadError} when an `hf:` model cannot be downloaded (offline, not found, ...).
 * @throws {AbortError} when `signal` aborts first.
 * @example
 * import { loadModel } from "toolwright";
 * const model = await loadModel("qwen2.5-0.5b-instruct-q8_0.gguf", { onProgress: (p) => console.log(p) });
 * const { message } = await model.chat({ messages: [{ role: "user", content: "Hi" }] });
 */
export function loadModel(path: string, options: LoadModelOptions = {}): Promise<ChatModel> {
  return loadModelAs((native, file) => new ChatModel(native, file), path, options);
}
