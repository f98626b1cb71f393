/**
 * The in-process OpenAI client: `chat.completions.create(params)` with OpenAI's own parameter
 * and result types, over a loaded model's `chat()` / `streamChat()`. The request goes through
 * the one mapping (`request.ts`) and back (`response.ts`); the HTTP server uses this client too.
 */
import { basename } from "node:path";
import { AbortError } from "../runtime/index.js";
import type { ChatOptions, ChatResult, ChatStream } from "../session/index.js";
import { createEmbeddings, type EmbeddingBackend } from "./embeddings.js";
import { ChatCompletionError, toChatCompletionError } from "./errors.js";
import { createRerank, type RerankBackend, type RerankCreateParams, type RerankResponse } from "./rerank.js";
import { toChatOptions, type RequestLimits } from "./request.js";
import { ChunkMapper, completionMeta, toChatCompletion } from "./response.js";
import type {
  CreateEmbeddingResponse,
  EmbeddingCreateParams,
  ChatCompletionCreateParams,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ReasoningChatCompletion,
  ReasoningChatCompletionChunk,
  ToolwrightChatCompletionExtensions,
} from "./types.js";

/**
 * What the client needs of a model: a `ChatModel` (from `loadModel`) or a `ChatSession`. The
 * embeddings API needs a model's `embed`, `tokenize`, `detokenize` and `info` too, the rerank API
 * its `rank` and `rankTokens` (a `ChatModel` has them).
 */
export interface ChatBackend extends Partial<EmbeddingBackend>, Partial<RerankBackend> {
  chat(options: ChatOptions): Promise<ChatResult>;
  streamChat(options: ChatOptions): ChatStream;
  /** The model file: its base name is the default model id. */
  readonly path?: string;
}

/** Options of {@link createOpenAIClient}. */
export interface OpenAIClientOptions extends RequestLimits {
  /** The `model` responses carry and `models.list()` names. Default: the file's base name without ".gguf". */
  modelId?: string;
}

/** Per-request options, as OpenAI's SDK takes them. */
export interface ChatRequestOptions {
  /** Aborting ends the request: `create` rejects with an AbortError; a stream being read just ends. */
  signal?: AbortSignal | null | undefined;
}

/**
 * A streamed completion: iterate it for OpenAI chunks. `controller.abort()` (or the request's
 * signal) ends it: the iteration stops without an error, as with OpenAI's SDK. Iterate it or
 * abort it: a stream left unread keeps the model's turn.
 */
export interface ChatCompletionStream extends AsyncIterable<ReasoningChatCompletionChunk> {
  readonly controller: AbortController;
}

/** OpenAI's model object, as `models.list()` returns it. */
export interface ModelInfoObject {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
}

/** The client {@link createOpenAIClient} returns: the part of OpenAI's client toolwright serves. */
export interface OpenAIClient {
  chat: {
    completions: {
      create(
        body: ChatCompletionCreateParamsNonStreaming & ToolwrightChatCompletionExtensions,
        options?: ChatRequestOptions,
      ): Promise<ReasoningChatCompletion>;
      create(
        body: ChatCompletionCreateParamsStreaming & ToolwrightChatCompletionExtensions,
        options?: ChatRequestOptions,
      ): Promise<ChatCompletionStream>;
      create(
        body: ChatCompletionCreateParams & ToolwrightChatCompletionExtensions,
        options?: ChatRequestOptions,
      ): Promise<ReasoningChatCompletion | ChatCompletionStream>;
    };
  };
  embeddings: {
    /** OpenAI's embeddings API over the model's `embed()`; a 404 when the backend cannot embed (a ChatSession). */
    create(body: EmbeddingCreateParams, options?: ChatRequestOptions): Promise<CreateEmbeddingResponse>;
  };
  /**
   * Not OpenAI's: llama-server's (and Jina's, Cohere's) rerank API over the model's `rank()`, which
   * the server serves as `/v1/rerank`; a 404 when the backend cannot rank (a ChatSession).
   */
  rerank: {
    create(body: RerankCreateParams, options?: ChatRequestOptions): Promise<RerankResponse>;
  };
  models: { list(): Promise<{ object: "list"; data: ModelInfoObject[] }> };
  /** The model id responses carry. */
  readonly modelId: string;
}

/**
 * An AbortSignal that aborts when either does (AbortSignal.any is Node >= 20.3), and a release
 * that unhooks it from the caller's signal, which may outlive many requests.
 */
function eitherSignal(a: AbortSignal, b: AbortSignal | null | undefined): { signal: AbortSignal; release: () => void } {
  if (!b) return { signal: a, release: () => undefined };
  const both = new AbortController();
  const onA = () => both.abort(a.reason);
  const onB = () => both.abort(b.reason);
  if (a.aborted) onA();
  else if (b.aborted) onB();
  else {
    a.addEventListener("abort", onA, { once: true });
    b.addEventListener("abort", onB, { once: true });
  }
  return {
    signal: both.signal,
    release: () => {
      a.removeEventListener("abort", onA);
      b.removeEventListener("abort", onB);
    },
  };
}

const aborted = () => new AbortError("chat.completions.create: the request was aborted");

/**
 * An OpenAI-shaped client over a loaded model, in process: swap `new OpenAI()` for it and keep
 * the code. Parameters and results are OpenAI's types (the `openai` package, types only);
 * requests toolwright cannot honour reject with a {@link ChatCompletionError} (status 400).
 *
 * @example
 * import { loadModel } from "toolwright";
 * import { createOpenAIClient } from "toolwright/openai";
 * const client = createOpenAIClient(await loadModel("model.gguf"));
 * const messages = [{ role: "user" as const, content: "Hi" }];
 * const completion = await client.chat.completions.create({ model: "local", messages });
 * console.log(completion.choices[0].message.content);
 * for await (const chunk of await client.chat.completions.create({ model: "local", messages, stream: true }))
 *   process.stdout.write(chunk.choices[0]?.delta.content ?? "");
 */
export function createOpenAIClient(model: ChatBackend, options: OpenAIClientOptions = {}): OpenAIClient {
  if (
    model === null ||
    typeof model !== "object" ||
    typeof model.chat !== "function" ||
    typeof model.streamChat !== "function"
  ) {
    throw new TypeError("createOpenAIClient: model must be a ChatModel (from loadModel) or a ChatSession");
  }
  if (options.modelId !== undefined && (typeof options.modelId !== "string" || options.modelId === "")) {
    throw new TypeError(
      `createOpenAIClient: options.modelId must be a non-empty string, got ${JSON.stringify(options.modelId)}`,
    );
  }
  if (options.maxTokens !== undefined && (!Number.isInteger(options.maxTokens) || options.maxTokens < 1)) {
    throw new RangeError(
      `createOpenAIClient: options.maxTokens must be a positive integer, got ${JSON.stringify(options.maxTokens)}`,
    );
  }
  const modelId = options.modelId ?? (model.path ? basename(model.path).replace(/\.gguf$/i, "") : "toolwright");
  const limits: RequestLimits = options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {};
  const created = Math.floor(Date.now() / 1000);

  async function complete(
    body: unknown,
    request: ChatRequestOptions = {},
  ): Promise<ReasoningChatCompletion | ChatCompletionStream> {
    const mapped = toChatOptions(body, limits);
    const controller = new AbortController();
    const { signal, release } = eitherSignal(controller.signal, request.signal);
    if (signal.aborted) throw aborted();
    const chatOptions: ChatOptions = { ...mapped.options, signal };
    const meta = completionMeta(modelId);
    if (!mapped.stream) {
      let result: ChatResult;
      try {
        result = await model.chat(chatOptions);
      } catch (e) {
        throw signal.aborted ? aborted() : toChatCompletionError(e);
      } finally {
        release();
      }
      if (result.finishReason === "abort" || signal.aborted) throw aborted();
      return toChatCompletion(result, meta);
    }
    try {
      return await openStream(
        // OpenAI streams a call's arguments as they are written; so does llama-server.
        model.streamChat({ ...chatOptions, streamCalls: true }),
        new ChunkMapper(meta, mapped.includeUsage),
        controller,
        signal,
        release,
      );
    } catch (e) {
      release();
      throw e;
    }
  }

  async function embed(body: unknown, request: ChatRequestOptions = {}): Promise<CreateEmbeddingResponse> {
    if (!canEmbed(model))
      throw new ChatCompletionError("This model does not serve embeddings: pass a ChatModel (from loadModel).", {
        status: 404,
        openaiCode: "unknown_url",
      });
    const signal = request.signal ?? undefined;
    if (signal?.aborted) throw aborted();
    try {
      return await createEmbeddings(model, body, modelId, signal);
    } catch (e) {
      throw signal?.aborted ? aborted() : e;
    }
  }

  async function rerank(body: unknown, request: ChatRequestOptions = {}): Promise<RerankResponse> {
    if (typeof model.rank !== "function" || typeof model.rankTokens !== "function")
      throw new ChatCompletionError("This model does not serve reranking: pass a ChatModel (from loadModel).", {
        status: 404,
        openaiCode: "unknown_url",
      });
    const signal = request.signal ?? undefined;
    if (signal?.aborted) throw aborted();
    try {
      return await createRerank(model as RerankBackend, body, modelId, signal);
    } catch (e) {
      throw signal?.aborted ? aborted() : e;
    }
  }

  return {
    modelId,
    chat: { completions: { create: complete as OpenAIClient["chat"]["completions"]["create"] } },
    embeddings: { create: embed },
    rerank: { create: rerank },
    models: {
      list: async () => ({ object: "list", data: [{ id: modelId, object: "model", created, owned_by: "toolwright" }] }),
    },
  };
}

function canEmbed(model: ChatBackend): model is ChatBackend & EmbeddingBackend {
  return (
    typeof model.embed === "function" &&
    typeof model.tokenize === "function" &&
    typeof model.detokenize === "function" &&
    typeof model.info?.embeddingSize === "number"
  );
}

/**
 * Starts the stream and reads up to its first chunk, so that a request that fails before any
 * output (a prompt over the context, a template that refuses it) rejects `create` itself, as an
 * HTTP error status would.
 */
async function openStream(
  stream: ChatStream,
  mapper: ChunkMapper,
  controller: AbortController,
  signal: AbortSignal,
  release: () => void,
): Promise<ChatCompletionStream> {
  const source = stream[Symbol.asyncIterator]();
  let first: IteratorResult<Parameters<ChunkMapper["map"]>[0]>;
  try {
    first = await source.next();
  } catch (e) {
    throw signal.aborted ? aborted() : toChatCompletionError(e);
  }
  let used = false;
  // A stream dropped unread would hold the model's turn: aborting it before iterating frees it.
  signal.addEventListener(
    "abort",
    () => {
      if (used) return;
      void source.return?.(undefined);
      release();
    },
    { once: true },
  );
  async function* chunks(): AsyncGenerator<ReasoningChatCompletionChunk> {
    try {
      yield mapper.start();
      // An aborted stream ends quietly, as OpenAI's SDK ends one.
      for (let next = first; !next.done; next = await source.next()) {
        if (next.value.choices[0].finish_reason === "abort" || signal.aborted) return;
        yield* mapper.map(next.value);
      }
      if (signal.aborted) return;
      yield* mapper.finish();
    } catch (e) {
      if (signal.aborted) return;
      throw toChatCompletionError(e);
    } finally {
      // A consumer that stops early ends the generation.
      await source.return?.(undefined);
      release();
    }
  }
  return {
    controller,
    [Symbol.asyncIterator]() {
      if (used) throw new Error("chat.completions.create: a stream can be iterated only once");
      used = true;
      return chunks();
    },
  };
}
