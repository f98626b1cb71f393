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

/** OpenAI's `ChatCompletion`, whose message may carry `reasoning_content`. */
export type ReasoningChatCompletion = ChatCompletion & {
  choices: Array<ChatCompletion.Choice & { message: ReasoningChatCompletionMessage }>;
};

/** OpenAI's `ChatCompletionChunk`, whose delta may carry `reasoning_content`. */
export type ReasoningChatCompletionChunk = ChatCompletionChunk & {
  choices: Array<
    ChatCompletionChunk.Choice & { delta: ChatCompletionChunk.Choice.Delta & { reasoning_content?: string } }
  >;
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
