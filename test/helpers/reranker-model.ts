/**
 * Random-weight models for the reranking tests: a BERT cross-encoder with llama.cpp's rank head
 * (pooling type rank, the `cls` and `cls.output` classifier tensors), or the same encoder without
 * the head (an embedding model, pooling mean), from a real WordPiece vocabulary
 * (deps/llama.cpp/models/ggml-vocab-bert-bge.gguf); and a decoder reranker shaped like Qwen3-Reranker.
 */
import { GgmlType } from "../../src/runtime/gguf/ggml-types.js";
import { Xoshiro128 } from "../../src/runtime/gguf/random.js";
import { readGguf } from "../../src/runtime/gguf/reader.js";
import { readTensorBytes } from "../../src/runtime/gguf/tensor-data.js";
import type { GgufValue } from "../../src/runtime/gguf/types.js";
import { writeGguf, type GgufTensorSpec } from "../../src/runtime/gguf/writer.js";

/** llama.cpp's pooling type ids (`<arch>.pooling_type`). */
const POOLING = { mean: 1, rank: 4 } as const;

export interface BertModelOptions {
  /** "rank": pooling rank with the classifier tensors; "none": an embedding model (pooling mean, no head). */
  head: "rank" | "none";
  /** Also write `tokenizer.chat_template.rerank`, the prompt llama.cpp's server fills with {query} and {document}. */
  rerankTemplate?: string;
  /** Default 32. */
  embeddingLength?: number;
  /** Default 2. */
  layers?: number;
  /** Default 1. */
  seed?: number;
}

/**
 * Writes a BERT model with the tokenizer of `vocabFile` (a BERT vocabulary) to `outPath`.
 *
 * @example
 * await writeBertModel(vocabPath("bert-bge"), "reranker.gguf", { head: "rank" });
 */
export async function writeBertModel(vocabFile: string, outPath: string, options: BertModelOptions): Promise<void> {
  const vocab = await readGguf(vocabFile);
  const tokens = vocab.metadata.get("tokenizer.ggml.tokens")!.value as string[];
  const n = options.embeddingLength ?? 32;
  const layers = options.layers ?? 2;
  const seed = options.seed ?? 1;
  const ff = 2 * n;
  const trainContext = 512;
  const metadata = new Map<string, GgufValue>([
    ["general.architecture", { type: "string", value: "bert" }],
    ["bert.context_length", { type: "uint32", value: trainContext }],
    ["bert.embedding_length", { type: "uint32", value: n }],
    ["bert.feed_forward_length", { type: "uint32", value: ff }],
    ["bert.block_count", { type: "uint32", value: layers }],
    ["bert.attention.head_count", { type: "uint32", value: 4 }],
    ["bert.attention.layer_norm_epsilon", { type: "float32", value: 1e-12 }],
    ["bert.attention.causal", { type: "bool", value: false }],
    ["bert.pooling_type", { type: "uint32", value: POOLING[options.head === "rank" ? "rank" : "mean"] }],
  ]);
  for (const [key, value] of vocab.metadata)
    if (key.startsWith("tokenizer.") && !key.startsWith("tokenizer.chat_template")) metadata.set(key, value);
  if (options.rerankTemplate !== undefined)
    metadata.set("tokenizer.chat_template.rerank", { type: "string", value: options.rerankTemplate });

  const filled = (name: string, shape: number[], value: number): GgufTensorSpec => ({
    name,
    shape,
    type: GgmlType.F32,
    data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(value),
  });
  const random = (name: string, shape: number[], amplitude: number): GgufTensorSpec => {
    const spec = filled(name, shape, 0);
    new Xoshiro128(seed, name).fillUniform(spec.data as Float32Array, amplitude);
    return spec;
  };
  const linear = (name: string, inputs: number, outputs: number): GgufTensorSpec[] => [
    random(`${name}.weight`, [inputs, outputs], 1 / Math.sqrt(inputs)),
    random(`${name}.bias`, [outputs], 0.1),
  ];
  const norm = (name: string): GgufTensorSpec[] => [filled(`${name}.weight`, [n], 1), filled(`${name}.bias`, [n], 0)];

  const tensors: GgufTensorSpec[] = [
    random("token_embd.weight", [n, tokens.length], 1),
    random("token_types.weight", [n, 2], 0.1),
    random("position_embd.weight", [n, trainContext], 0.1),
    ...norm("token_embd_norm"),
  ];
  for (let il = 0; il < layers; il++) {
    const b = `blk.${il}`;
    tensors.push(
      ...linear(`${b}.attn_q`, n, n),
      ...linear(`${b}.attn_k`, n, n),
      ...linear(`${b}.attn_v`, n, n),
      ...linear(`${b}.attn_output`, n, n),
      ...norm(`${b}.attn_output_norm`),
      ...linear(`${b}.ffn_up`, n, ff),
      ...linear(`${b}.ffn_down`, ff, n),
      ...norm(`${b}.layer_output_norm`),
    );
  }
  // The head of a BERT cross-encoder: a dense layer (tanh) on the [CLS] vector, then one score.
  if (options.head === "rank") tensors.push(...linear("cls", n, n), ...linear("cls.output", n, 1));
  await writeGguf(outPath, { metadata, tensors });
}

/**
 * Writes a decoder reranker shaped like Qwen3-Reranker as llama.cpp converts it: the llama test model at
 * `llamaPath` as a qwen3 (plus its per-head q/k norms, all ones), pooling type rank, a `cls.output` head of two
 * labels ("yes", "no": llama.cpp scores the softmax of the last token's) and a rerank prompt.
 *
 * @example
 * await writeQwen3Reranker(await ensureTestModel({ vocab: "qwen2" }), "qwen3-reranker.gguf", "{query}|{document}");
 */
export async function writeQwen3Reranker(llamaPath: string, outPath: string, rerankTemplate: string): Promise<void> {
  const file = await readGguf(llamaPath);
  const metadata = new Map<string, GgufValue>();
  for (const [key, value] of file.metadata) {
    if (key === "general.architecture") metadata.set(key, { type: "string", value: "qwen3" });
    else if (key.startsWith("llama.")) metadata.set(`qwen3.${key.slice("llama.".length)}`, value);
    else if (!key.startsWith("tokenizer.chat_template")) metadata.set(key, value);
  }
  metadata.set("qwen3.pooling_type", { type: "uint32", value: POOLING.rank });
  metadata.set("qwen3.classifier.output_labels", { type: "array", itemType: "string", value: ["yes", "no"] });
  metadata.set("tokenizer.chat_template.rerank", { type: "string", value: rerankTemplate });
  const number = (key: string) => Number(file.metadata.get(key)?.value ?? 0);
  const n = number("llama.embedding_length");
  const headDim = n / number("llama.attention.head_count");
  const tensors: GgufTensorSpec[] = [];
  for (const t of file.tensors)
    tensors.push({ name: t.name, shape: t.shape, type: t.type, data: await readTensorBytes(file, t) });
  for (let il = 0; il < number("llama.block_count"); il++)
    for (const norm of ["attn_q_norm", "attn_k_norm"])
      tensors.push({
        name: `blk.${il}.${norm}.weight`,
        shape: [headDim],
        type: GgmlType.F32,
        data: new Float32Array(headDim).fill(1),
      });
  const head = new Float32Array(n * 2);
  new Xoshiro128(1, "cls.output.weight").fillUniform(head, 1);
  tensors.push({ name: "cls.output.weight", shape: [n, 2], type: GgmlType.F32, data: head });
  await writeGguf(outPath, { metadata, tensors });
}
