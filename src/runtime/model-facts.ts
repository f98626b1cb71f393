/**
 * The architecture facts a memory estimate needs, read from GGUF metadata: either the typed
 * metadata of a file (`readGguf`) or the string metadata of a loaded model (`model.metadata`,
 * where llama.cpp leaves arrays out, so per-layer arrays fall back to their scalar defaults).
 */
import type { GgufMetadata } from "./gguf/types.js";

/** Attention and state dimensions of one model, per layer where the metadata says so. */
export interface ModelFacts {
  architecture: string;
  layerCount: number;
  embeddingLength: number;
  vocabSize: number;
  trainContextSize: number;
  feedForwardLength: number;
  /** Per layer: attention heads, KV heads (0: the layer has no KV cache, e.g. a recurrent layer). */
  headCount: number[];
  headCountKv: number[];
  /** Per-head key and value lengths. */
  keyLength: number;
  valueLength: number;
  /** Multi-head latent attention (DeepSeek-style): the cache holds one compressed row per token. */
  kvLoraRank: number;
  ropeDimensions: number;
  /** Sliding-window attention: the window (0: none) and which layers use it. */
  slidingWindow: number;
  slidingLayers: boolean[];
  /**
   * Recurrent state per sequence and recurrent layer, in floats: the conv (or token-shift) rows and the SSM (or WKV)
   * rows.
   */
  recurrentFloats: [conv: number, state: number];
  /** Whether every layer without a KV cache is recurrent (a pure or hybrid recurrent model). */
  recurrent: boolean;
}

/** Numbers and arrays of a metadata source, by key. */
interface MetadataReader {
  number(key: string): number | undefined;
  numbers(key: string): number[] | undefined;
  string(key: string): string | undefined;
  arrayLength(key: string): number | undefined;
}

/** llama.cpp loads no model with more layers (LLAMA_MAX_LAYERS). */
export const MAX_LAYERS = 512;

/** A count from metadata written by any tool: a non-negative safe integer, else undefined. */
function count(value: number): number | undefined {
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function typedReader(meta: GgufMetadata): MetadataReader {
  return {
    number(key) {
      const v = meta.get(key);
      if (v === undefined || v.type === "string" || v.type === "array") return undefined;
      if (v.type === "float32" || v.type === "float64") return Number.isFinite(v.value) ? v.value : undefined;
      return count(Number(v.value));
    },
    numbers(key) {
      const v = meta.get(key);
      if (v?.type !== "array") return undefined;
      if (v.itemType === "bool") return v.value.map((b) => (b ? 1 : 0));
      if (v.itemType === "string" || v.itemType === "array" || v.value.length > MAX_LAYERS) return undefined;
      return Array.from(v.value as ArrayLike<number | bigint>, (x) => count(Number(x)) ?? 0);
    },
    string(key) {
      const v = meta.get(key);
      return v?.type === "string" ? v.value : undefined;
    },
    arrayLength(key) {
      const v = meta.get(key);
      return v?.type === "array" ? v.value.length : undefined;
    },
  };
}

function stringReader(meta: Readonly<Record<string, string>>): MetadataReader {
  return {
    number(key) {
      const s = meta[key];
      if (s === undefined) return undefined;
      const n = s === "true" ? 1 : s === "false" ? 0 : Number(s);
      return Number.isInteger(n) ? count(n) : Number.isFinite(n) ? n : undefined;
    },
    numbers: () => undefined,
    string: (key) => meta[key],
    arrayLength: () => undefined,
  };
}

/**
 * Sliding-window layouts llama.cpp gives each architecture: every `pattern`-th layer is dense (the first when
 * denseFirst).
 */
const SLIDING_ARCHITECTURES: Readonly<
  Record<string, { pattern: number; window?: number; denseFirst?: boolean; needsWindowKey?: boolean }>
> = {
  gemma2: { pattern: 2, window: 4096 },
  gemma3: { pattern: 6, needsWindowKey: true },
  gemma3n: { pattern: 5 },
  "gemma-embedding": { pattern: 6 },
  cohere2: { pattern: 4 },
  "gpt-oss": { pattern: 2 },
  llama4: { pattern: 4, window: 8192 },
  olmo2: { pattern: 4, needsWindowKey: true },
  exaone4: { pattern: 4, needsWindowKey: true },
  phi3: { pattern: 1, needsWindowKey: true },
};

/**
 * Reads the facts from a file's typed metadata or a loaded model's string metadata.
 *
 * @example
 * const facts = modelFacts((await readGguf("model.gguf")).metadata);
 */
export function modelFacts(source: GgufMetadata | Readonly<Record<string, string>>): ModelFacts {
  const r = source instanceof Map ? typedReader(source) : stringReader(source);
  const arch = r.string("general.architecture") ?? "llama";
  const key = (name: string) => `${arch}.${name}`;
  // An implausible layer count gives no per-layer facts; estimates refuse it (see estimateFromFacts).
  const layerCount = r.number(key("block_count")) ?? 0;
  const layerSlots = layerCount <= MAX_LAYERS ? layerCount : 0;
  const embeddingLength = r.number(key("embedding_length")) ?? 0;
  const perLayer = (name: string, fallback: number): number[] => {
    const list = r.numbers(key(name));
    if (list && list.length === layerSlots) return list;
    const scalar = r.number(key(name));
    return new Array<number>(layerSlots).fill(scalar ?? fallback);
  };
  const headCount = perLayer("attention.head_count", 0);
  const firstHeads = headCount.find((h) => h > 0) ?? 0;
  // llama.cpp: without head_count_kv every layer has as many KV heads as heads.
  const kvGiven =
    r.number(key("attention.head_count_kv")) !== undefined || r.numbers(key("attention.head_count_kv")) !== undefined;
  const headCountKv = kvGiven ? perLayer("attention.head_count_kv", firstHeads) : [...headCount];
  const headSize = firstHeads > 0 ? Math.floor(embeddingLength / firstHeads) : 0;
  const keyLength = r.number(key("attention.key_length")) ?? headSize;
  const valueLength = r.number(key("attention.value_length")) ?? headSize;

  const layout = SLIDING_ARCHITECTURES[arch];
  const windowKey = r.number(key("attention.sliding_window"));
  let slidingWindow = 0;
  let slidingLayers = new Array<boolean>(layerSlots).fill(false);
  if (layout && (!layout.needsWindowKey || (windowKey ?? 0) > 0) && !(arch === "llama4" && windowKey === 0)) {
    slidingWindow = windowKey ?? layout.window ?? 0;
    const explicit = r.numbers(key("attention.sliding_window_pattern"));
    if (explicit && explicit.length >= layerSlots) slidingLayers = explicit.slice(0, layerSlots).map((x) => x !== 0);
    else {
      const n = r.number(key("attention.sliding_window_pattern")) ?? layout.pattern;
      slidingLayers = slidingLayers.map((_, il) => n === 0 || (layout.denseFirst ? il % n !== 0 : il % n < n - 1));
    }
  }

  // Recurrent state (Mamba's conv + SSM states, RWKV's token shift + WKV states), per llama.cpp's layout.
  const wkvHeadSize = r.number(key("wkv.head_size")) ?? 0;
  const convKernel = r.number(key("ssm.conv_kernel")) ?? 0;
  const innerSize = r.number(key("ssm.inner_size")) ?? 0;
  const stateSize = r.number(key("ssm.state_size")) ?? 0;
  const groupCount = r.number(key("ssm.group_count")) ?? 0;
  let recurrentFloats: [number, number] = [0, 0];
  if (wkvHeadSize > 0) {
    const shifts = r.number(key("token_shift_count")) ?? 2;
    recurrentFloats = [shifts * embeddingLength, embeddingLength * wkvHeadSize];
  } else if (innerSize > 0 || stateSize > 0) {
    recurrentFloats = [Math.max(0, convKernel - 1) * (innerSize + 2 * groupCount * stateSize), stateSize * innerSize];
  }
  const recurrent = recurrentFloats[0] + recurrentFloats[1] > 0;

  return {
    architecture: arch,
    layerCount,
    embeddingLength,
    vocabSize: r.number(key("vocab_size")) ?? r.arrayLength("tokenizer.ggml.tokens") ?? 0,
    trainContextSize: r.number(key("context_length")) ?? 0,
    feedForwardLength: Math.max(0, ...perLayer("feed_forward_length", 0)),
    headCount,
    headCountKv,
    keyLength,
    valueLength,
    kvLoraRank: r.number(key("attention.kv_lora_rank")) ?? 0,
    ropeDimensions: r.number(key("rope.dimension_count")) ?? keyLength,
    slidingWindow,
    slidingLayers,
    recurrentFloats,
    recurrent,
  };
}
