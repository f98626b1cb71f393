/**
 * What `toolwright inspect` shows about a GGUF file, worked out from its header alone (metadata
 * and tensor infos, never the weights): architecture and sizes, tensor types, chat template,
 * tokenizer facts.
 *
 * Metadata written by other tools is not trusted: a value of an unexpected type or a token id out
 * of range becomes a warning, never an exception.
 *
 * @example
 * const summary = summarizeGguf(await readGguf("model.gguf"));
 * console.log(summary.general.architecture, summary.tensors.parameterCount);
 */
import { ggufToJson } from "../runtime/gguf/values.js";
import { memorySummary, type MemorySummary } from "./memory-summary.js";
import type { GgufFileInfo, GgufMetadata, GgufValue } from "../runtime/gguf/types.js";

/** Tensors of one ggml type. */
export interface TensorTypeCount {
  count: number;
  parameters: number;
  bytes: number;
}

/** A special token named in the metadata (`tokenizer.ggml.<role>_token_id`). */
export interface SpecialTokenFact {
  id: number;
  /** The token's text, or null when the id is outside the vocabulary. */
  text: string | null;
}

/** Summary of a GGUF model file. */
export interface ModelSummary {
  file: {
    path: string;
    sizeBytes: number;
    ggufVersion: number;
    tensorCount: number;
    metadataCount: number;
    alignment: number;
  };
  general: {
    architecture: string | null;
    name: string | null;
    sizeLabel: string | null;
    /** `general.file_type`: the id and llama.cpp's name for it (e.g. MOSTLY_Q4_K_M). */
    fileType: { id: number; name: string } | null;
    quantizationVersion: number | null;
  };
  /** Scalar `<architecture>.*` keys without the prefix (context_length, block_count, ...). */
  hyperparameters: Record<string, unknown>;
  tensors: {
    parameterCount: number;
    bytes: number;
    /** Average bits per weight over all tensors. */
    bitsPerWeight: number;
    /** ggml type name → count, parameters and bytes, most parameters first. */
    types: Record<string, TensorTypeCount>;
  };
  chatTemplate: {
    /** The default template (`tokenizer.chat_template`), or null when the model has none. */
    source: string | null;
    length: number;
    lines: number;
    /** Names of extra templates (`tokenizer.chat_template.<name>`, e.g. tool_use). */
    named: string[];
  };
  vocabulary: {
    size: number | null;
    /** `tokenizer.ggml.model`: llama (SentencePiece), gpt2 (BPE), bert (WordPiece), t5 (Unigram), ... */
    model: string | null;
    /** `tokenizer.ggml.pre`: the pre-tokenizer (regex split) llama.cpp applies. */
    preTokenizer: string | null;
    merges: number | null;
    /** Count per token type (normal, control, user-defined, byte, unknown, unused). */
    tokenTypes: Record<string, number>;
    specialTokens: Record<string, SpecialTokenFact>;
    addBos: boolean | null;
    addEos: boolean | null;
    addSep: boolean | null;
    /** Up to 24 control and user-defined tokens (chat markers, tool-call markers, ...), placeholders left out. */
    controlTokenSample: string[];
    /**
     * Control and user-defined tokens that are unused placeholders ([PAD151646], <|reserved_special_token_3|>, ...).
     */
    placeholderTokens: number;
  };
  /** Metadata that had an unexpected type or value. */
  warnings: string[];
  /** What the model and a context would take in memory (null when the metadata cannot tell). */
  memory: MemorySummary | null;
}

// llama.cpp's llama_ftype numbering (include/llama.h); 4-6 and 33-35 are retired.
const FILE_TYPES: Record<number, string> = {
  0: "ALL_F32",
  1: "MOSTLY_F16",
  2: "MOSTLY_Q4_0",
  3: "MOSTLY_Q4_1",
  7: "MOSTLY_Q8_0",
  8: "MOSTLY_Q5_0",
  9: "MOSTLY_Q5_1",
  10: "MOSTLY_Q2_K",
  11: "MOSTLY_Q3_K_S",
  12: "MOSTLY_Q3_K_M",
  13: "MOSTLY_Q3_K_L",
  14: "MOSTLY_Q4_K_S",
  15: "MOSTLY_Q4_K_M",
  16: "MOSTLY_Q5_K_S",
  17: "MOSTLY_Q5_K_M",
  18: "MOSTLY_Q6_K",
  19: "MOSTLY_IQ2_XXS",
  20: "MOSTLY_IQ2_XS",
  21: "MOSTLY_Q2_K_S",
  22: "MOSTLY_IQ3_XS",
  23: "MOSTLY_IQ3_XXS",
  24: "MOSTLY_IQ1_S",
  25: "MOSTLY_IQ4_NL",
  26: "MOSTLY_IQ3_S",
  27: "MOSTLY_IQ3_M",
  28: "MOSTLY_IQ2_S",
  29: "MOSTLY_IQ2_M",
  30: "MOSTLY_IQ4_XS",
  31: "MOSTLY_IQ1_M",
  32: "MOSTLY_BF16",
  36: "MOSTLY_TQ1_0",
  37: "MOSTLY_TQ2_0",
  38: "MOSTLY_MXFP4_MOE",
  39: "MOSTLY_NVFP4",
  40: "MOSTLY_Q1_0",
  41: "MOSTLY_Q2_0",
  1024: "GUESSED",
};

// GGUF token types (tokenizer.ggml.token_type).
const TOKEN_TYPES: Record<number, string> = {
  0: "undefined",
  1: "normal",
  2: "unknown",
  3: "control",
  4: "user-defined",
  5: "unused",
  6: "byte",
};

/** Unused vocabulary slots that models reserve for later (not worth listing). */
const PLACEHOLDER_TOKEN =
  /^(\[PAD\d+\]|\[unused\d+\]|<unused\d+>|<\|reserved_special_token_\d+\|>|<\|reserved_\d+\|>|<\|placeholder\d+\|>)$/i;

const SPECIAL_TOKEN_KEY = /^tokenizer\.ggml\.(\w+)_token_id$/;
const NAMED_TEMPLATE_KEY = /^tokenizer\.chat_template\.(.+)$/;

/** Reads metadata by expected type; a mismatch is recorded as a warning and read as absent. */
class MetadataView {
  readonly warnings: string[] = [];
  constructor(readonly meta: GgufMetadata) {}

  string(key: string): string | null {
    const v = this.meta.get(key);
    if (v === undefined) return null;
    if (v.type === "string") return v.value;
    this.warnings.push(`${key} is a ${describeType(v)}, expected a string`);
    return null;
  }

  number(key: string): number | null {
    const v = this.meta.get(key);
    if (v === undefined) return null;
    if (v.type === "string" || v.type === "bool" || v.type === "array") {
      this.warnings.push(`${key} is a ${describeType(v)}, expected a number`);
      return null;
    }
    const n = Number(v.value);
    if (!Number.isFinite(n)) {
      this.warnings.push(`${key} = ${String(v.value)} is not a finite number`);
      return null;
    }
    return n;
  }

  bool(key: string): boolean | null {
    const v = this.meta.get(key);
    if (v === undefined) return null;
    if (v.type === "bool") return v.value;
    this.warnings.push(`${key} is a ${describeType(v)}, expected a bool`);
    return null;
  }

  stringArray(key: string): string[] | null {
    const v = this.meta.get(key);
    if (v === undefined) return null;
    if (v.type === "array" && v.itemType === "string") return v.value;
    this.warnings.push(`${key} is a ${describeType(v)}, expected an array of strings`);
    return null;
  }

  integerArray(key: string): ArrayLike<number> | null {
    const v = this.meta.get(key);
    if (v === undefined) return null;
    if (
      v.type === "array" &&
      (v.itemType === "int32" ||
        v.itemType === "uint32" ||
        v.itemType === "int8" ||
        v.itemType === "uint8" ||
        v.itemType === "int16" ||
        v.itemType === "uint16")
    ) {
      return v.value;
    }
    this.warnings.push(`${key} is a ${describeType(v)}, expected an array of integers`);
    return null;
  }
}

/** The shortest decimal that reads back as the same float32 (1e-5, not 9.999999747378752e-6). */
function shortestFloat32(x: number): number {
  for (let digits = 1; digits < 17; digits++) {
    const candidate = Number(x.toPrecision(digits));
    if (Math.fround(candidate) === x) return candidate;
  }
  return x;
}

function describeType(v: GgufValue): string {
  return v.type === "array" ? `${v.itemType} array` : v.type;
}

/**
 * Summarizes a GGUF file from what `readGguf` returns (no tensor data is needed).
 *
 * @example
 * const { vocabulary } = summarizeGguf(await readGguf("model.gguf"));
 * console.log(vocabulary.model, vocabulary.size);
 */
export function summarizeGguf(info: GgufFileInfo): ModelSummary {
  const view = new MetadataView(info.metadata);
  const architecture = view.string("general.architecture");
  const fileTypeId = view.number("general.file_type");

  const hyperparameters: Record<string, unknown> = {};
  if (architecture !== null) {
    const prefix = `${architecture}.`;
    for (const [key, value] of info.metadata) {
      if (!key.startsWith(prefix) || value.type === "array") continue;
      hyperparameters[key.slice(prefix.length)] =
        value.type === "float32" ? shortestFloat32(value.value) : ggufToJson(value);
    }
  }

  return {
    file: {
      path: info.path,
      sizeBytes: info.fileSize,
      ggufVersion: info.version,
      tensorCount: info.tensors.length,
      metadataCount: info.metadata.size,
      alignment: info.alignment,
    },
    general: {
      architecture,
      name: view.string("general.name"),
      sizeLabel: view.string("general.size_label"),
      fileType:
        fileTypeId === null ? null : { id: fileTypeId, name: FILE_TYPES[fileTypeId] ?? `unknown (${fileTypeId})` },
      quantizationVersion: view.number("general.quantization_version"),
    },
    hyperparameters,
    tensors: summarizeTensors(info),
    chatTemplate: summarizeTemplate(view),
    vocabulary: summarizeVocabulary(view),
    warnings: view.warnings,
    memory: memorySummary(info),
  };
}

function summarizeTensors(info: GgufFileInfo): ModelSummary["tensors"] {
  const types = new Map<string, TensorTypeCount>();
  let parameterCount = 0;
  let bytes = 0;
  for (const t of info.tensors) {
    parameterCount += t.elementCount;
    bytes += t.byteSize;
    const entry = types.get(t.typeName) ?? { count: 0, parameters: 0, bytes: 0 };
    entry.count++;
    entry.parameters += t.elementCount;
    entry.bytes += t.byteSize;
    types.set(t.typeName, entry);
  }
  const sorted = [...types].sort((a, b) => b[1].parameters - a[1].parameters || a[0].localeCompare(b[0]));
  return {
    parameterCount,
    bytes,
    bitsPerWeight: parameterCount === 0 ? 0 : (bytes * 8) / parameterCount,
    types: Object.fromEntries(sorted),
  };
}

function summarizeTemplate(view: MetadataView): ModelSummary["chatTemplate"] {
  const source = view.string("tokenizer.chat_template");
  const named: string[] = [];
  for (const key of view.meta.keys()) {
    const m = NAMED_TEMPLATE_KEY.exec(key);
    if (m && view.string(key) !== null) named.push(m[1]!);
  }
  return {
    source,
    length: source?.length ?? 0,
    lines: source === null ? 0 : source.split("\n").length,
    named,
  };
}

function summarizeVocabulary(view: MetadataView): ModelSummary["vocabulary"] {
  const tokens = view.stringArray("tokenizer.ggml.tokens");
  const types = view.integerArray("tokenizer.ggml.token_type");
  const merges = view.stringArray("tokenizer.ggml.merges");
  if (tokens && types && types.length !== tokens.length) {
    view.warnings.push(`tokenizer.ggml.token_type has ${types.length} entries for ${tokens.length} tokens`);
  }

  const tokenTypes: Record<string, number> = {};
  const controlTokenSample: string[] = [];
  let placeholderTokens = 0;
  if (types) {
    for (let i = 0; i < types.length; i++) {
      const type = types[i]!;
      const name = TOKEN_TYPES[type] ?? `type ${type}`;
      tokenTypes[name] = (tokenTypes[name] ?? 0) + 1;
      const text = tokens?.[i];
      if ((type !== 3 && type !== 4) || text === undefined) continue;
      if (PLACEHOLDER_TOKEN.test(text)) placeholderTokens++;
      else if (controlTokenSample.length < 24) controlTokenSample.push(text);
    }
  }

  const specialTokens: Record<string, SpecialTokenFact> = {};
  for (const key of view.meta.keys()) {
    const m = SPECIAL_TOKEN_KEY.exec(key);
    if (!m) continue;
    const id = view.number(key);
    if (id === null) continue;
    const text = tokens && Number.isInteger(id) && id >= 0 && id < tokens.length ? tokens[id]! : null;
    if (text === null && tokens)
      view.warnings.push(`${key} = ${id} is outside the vocabulary (${tokens.length} tokens)`);
    specialTokens[m[1]!] = { id, text };
  }

  return {
    size: tokens?.length ?? null,
    model: view.string("tokenizer.ggml.model"),
    preTokenizer: view.string("tokenizer.ggml.pre"),
    merges: merges?.length ?? null,
    tokenTypes,
    specialTokens,
    addBos: view.bool("tokenizer.ggml.add_bos_token"),
    addEos: view.bool("tokenizer.ggml.add_eos_token"),
    addSep: view.bool("tokenizer.ggml.add_sep_token"),
    controlTokenSample,
    placeholderTokens,
  };
}
