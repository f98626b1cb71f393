/**
 * GGUF metadata values and tensor descriptions, as the reader returns them and the writer takes them.
 *
 * Every value keeps its GGUF type so a file read and written back is identical. Numeric arrays are
 * typed arrays (a 150k-entry `tokenizer.ggml.scores` is one Float32Array, not 150k boxed numbers).
 */

/**
 * A GGUF value type name: `uint8` … `float64`, `bool`, `string` or `array`. Spelled out rather than derived
 * from GGUF_VALUE_TYPES, so that the API reference shows the names.
 */
export type GgufValueType =
  | "uint8"
  | "int8"
  | "uint16"
  | "int16"
  | "uint32"
  | "int32"
  | "float32"
  | "bool"
  | "string"
  | "array"
  | "uint64"
  | "int64"
  | "float64";

/** GGUF value type names, indexed by their numeric id in the file format. */
export const GGUF_VALUE_TYPES: readonly GgufValueType[] = [
  "uint8",
  "int8",
  "uint16",
  "int16",
  "uint32",
  "int32",
  "float32",
  "bool",
  "string",
  "array",
  "uint64",
  "int64",
  "float64",
];

/** Value types whose values are JS numbers. */
export type GgufNumberType = "uint8" | "int8" | "uint16" | "int16" | "uint32" | "int32" | "float32" | "float64";
/** Value types whose values are bigints (64-bit integers do not fit a double). */
export type GgufBigIntType = "uint64" | "int64";

/** A scalar metadata value. */
export type GgufScalar =
  | { type: GgufNumberType; value: number }
  | { type: GgufBigIntType; value: bigint }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string };

/** Typed array used for each numeric item type of a GGUF array. */
export interface GgufTypedArrays {
  uint8: Uint8Array;
  int8: Int8Array;
  uint16: Uint16Array;
  int16: Int16Array;
  uint32: Uint32Array;
  int32: Int32Array;
  float32: Float32Array;
  float64: Float64Array;
  uint64: BigUint64Array;
  int64: BigInt64Array;
}

/**
 * The typed-array class of each numeric item type (the reader makes them, the writer checks them).
 *
 * @example
 * new GGUF_TYPED_ARRAYS.float32(4); // Float32Array(4)
 */
export const GGUF_TYPED_ARRAYS: { readonly [K in keyof GgufTypedArrays]: new (n: number) => GgufTypedArrays[K] } = {
  uint8: Uint8Array,
  int8: Int8Array,
  uint16: Uint16Array,
  int16: Int16Array,
  uint32: Uint32Array,
  int32: Int32Array,
  float32: Float32Array,
  float64: Float64Array,
  uint64: BigUint64Array,
  int64: BigInt64Array,
};

/** Whether arrays of `type` hold a typed array (numeric items) rather than a JS array. */
export function isTypedArrayItemType(type: GgufValueType): type is keyof GgufTypedArrays {
  return Object.hasOwn(GGUF_TYPED_ARRAYS, type);
}

/** An array metadata value: `items` is a typed array, `boolean[]`, `string[]` or nested arrays. */
export type GgufArray =
  | { [K in keyof GgufTypedArrays]: { type: "array"; itemType: K; value: GgufTypedArrays[K] } }[keyof GgufTypedArrays]
  | { type: "array"; itemType: "bool"; value: boolean[] }
  | { type: "array"; itemType: "string"; value: string[] }
  | { type: "array"; itemType: "array"; value: GgufArray[] };

/** Any metadata value. */
export type GgufValue = GgufScalar | GgufArray;

/** Metadata in file order (a Map keeps insertion order, so writing it back keeps the order too). */
export type GgufMetadata = Map<string, GgufValue>;

/** One tensor's description from the tensor-info table (its data is not read). */
export interface GgufTensorInfo {
  /** Tensor name, e.g. `blk.0.attn_q.weight`. */
  name: string;
  /** Dimensions in ggml order: `shape[0]` is the row length (the contiguous dimension). */
  shape: number[];
  /** ggml type id (see GgmlType). */
  type: number;
  /** ggml type name, e.g. `q8_0`. */
  typeName: string;
  /** Offset of the data relative to the start of the data section, as stored in the file. */
  offset: number;
  /** Offset of the data from the start of the file. */
  fileOffset: number;
  /** Size of the data in bytes. */
  byteSize: number;
  /** Number of elements (product of the shape). */
  elementCount: number;
}

/** Everything in a GGUF file except the tensor data. */
export interface GgufFileInfo {
  path: string;
  /** GGUF format version (2 or 3). */
  version: number;
  /** File size in bytes. */
  fileSize: number;
  metadata: GgufMetadata;
  tensors: GgufTensorInfo[];
  /** Alignment of the data section and of each tensor (general.alignment, default 32). */
  alignment: number;
  /** File offset where tensor data starts. */
  dataOffset: number;
}
