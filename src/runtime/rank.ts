/**
 * `model.rank()`: reranking on llama.cpp's rank pooling. Each query/document pair is one sequence,
 * formatted as llama.cpp's server formats it, and the model's rank head (a classifier on the
 * pooled vector) gives its score. The pairs run on an embedding context of their own with pooling
 * "rank" (`embedding.ts`), so a model that both embeds and ranks keeps two contexts.
 */
import { defaultThreads } from "./cpu-threads.js";
import type { NativeModel } from "./binding-types.js";
import { Embedder, type PlannedEmbed } from "./embedding.js";
import { ContextOverflowError, NotARerankerError } from "./errors.js";
import { readGguf } from "./gguf/reader.js";
import { checkObject, checkOptionTable, describe, optInteger, optSignal } from "../validate/index.js";

/** Options of {@link Model.rank}. */
export interface RankOptions {
  /** Aborting rejects with an {@link AbortError}; the batch running stops at its next graph node. */
  signal?: AbortSignal;
  /** Most tokens of one formatted pair (and of one batch of pairs). Default min(training context, 512). */
  contextSize?: number;
  /** CPU threads of the ranking context. Default as contexts: `TOOLWRIGHT_THREADS`, else min(cores, 8). */
  threads?: number;
}

const RANK_OPTIONS = {
  signal: { check: optSignal },
  contextSize: { check: (v: unknown, name: string) => optInteger(v, name, 1, 1 << 20) },
  threads: { check: (v: unknown, name: string) => optInteger(v, name, 1, 1024) },
} as const;

const DEFAULT_CONTEXT = 512;
/** llama.cpp's `<arch>.pooling_type` ids, for messages. */
const POOLING_NAMES = ["none", "mean", "cls", "last", "rank"];
const RANK_POOLING = "4";

/**
 * Checks rank()'s query, documents and options.
 *
 * @example
 * planRank("a query", ["a", "b"], { contextSize: 256 }, 512);
 */
export function planRank(
  query: unknown,
  documents: unknown,
  options: unknown,
  trainContextSize: number,
): { query: string; documents: string[]; plan: PlannedEmbed } {
  if (typeof query !== "string") throw new TypeError(`Model.rank: query must be a string, got ${describe(query)}`);
  if (!Array.isArray(documents))
    throw new TypeError(`Model.rank: documents must be an array of strings, got ${describe(documents)}`);
  documents.forEach((d: unknown, i) => {
    if (typeof d !== "string") throw new TypeError(`Model.rank: documents[${i}] must be a string, got ${describe(d)}`);
  });
  const o = checkOptionTable(checkObject(options, "Model.rank: options"), RANK_OPTIONS, "Model.rank: options");
  const train = trainContextSize > 0 ? trainContextSize : DEFAULT_CONTEXT;
  return {
    query,
    documents: documents as string[],
    plan: {
      pooling: "rank",
      normalize: false,
      signal: o.signal,
      contextSize: o.contextSize ?? Math.min(train, DEFAULT_CONTEXT),
      threads: o.threads ?? defaultThreads(),
    },
  };
}

/** What formatting a pair needs of a model (a {@link Model} has it). */
export interface RankVocabulary {
  tokenize(text: string, options: { addSpecial: boolean; parseSpecial: boolean }): Int32Array;
  namedChatTemplate(name: string): string | null;
  readonly specialTokens: {
    readonly bos: number;
    readonly eos: number;
    readonly sep: number;
    readonly addBos: boolean;
    readonly addEos: boolean;
    readonly addSep: boolean;
  };
}

/**
 * The tokens a query/document pair is scored on, as llama.cpp's server builds them: the model's
 * rerank prompt (`tokenizer.chat_template.rerank`, with `{query}` and `{document}` filled in,
 * special tokens parsed) when it has one, else BOS query EOS SEP document EOS, each special token
 * only where the vocabulary adds it (EOS falls back to SEP; a BERT vocabulary gives
 * [CLS] query [SEP] document).
 *
 * @example
 * rankPairTokens(model, "what is a cat?", "A cat is a small feline."); // Int32Array [101, ..., 102, ...]
 */
export function rankPairTokens(model: RankVocabulary, query: string, document: string): Int32Array {
  const template = model.namedChatTemplate("rerank");
  if (template !== null) {
    // One pass, so a query that contains "{document}" stays as it is.
    const prompt = template.replace(/\{query\}|\{document\}/g, (slot) => (slot === "{query}" ? query : document));
    return model.tokenize(prompt, { addSpecial: false, parseSpecial: true });
  }
  const plain = { addSpecial: false, parseSpecial: false };
  const s = model.specialTokens;
  const eos = s.eos !== -1 ? s.eos : s.sep;
  const out: number[] = [];
  if (s.addBos) out.push(s.bos);
  out.push(...model.tokenize(query, plain));
  if (s.addEos) out.push(eos);
  if (s.addSep) out.push(s.sep);
  out.push(...model.tokenize(document, plain));
  if (s.addEos) out.push(eos);
  return Int32Array.from(out);
}

/** The files of a model: all parts of a split GGUF (`name-00001-of-00003.gguf`), else the one file. */
function modelFiles(path: string, metadata: Readonly<Record<string, string>>): string[] {
  const parts = Number(metadata["split.count"] ?? 1);
  const split = /^(.*)-\d{5}-of-(\d{5})\.gguf$/i.exec(path);
  if (parts <= 1 || !split) return [path];
  return Array.from({ length: parts }, (_, i) => `${split[1]}-${String(i + 1).padStart(5, "0")}-of-${split[2]}.gguf`);
}

/**
 * Why a model cannot rank, or undefined when it has a rank head: its pooling type must be rank and
 * it must have a classifier (llama.cpp otherwise scores with the first float of the pooled vector).
 *
 * @example
 * await rankHeadProblem("embedder.gguf", model.metadata); // "its pooling type is mean, not rank"
 */
export async function rankHeadProblem(
  path: string,
  metadata: Readonly<Record<string, string>>,
): Promise<string | undefined> {
  const arch = metadata["general.architecture"] ?? "";
  const pooling = metadata[`${arch}.pooling_type`];
  if (pooling === undefined) return `it names no pooling type (${arch}.pooling_type), so not rank`;
  if (pooling !== RANK_POOLING) return `its pooling type is ${POOLING_NAMES[Number(pooling)] ?? pooling}, not rank`;
  for (const file of modelFiles(path, metadata)) {
    const { tensors } = await readGguf(file);
    if (tensors.some((t) => t.name === "cls.weight" || t.name === "cls.output.weight")) return undefined;
  }
  return "it has no classifier (no cls or cls.output tensor)";
}

/** A model's ranking context and its rank-head check. @internal */
export class Ranker {
  readonly #embedder: Embedder;
  readonly #path: string;
  readonly #metadata: Readonly<Record<string, string>>;
  #problem: Promise<string | undefined> | undefined;

  constructor(model: () => NativeModel, path: string, metadata: Readonly<Record<string, string>>) {
    this.#embedder = new Embedder(model);
    this.#path = path;
    this.#metadata = metadata;
  }

  /** One score per document, in order; checks the rank head and every pair's length first. */
  async rank(model: RankVocabulary, query: string, documents: string[], plan: PlannedEmbed): Promise<number[]> {
    this.#problem ??= rankHeadProblem(this.#path, this.#metadata);
    const problem = await this.#problem;
    if (problem !== undefined)
      throw new NotARerankerError(`Model.rank: "${this.#path}" is not a reranker: ${problem}`, problem);
    const pairs = documents.map((d) => rankPairTokens(model, query, d));
    pairs.forEach((pair, i) => {
      if (pair.length > plan.contextSize)
        throw new ContextOverflowError(
          `Model.rank: documents[${i}] with the query has ${pair.length} tokens, more than the ranking context ` +
            `holds (contextSize ${plan.contextSize}); pass a larger contextSize`,
          pair.length,
          plan.contextSize,
        );
    });
    const scores = await this.#embedder.embedTokens(pairs, plan, { method: "Model.rank", label: "documents" });
    return scores.map((v) => v[0] ?? Number.NaN);
  }

  dispose(): void {
    this.#embedder.dispose();
  }
}
