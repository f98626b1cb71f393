/**
 * Encoding float values into ggml tensor types (F32, F16, BF16, Q8_0) and decoding them back.
 * Only the types a test-model writer needs; quantized types with super-blocks (K-quants) are not here.
 */
import { GgmlType } from "./ggml-types.js";

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * IEEE half-precision bits of a float, rounding to nearest even (overflow gives ±inf).
 *
 * @example
 * f32ToF16Bits(1); // 0x3c00
 */
export function f32ToF16Bits(x: number): number {
  f32[0] = x;
  const bits = u32[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exp32 = (bits >>> 23) & 0xff;
  let mant = bits & 0x7fffff;
  if (exp32 === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0);
  const exp = exp32 - 127 + 15;
  if (exp >= 0x1f) return sign | 0x7c00;
  if (exp <= 0) {
    // Subnormal half (or zero): shift the mantissa with its implicit bit into place, then round.
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && (half & 1) !== 0)) half++;
    return sign | half;
  }
  let half = (exp << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (and the largest finite value to inf).
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1) !== 0)) half++;
  return sign | half;
}

/**
 * The float value of IEEE half-precision bits.
 *
 * @example
 * f16BitsToF32(0x3c00); // 1
 */
export function f16BitsToF32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/**
 * bfloat16 bits of a float (the top half of its f32 bits, rounded to nearest even).
 *
 * @example
 * f32ToBf16Bits(1); // 0x3f80
 */
export function f32ToBf16Bits(x: number): number {
  f32[0] = x;
  const bits = u32[0]!;
  if ((bits & 0x7fffffff) > 0x7f800000) return ((bits >>> 16) & 0xffff) | 0x40; // keep NaN a NaN
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

function bf16BitsToF32(h: number): number {
  u32[0] = h << 16;
  return f32[0]!;
}

/** Types whose values `encodeValues` can produce. */
export const ENCODABLE_TYPES: ReadonlySet<number> = new Set([GgmlType.F32, GgmlType.F16, GgmlType.BF16, GgmlType.Q8_0]);

const Q8_0_BLOCK = 32;
const Q8_0_BYTES = 34;

/**
 * Encodes float values as ggml tensor bytes of `type` (F32, F16, BF16 or Q8_0; for Q8_0 the count
 * must be a multiple of 32). Q8_0 blocks are an f16 scale `amax / 127` then 32 int8 values.
 *
 * @example
 * const bytes = encodeValues(GgmlType.Q8_0, new Float32Array(64)); // 68 bytes
 */
export function encodeValues(type: number, values: Float32Array): Uint8Array {
  const n = values.length;
  switch (type) {
    case GgmlType.F32: {
      const out = new Uint8Array(n * 4);
      new Float32Array(out.buffer).set(values);
      return out;
    }
    case GgmlType.F16: {
      const out = new Uint16Array(n);
      for (let i = 0; i < n; i++) out[i] = f32ToF16Bits(values[i]!);
      return new Uint8Array(out.buffer);
    }
    case GgmlType.BF16: {
      const out = new Uint16Array(n);
      for (let i = 0; i < n; i++) out[i] = f32ToBf16Bits(values[i]!);
      return new Uint8Array(out.buffer);
    }
    case GgmlType.Q8_0: {
      if (n % Q8_0_BLOCK !== 0) throw new RangeError(`Q8_0 needs a multiple of ${Q8_0_BLOCK} values, got ${n}`);
      const blocks = n / Q8_0_BLOCK;
      const out = new Uint8Array(blocks * Q8_0_BYTES);
      const view = new DataView(out.buffer);
      for (let b = 0; b < blocks; b++) {
        const start = b * Q8_0_BLOCK;
        let amax = 0;
        for (let i = 0; i < Q8_0_BLOCK; i++) amax = Math.max(amax, Math.abs(values[start + i]!));
        const d = amax / 127;
        const inv = d === 0 ? 0 : 1 / d;
        const at = b * Q8_0_BYTES;
        view.setUint16(at, f32ToF16Bits(d), true);
        for (let i = 0; i < Q8_0_BLOCK; i++) {
          const x = values[start + i]! * inv;
          // Round half away from zero, as C's roundf does.
          view.setInt8(at + 2 + i, x < 0 ? -Math.round(-x) : Math.round(x));
        }
      }
      return out;
    }
    default:
      throw new RangeError(`cannot encode values as ggml type ${type}: only F32, F16, BF16 and Q8_0 are supported`);
  }
}

/**
 * Decodes ggml tensor bytes of `type` (F32, F16, BF16 or Q8_0) back into floats.
 *
 * @example
 * const values = decodeValues(GgmlType.F16, bytes);
 */
export function decodeValues(type: number, bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (type) {
    case GgmlType.F32: {
      const out = new Float32Array(bytes.length / 4);
      for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
      return out;
    }
    case GgmlType.F16:
    case GgmlType.BF16: {
      const out = new Float32Array(bytes.length / 2);
      const decode = type === GgmlType.F16 ? f16BitsToF32 : bf16BitsToF32;
      for (let i = 0; i < out.length; i++) out[i] = decode(view.getUint16(i * 2, true));
      return out;
    }
    case GgmlType.Q8_0: {
      const blocks = bytes.length / Q8_0_BYTES;
      const out = new Float32Array(blocks * Q8_0_BLOCK);
      for (let b = 0; b < blocks; b++) {
        const d = f16BitsToF32(view.getUint16(b * Q8_0_BYTES, true));
        for (let i = 0; i < Q8_0_BLOCK; i++) out[b * Q8_0_BLOCK + i] = d * view.getInt8(b * Q8_0_BYTES + 2 + i);
      }
      return out;
    }
    default:
      throw new RangeError(`cannot decode ggml type ${type}: only F32, F16, BF16 and Q8_0 are supported`);
  }
}
