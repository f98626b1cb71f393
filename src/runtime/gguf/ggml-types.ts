/**
 * ggml tensor element types as numbered in GGUF files, with their block geometry.
 *
 * A tensor row of `ne[0]` elements is stored as `ne[0] / blockSize` blocks of `typeSize` bytes,
 * so `ne[0]` must be a multiple of `blockSize`.
 */

/** Numeric ids of the ggml tensor types (the `type` field of a GGUF tensor info). */
export const GgmlType = {
  F32: 0,
  F16: 1,
  Q4_0: 2,
  Q4_1: 3,
  Q5_0: 6,
  Q5_1: 7,
  Q8_0: 8,
  Q8_1: 9,
  Q2_K: 10,
  Q3_K: 11,
  Q4_K: 12,
  Q5_K: 13,
  Q6_K: 14,
  Q8_K: 15,
  IQ2_XXS: 16,
  IQ2_XS: 17,
  IQ3_XXS: 18,
  IQ1_S: 19,
  IQ4_NL: 20,
  IQ3_S: 21,
  IQ2_S: 22,
  IQ4_XS: 23,
  I8: 24,
  I16: 25,
  I32: 26,
  I64: 27,
  F64: 28,
  IQ1_M: 29,
  BF16: 30,
  TQ1_0: 34,
  TQ2_0: 35,
  MXFP4: 39,
  NVFP4: 40,
  Q1_0: 41,
  Q2_0: 42,
} as const;

/** One of the numeric ggml type ids in {@link GgmlType}. */
export type GgmlTypeId = (typeof GgmlType)[keyof typeof GgmlType];

/** Name (as ggml prints it, e.g. `q8_0`), elements per block and bytes per block of a ggml type. */
export interface GgmlTypeTraits {
  readonly id: GgmlTypeId;
  readonly name: string;
  readonly blockSize: number;
  readonly typeSize: number;
}

// Block sizes and byte sizes as ggml defines them (ggml_blck_size / ggml_type_size).
const TRAITS: readonly GgmlTypeTraits[] = [
  { id: 0, name: "f32", blockSize: 1, typeSize: 4 },
  { id: 1, name: "f16", blockSize: 1, typeSize: 2 },
  { id: 2, name: "q4_0", blockSize: 32, typeSize: 18 },
  { id: 3, name: "q4_1", blockSize: 32, typeSize: 20 },
  { id: 6, name: "q5_0", blockSize: 32, typeSize: 22 },
  { id: 7, name: "q5_1", blockSize: 32, typeSize: 24 },
  { id: 8, name: "q8_0", blockSize: 32, typeSize: 34 },
  { id: 9, name: "q8_1", blockSize: 32, typeSize: 36 },
  { id: 10, name: "q2_K", blockSize: 256, typeSize: 84 },
  { id: 11, name: "q3_K", blockSize: 256, typeSize: 110 },
  { id: 12, name: "q4_K", blockSize: 256, typeSize: 144 },
  { id: 13, name: "q5_K", blockSize: 256, typeSize: 176 },
  { id: 14, name: "q6_K", blockSize: 256, typeSize: 210 },
  { id: 15, name: "q8_K", blockSize: 256, typeSize: 292 },
  { id: 16, name: "iq2_xxs", blockSize: 256, typeSize: 66 },
  { id: 17, name: "iq2_xs", blockSize: 256, typeSize: 74 },
  { id: 18, name: "iq3_xxs", blockSize: 256, typeSize: 98 },
  { id: 19, name: "iq1_s", blockSize: 256, typeSize: 50 },
  { id: 20, name: "iq4_nl", blockSize: 32, typeSize: 18 },
  { id: 21, name: "iq3_s", blockSize: 256, typeSize: 110 },
  { id: 22, name: "iq2_s", blockSize: 256, typeSize: 82 },
  { id: 23, name: "iq4_xs", blockSize: 256, typeSize: 136 },
  { id: 24, name: "i8", blockSize: 1, typeSize: 1 },
  { id: 25, name: "i16", blockSize: 1, typeSize: 2 },
  { id: 26, name: "i32", blockSize: 1, typeSize: 4 },
  { id: 27, name: "i64", blockSize: 1, typeSize: 8 },
  { id: 28, name: "f64", blockSize: 1, typeSize: 8 },
  { id: 29, name: "iq1_m", blockSize: 256, typeSize: 56 },
  { id: 30, name: "bf16", blockSize: 1, typeSize: 2 },
  { id: 34, name: "tq1_0", blockSize: 256, typeSize: 54 },
  { id: 35, name: "tq2_0", blockSize: 256, typeSize: 66 },
  { id: 39, name: "mxfp4", blockSize: 32, typeSize: 17 },
  { id: 40, name: "nvfp4", blockSize: 64, typeSize: 36 },
  { id: 41, name: "q1_0", blockSize: 128, typeSize: 18 },
  { id: 42, name: "q2_0", blockSize: 64, typeSize: 18 },
];

const BY_ID = new Map<number, GgmlTypeTraits>(TRAITS.map((t) => [t.id, t]));

/**
 * Block geometry of a ggml type id, or `undefined` for ids ggml does not (or no longer) define.
 *
 * @example
 * ggmlTypeTraits(GgmlType.Q8_0); // { id: 8, name: "q8_0", blockSize: 32, typeSize: 34 }
 */
export function ggmlTypeTraits(id: number): GgmlTypeTraits | undefined {
  return BY_ID.get(id);
}

/**
 * Bytes a tensor of this type and shape occupies (shape is ggml order: `shape[0]` is the row length).
 * Throws RangeError when the row length is not a multiple of the type's block size.
 *
 * @example
 * ggmlTensorBytes(GgmlType.Q8_0, [64, 10]); // 2 blocks * 34 bytes * 10 rows = 680
 */
export function ggmlTensorBytes(id: number, shape: readonly number[]): number {
  const traits = BY_ID.get(id);
  if (!traits) throw new RangeError(`unknown ggml type id ${id}`);
  const rowLength = shape[0] ?? 1;
  if (rowLength % traits.blockSize !== 0) {
    throw new RangeError(
      `row length ${rowLength} is not a multiple of the ${traits.name} block size ${traits.blockSize}`,
    );
  }
  let rows = 1;
  for (let i = 1; i < shape.length; i++) rows *= shape[i]!;
  return (rowLength / traits.blockSize) * traits.typeSize * rows;
}
