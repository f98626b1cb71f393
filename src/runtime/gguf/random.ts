/**
 * Deterministic pseudo-random numbers for test weights: xoshiro128** seeded through splitmix32.
 * Each tensor gets its own stream derived from (seed, tensor name), so a tensor's values do not
 * depend on which tensors were generated before it.
 */

/** A seeded 32-bit generator. */
export class Xoshiro128 {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number, stream = "") {
    // splitmix32 over the seed mixed with an FNV-1a hash of the stream name fills the state.
    let h = 0x811c9dc5;
    for (let i = 0; i < stream.length; i++) h = Math.imul(h ^ stream.charCodeAt(i), 0x01000193);
    let x = (seed ^ Math.imul(h, 0x9e3779b9)) >>> 0;
    const next = (): number => {
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1; // the all-zero state is a fixed point
  }

  /** Next unsigned 32-bit integer. */
  nextU32(): number {
    const s1 = this.s1;
    const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return r;
  }

  /** Fills `out` with values uniform in [-amplitude, amplitude). */
  fillUniform(out: Float32Array, amplitude: number): void {
    const scale = (2 * amplitude) / 4294967296;
    for (let i = 0; i < out.length; i++) out[i] = this.nextU32() * scale - amplitude;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
