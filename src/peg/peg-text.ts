/**
 * The text a PEG parse reads: an append-only buffer of UTF-16 code units.
 *
 * Why not a string: a stream that does `text += chunk` builds a rope that V8 flattens (copies
 * whole) on the next character access, so every chunk of a long output would copy everything
 * before it, which is quadratic memory traffic. Appending here copies only the chunk (the buffer
 * doubles when full, so growth is amortised O(1) per character), reads are O(1), and slices
 * cost only their own length. The whole text as a string is built only when asked for.
 */

/** What the parse result and the mapper read text through: a string has this shape too. */
export interface PegTextSource {
  readonly length: number;
  slice(start: number, end?: number): string;
}

/** Code units per String.fromCharCode call when building strings (stays far below argument limits). */
const PIECE = 8192;

/**
 * Growable text buffer with string-like reads.
 *
 * @example
 * const t = new PegText();
 * t.append("<tool_call>");
 * t.append('{"name"');
 * t.indexOf('"', 0); // 12
 * t.slice(0, 5);     // "<tool"
 */
export class PegText implements PegTextSource {
  private buf = new Uint16Array(0);
  private len = 0;
  /** The buffer holds all `len` code units (a text made from a string copies it on first append only). */
  private filled = true;
  /** The whole text as a flat string, when known (given, or built since the last append): reads use it. */
  private whole: string | null = "";
  private copies = 0;

  /** A one-shot parse reads the given string directly (no copy); appending later copies it once. */
  constructor(initial = "") {
    if (typeof initial !== "string") throw new TypeError(`PegText(initial): expected a string, got ${typeof initial}`);
    this.whole = initial;
    this.len = initial.length;
    this.filled = initial.length === 0;
  }

  get length(): number {
    return this.len;
  }

  /** Code units copied into the buffer so far, growth included (stays within 3 × length). */
  get copied(): number {
    return this.copies;
  }

  /** Adds text at the end (copies only `chunk`, amortised). */
  append(chunk: string): void {
    const n = chunk.length;
    if (n === 0) return;
    if (!this.filled) {
      const initial = this.whole!;
      this.len = 0;
      this.filled = true;
      this.write(initial);
    }
    this.write(chunk);
    this.whole = null;
  }

  /** The code unit at `i` (NaN past the end, as for strings). */
  charCodeAt(i: number): number {
    if (this.whole !== null) return this.whole.charCodeAt(i);
    return i >= 0 && i < this.len ? this.buf[i]! : NaN;
  }

  /** The code point starting at `i` (a lone surrogate is returned as is). */
  codePointAt(i: number): number | undefined {
    if (this.whole !== null) return this.whole.codePointAt(i);
    if (i < 0 || i >= this.len) return undefined;
    const hi = this.buf[i]!;
    if (hi >= 0xd800 && hi <= 0xdbff && i + 1 < this.len) {
      const lo = this.buf[i + 1]!;
      if (lo >= 0xdc00 && lo <= 0xdfff) return (hi - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000;
    }
    return hi;
  }

  /** First offset ≥ `from` where `needle` occurs, or -1. */
  indexOf(needle: string, from = 0): number {
    if (this.whole !== null) return this.whole.indexOf(needle, from);
    const n = needle.length;
    const start = Math.max(0, from);
    if (n === 0) return Math.min(start, this.len);
    const buf = this.buf;
    const first = needle.charCodeAt(0);
    const last = this.len - n;
    outer: for (let i = start; i <= last; i++) {
      if (buf[i] !== first) continue;
      for (let j = 1; j < n; j++) if (buf[i + j] !== needle.charCodeAt(j)) continue outer;
      return i;
    }
    return -1;
  }

  /** The text between `start` and `end` (clamped like String.prototype.slice with non-negative offsets). */
  slice(start: number, end: number = this.len): string {
    if (this.whole !== null) return this.whole.slice(start, end);
    const from = Math.max(0, Math.min(start, this.len));
    const to = Math.max(from, Math.min(end, this.len));
    if (from === 0 && to === this.len) return this.toString();
    return this.build(from, to);
  }

  /** The whole text (built once per append at most). */
  toString(): string {
    this.whole ??= this.build(0, this.len);
    return this.whole;
  }

  private write(text: string): void {
    const n = text.length;
    if (this.len + n > this.buf.length) {
      const grown = new Uint16Array(Math.max(64, this.buf.length * 2, this.len + n));
      grown.set(this.buf.subarray(0, this.len));
      this.copies += this.len;
      this.buf = grown;
    }
    const buf = this.buf;
    const at = this.len;
    for (let i = 0; i < n; i++) buf[at + i] = text.charCodeAt(i);
    this.len += n;
    this.copies += n;
  }

  private build(from: number, to: number): string {
    if (to - from <= PIECE) return String.fromCharCode.apply(null, this.buf.subarray(from, to) as unknown as number[]);
    const parts: string[] = [];
    for (let i = from; i < to; i += PIECE)
      parts.push(String.fromCharCode.apply(null, this.buf.subarray(i, Math.min(to, i + PIECE)) as unknown as number[]));
    return parts.join("");
  }
}

/**
 * The first offset from `from` up to `before` where the rest of `input` begins one of `delimiters` (a delimiter
 * still arriving at the end of streamed text), or -1.
 *
 * @example
 * // `input` holds "hi <|sep|>call<" (15 characters): the longer delimiter may be arriving from offset 3.
 * partialDelimiter(["<|sep|>call<|role|>", "call"], input, 0, 10); // 3
 */
export function partialDelimiter(delimiters: readonly string[], input: PegText, from: number, before: number): number {
  for (let i = from; i < before; i++) {
    const tail = input.slice(i);
    if (delimiters.some((d) => d.length > tail.length && d.startsWith(tail))) return i;
  }
  return -1;
}
