/**
 * OpenAI's embeddings API over a model's `embed()`: `input` as a string, strings, token ids or
 * arrays of token ids (decoded to text, which `embed()` takes), `encoding_format` "float" or
 * "base64" (little-endian float32, as OpenAI sends), `usage.prompt_tokens`. Requests toolwright
 * cannot honour fail with an OpenAI-style 400 that names the parameter, as chat requests do.
 */
import { describe } from "../validate/index.js";
import { ChatCompletionError, invalid, toChatCompletionError, unsupported } from "./errors.js";
import type { CreateEmbeddingResponse } from "./types.js";

/** What embeddings need of a model: a `ChatModel` (from `loadModel`) has them all. */
export interface EmbeddingBackend {
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
  tokenize(text: string): ArrayLike<number>;
  detokenize(tokens: ArrayLike<number>): string;
  /** `embeddingSize`: the length of each vector (what `dimensions` may ask for). */
  readonly info: { readonly embeddingSize: number };
}

/** OpenAI's limit on the inputs of one request. */
const MAX_INPUTS = 2048;
const KNOWN = ["input", "model", "encoding_format", "dimensions", "user"];

/** One input: a text, or token ids to decode. */
type Input = string | number[];

const isTokenList = (v: unknown): v is number[] =>
  Array.isArray(v) && v.every((t) => typeof t === "number" && Number.isInteger(t) && t >= 0);

function inputsOf(input: unknown): Input[] {
  if (input === undefined || input === null) throw invalid("input", "Missing required parameter: 'input'.");
  if (typeof input === "string") return [input];
  if (!Array.isArray(input))
    throw invalid(
      "input",
      `Invalid type for 'input': expected a string, an array of strings, an array of token ids or an array of ` +
        `arrays of token ids, but got ${describe(input)}.`,
    );
  if (input.length === 0) throw invalid("input", "Invalid 'input': empty array. Expected at least one input.");
  // An array of numbers is one input of token ids, as OpenAI reads it.
  if (input.every((v) => typeof v === "number")) {
    if (!isTokenList(input)) throw invalid("input", "Invalid 'input': token ids must be integers >= 0.");
    return [input];
  }
  if (input.length > MAX_INPUTS)
    throw invalid("input", `Invalid 'input': ${input.length} inputs; at most ${MAX_INPUTS} are allowed.`);
  return input.map((v: unknown, i) => {
    if (typeof v === "string" || isTokenList(v)) return v;
    throw invalid(
      `input[${i}]`,
      `Invalid type for 'input[${i}]': expected a string or an array of token ids, but got ${describe(v)}.`,
    );
  });
}

/** Mapped embedding parameters. */
export interface EmbeddingRequest {
  inputs: Input[];
  base64: boolean;
  /** The `model` the request named. */
  model: string;
}

/**
 * Checks OpenAI embedding parameters (parsed JSON or typed).
 *
 * @throws {ChatCompletionError} a 400 naming the parameter that is wrong or not supported.
 * @example
 * toEmbeddingRequest({ model: "local", input: ["a", "b"] }).inputs; // ["a", "b"]
 */
export function toEmbeddingRequest(params: unknown, embeddingSize: number): EmbeddingRequest {
  if (params === null || typeof params !== "object" || Array.isArray(params))
    throw invalid(null, `The request body must be a JSON object, got ${describe(params)}.`);
  const p = params as Record<string, unknown>;
  for (const key of Object.keys(p))
    if (!KNOWN.includes(key)) throw invalid(key, `Unrecognized request argument supplied: ${key}`);
  if (typeof p.model !== "string") throw invalid("model", "Missing required parameter: 'model'.");
  const format = p.encoding_format ?? "float";
  if (format !== "float" && format !== "base64")
    throw invalid(
      "encoding_format",
      `Invalid value for 'encoding_format': ${JSON.stringify(format)}. Supported values are: "float" and "base64".`,
    );
  // The model's vectors have one size; OpenAI's shortened vectors are a property of its own models.
  if (p.dimensions !== undefined && p.dimensions !== null && p.dimensions !== embeddingSize)
    throw unsupported(
      "dimensions",
      `Invalid 'dimensions': ${JSON.stringify(p.dimensions)}: this model's embeddings have ${embeddingSize} ` +
        `dimensions.`,
    );
  return { inputs: inputsOf(p.input), base64: format === "base64", model: p.model };
}

function base64Of(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString("base64");
}

/**
 * Embeds the request's inputs and answers in OpenAI's shape: the vectors in input order, and the
 * prompt tokens (token inputs count as given, texts as the model tokenizes them).
 *
 * @example
 * const response = await createEmbeddings(model, { model: "local", input: "a cat" }, "local");
 */
export async function createEmbeddings(
  backend: EmbeddingBackend,
  params: unknown,
  modelId: string,
  signal?: AbortSignal,
): Promise<CreateEmbeddingResponse> {
  const request = toEmbeddingRequest(params, backend.info.embeddingSize);
  const texts = request.inputs.map((input, i) => {
    const param = request.inputs.length === 1 ? "input" : `input[${i}]`;
    let text: string;
    try {
      text = typeof input === "string" ? input : backend.detokenize(input);
    } catch (e) {
      // Token ids are this model's: one beyond its vocabulary is the request's fault.
      throw invalid(param, `Invalid '${param}': ${(e as Error).message}`);
    }
    if (text === "") throw invalid(param, `Invalid '${param}': an empty input has nothing to embed.`);
    return text;
  });
  const promptTokens = request.inputs.reduce(
    (sum, input) => sum + (typeof input === "string" ? backend.tokenize(input).length : input.length),
    0,
  );
  let vectors: Float32Array[];
  try {
    vectors = await backend.embed(texts, signal ? { signal } : {});
  } catch (e) {
    const error = toChatCompletionError(e);
    // A text longer than the embedding context: the input is at fault, not messages.
    if (error.openaiCode === "context_length_exceeded")
      throw new ChatCompletionError(error.message, { param: "input", openaiCode: error.openaiCode, cause: e });
    throw error;
  }
  return {
    object: "list",
    data: vectors.map((v, index) => ({
      object: "embedding",
      index,
      embedding: request.base64 ? (base64Of(v) as unknown as number[]) : Array.from(v),
    })),
    model: modelId,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
