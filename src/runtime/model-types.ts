/**
 * The plain types a `Model` takes and returns: tokenizer options, special tokens, token
 * attributes, the model's facts and its vocabulary; and the checks of the tokenizer options.
 */
import { checkKeys, checkObject, optBoolean } from "../validate/index.js";

/** Options of {@link Model.tokenize}. */
export interface TokenizeOptions {
  /** Add BOS/EOS as the model's metadata asks (default true). */
  addSpecial?: boolean;
  /** Turn special-token text such as `<|im_start|>` into the special token (default true). */
  parseSpecial?: boolean;
}

/** Options of {@link Model.detokenize}. */
export interface DetokenizeOptions {
  /** Drop the BOS/EOS the tokenizer adds (default false). */
  removeSpecial?: boolean;
  /** Render special tokens as their text (default true). */
  unparseSpecial?: boolean;
}

/** Special token ids; -1 when the vocabulary has no such token. */
export interface SpecialTokens {
  bos: number;
  eos: number;
  /** End of turn. */
  eot: number;
  sep: number;
  /** Newline. */
  nl: number;
  pad: number;
  mask: number;
  fimPre: number;
  fimSuf: number;
  fimMid: number;
  fimPad: number;
  fimRep: number;
  fimSep: number;
  /** First decoder token of encoder-decoder models. */
  decoderStart: number;
  /** Whether tokenizing with addSpecial puts BOS first / EOS last / SEP. */
  addBos: boolean;
  addEos: boolean;
  addSep: boolean;
  /** Every end-of-generation token (EOS, EOT, `<|im_end|>`, ...). */
  eog: readonly number[];
}

/** Token attribute bit flags (llama_token_attr). */
export const TokenAttribute = {
  undefined: 0,
  unknown: 1 << 0,
  unused: 1 << 1,
  normal: 1 << 2,
  control: 1 << 3,
  userDefined: 1 << 4,
  byte: 1 << 5,
  normalized: 1 << 6,
  lstrip: 1 << 7,
  rstrip: 1 << 8,
  singleWord: 1 << 9,
} as const;

/** The main kind of a token, from its attributes. */
export type TokenKind = "normal" | "control" | "user-defined" | "byte" | "unknown" | "unused" | "undefined";

/** Facts about the loaded model. */
export interface ModelInfo {
  description: string;
  /** 1 SPM, 2 BPE, 3 WPM, 4 UGM, 5 RWKV, 6 PLaMo-2. */
  vocabType: number;
  trainContextSize: number;
  embeddingSize: number;
  layerCount: number;
  sizeBytes: number;
  parameterCount: number;
  hasEncoder: boolean;
  isRecurrent: boolean;
}

/** Every token's bytes and attributes, in flat arrays. */
export interface Vocabulary {
  /** All pieces concatenated. */
  bytes: Uint8Array;
  /** Token i is bytes.subarray(offsets[i], offsets[i + 1]). */
  offsets: Uint32Array;
  /** {@link TokenAttribute} flags per token. */
  attributes: Uint32Array;
}

export function tokenizeOptions(options: unknown, method: string): { addSpecial: boolean; parseSpecial: boolean } {
  const o = checkObject(options, `${method}: options`);
  checkKeys(o, ["addSpecial", "parseSpecial"], `${method}: options`);
  return {
    addSpecial: optBoolean(o.addSpecial, `${method}: options.addSpecial`) ?? true,
    parseSpecial: optBoolean(o.parseSpecial, `${method}: options.parseSpecial`) ?? true,
  };
}

export function detokenizeOptions(
  options: unknown,
  method: string,
): { removeSpecial: boolean; unparseSpecial: boolean } {
  const o = checkObject(options, `${method}: options`);
  checkKeys(o, ["removeSpecial", "unparseSpecial"], `${method}: options`);
  return {
    removeSpecial: optBoolean(o.removeSpecial, `${method}: options.removeSpecial`) ?? false,
    unparseSpecial: optBoolean(o.unparseSpecial, `${method}: options.unparseSpecial`) ?? true,
  };
}
