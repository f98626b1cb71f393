/**
 * The OpenAI types toolwright's OpenAI-compatible surface speaks: OpenAI's own, from the
 * `openai` package (an optional peer dependency, imported for types only), plus the one field
 * OpenAI-compatible servers add, `reasoning_content`.
 */
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessage,
} from "openai/resources/chat/completions";
import type { CreateEmbeddingResponse, EmbeddingCreateParams } from "openai/resources/embeddings";

export type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessage,
  CreateEmbeddingResponse,
  EmbeddingCreateParams,
};

/** The assistant's message, with its reasoning as llama-server returns it. */
export type ReasoningChatCompletionMessage = ChatCompletionMessage & { reasoning_content?: string };

/**
 * How long the request took, in llama-server's `timings` shape: the prompt tokens evaluated (`prompt_n`, after
 * `cache_n` reused from the cache) and the time to the first token, then the tokens generated and the time from
 * the first token to the last.
 */
export interface CompletionTimings {
  cache_n: number;
  prompt_n: number;
  prompt_ms: number;
  prompt_per_token_ms: number;
  prompt_per_second: number;
  predicted_n: number;
  predicted_ms: number;
  predicted_per_token_ms: number;
  predicted_per_second: number;
}

/** OpenAI's `ChatCompletion`, whose message may carry `reasoning_content`, with llama-server's `timings`. */
export type ReasoningChatCompletion = ChatCompletion & {
  choices: Array<ChatCompletion.Choice & { message: ReasoningChatCompletionMessage }>;
  timings?: CompletionTimings;
};

/**
 * OpenAI's `ChatCompletionChunk`, whose delta may carry `reasoning_content`; the chunk with the finish reason
 * carries llama-server's `timings`.
 */
export type ReasoningChatCompletionChunk = ChatCompletionChunk & {
  choices: Array<
    ChatCompletionChunk.Choice & { delta: ChatCompletionChunk.Choice.Delta & { reasoning_content?: string } }
  >;
  timings?: CompletionTimings;
};

/**
 * The request parameters, OpenAI's own, plus the extensions llama-server accepts:
 * `chat_template_kwargs` (extra template variables), `top_k` and `min_p`.
 */
export type ToolwrightChatCompletionExtensions = {
  chat_template_kwargs?: Record<string, unknown>;
  top_k?: number;
  min_p?: number;
};
