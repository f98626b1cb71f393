/**
 * The rerank API of llama-server, Jina and Cohere over a model's `rank()`: a body `{ model, query,
 * documents, top_n?, return_documents? }` (documents as strings or `{ text }` objects) answered
 * with `{ model, object: "list", results: [{ index, relevance_score, document? }], usage }`,
 * results sorted by score, best first, as llama-server sends them. Bad bodies are OpenAI-style
 * 400s that name the field, as the other routes' are.
 */
import { describe } from "../validate/index.js";
import { ChatCompletionError, invalid, toChatCompletionError } from "./errors.js";

/** What reranking needs of a model: a `ChatModel` (from `loadModel`) of a reranker GGUF has it. */
export interface RerankBackend {
  rank(query: string, documents: readonly string[], options?: { signal?: AbortSignal }): Promise<number[]>;
  /** The tokens a pair is scored on: their count is the request's usage. */
  rankTokens(query: string, document: string): ArrayLike<number>;
}

/** A rerank request's body. */
export interface RerankCreateParams {
  /** One of the server's model names; the loaded model when left out. */
  model?: string;
  query: string;
  documents: Array<string | { text: string }>;
  /** Return the best `top_n` results only. Default: all. */
  top_n?: number;
  /** Include each result's document (`{ text }`). Default false. */
  return_documents?: boolean;
}

/** One scored document. */
export interface RerankResult {
  /** The document's position in the request's `documents`. */
  index: number;
  /** The model's score: higher is more relevant (not a probability unless the model makes it one). */
  relevance_score: number;
  document?: { text: string };
}

/** The response, as llama-server sends it. */
export interface RerankResponse {
  model: string;
  object: "list";
  /** Best first. */
  results: RerankResult[];
  usage: { prompt_tokens: number; total_tokens: number };
}

const KNOWN = ["model", "query", "documents", "top_n", "return_documents"];

function documentsOf(documents: unknown): string[] {
  if (!Array.isArray(documents) || documents.length === 0)
    throw invalid(
      "documents",
      `Invalid 'documents': expected a non-empty array of strings or { text } objects, got ${describe(documents)}.`,
    );
  return documents.map((d: unknown, i) => {
    if (typeof d === "string") return d;
    const text = typeof d === "object" && d !== null ? (d as { text?: unknown }).text : undefined;
    if (typeof text === "string") return text;
    throw invalid(
      `documents[${i}]`,
      `Invalid type for 'documents[${i}]': expected a string or a { text } object, got ${describe(d)}.`,
    );
  });
}

/** Checked rerank parameters. */
export interface RerankRequest {
  model: string;
  query: string;
  documents: string[];
  topN: number;
  returnDocuments: boolean;
}

/**
 * Checks a rerank body (parsed JSON or typed).
 *
 * @throws {ChatCompletionError} a 400 naming the field that is wrong or not known.
 * @example
 * toRerankRequest({ model: "local", query: "q", documents: ["a", "b"], top_n: 1 }).topN; // 1
 */
export function toRerankRequest(params: unknown): RerankRequest {
  if (params === null || typeof params !== "object" || Array.isArray(params))
    throw invalid(null, `The request body must be a JSON object, got ${describe(params)}.`);
  const p = params as Record<string, unknown>;
  for (const key of Object.keys(p))
    if (!KNOWN.includes(key)) throw invalid(key, `Unrecognized request argument supplied: ${key}`);
  if (typeof p.model !== "string") throw invalid("model", "Missing required parameter: 'model'.");
  if (typeof p.query !== "string")
    throw invalid("query", `Invalid 'query': expected a string, got ${describe(p.query)}.`);
  const documents = documentsOf(p.documents);
  const topN = p.top_n ?? documents.length;
  if (typeof topN !== "number" || !Number.isInteger(topN) || topN < 1)
    throw invalid("top_n", `Invalid 'top_n': expected an integer >= 1, got ${describe(p.top_n)}.`);
  const returnDocuments = p.return_documents ?? false;
  if (typeof returnDocuments !== "boolean")
    throw invalid(
      "return_documents",
      `Invalid 'return_documents': expected a boolean, got ${describe(returnDocuments)}.`,
    );
  return { model: p.model, query: p.query, documents, topN: Math.min(topN, documents.length), returnDocuments };
}

/** What rank() threw, as the request's fault where it is: a model that cannot rank, a document too long. */
function rerankError(e: unknown): ChatCompletionError {
  const code = (e as { code?: unknown } | null)?.code;
  const message = e instanceof Error ? e.message : String(e);
  if (code === "TOOLWRIGHT_NOT_A_RERANKER")
    return new ChatCompletionError(message, { param: "model", openaiCode: "model_not_supported", cause: e });
  const error = toChatCompletionError(e);
  if (error.openaiCode === "context_length_exceeded") {
    const index = /documents\[(\d+)\]/.exec(message)?.[1];
    return new ChatCompletionError(message, {
      param: index === undefined ? "documents" : `documents[${index}]`,
      openaiCode: error.openaiCode,
      cause: e,
    });
  }
  return error;
}

/**
 * Scores the request's documents against its query and answers as llama-server does: the best
 * `top_n` results first, each with its index in the request, and the tokens of every pair as usage.
 *
 * @example
 * import { createOpenAIClient } from "toolwright/openai";
 * const client = createOpenAIClient(reranker);
 * const { results } = await client.rerank.create({ model: "local", query: "a cat", documents: ["cat", "car"] });
 */
export async function createRerank(
  backend: RerankBackend,
  params: unknown,
  modelId: string,
  signal?: AbortSignal,
): Promise<RerankResponse> {
  const request = toRerankRequest(params);
  let scores: number[];
  try {
    scores = await backend.rank(request.query, request.documents, signal ? { signal } : {});
  } catch (e) {
    throw rerankError(e);
  }
  const tokens = request.documents.reduce((sum, d) => sum + backend.rankTokens(request.query, d).length, 0);
  const results: RerankResult[] = scores
    .map((score, index) => ({
      index,
      relevance_score: score,
      ...(request.returnDocuments ? { document: { text: request.documents[index]! } } : {}),
    }))
    .sort((a, b) => b.relevance_score - a.relevance_score)
    .slice(0, request.topN);
  return {
    model: modelId,
    object: "list",
    results,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
