/**
 * Sequential reads from a file through one reusable buffer, so a GGUF header with a 150k-token
 * vocabulary is parsed without reading the tensor data that follows it.
 *
 * Callers check `available()` synchronously and only `await fill(n)` when the buffer runs dry:
 * the hot path (one token string after another) never awaits.
 */
import type { FileHandle } from "node:fs/promises";
import { GgufError } from "./errors.js";

const INITIAL_CAPACITY = 1 << 20;

export class ChunkReader {
  private buf: Buffer;
  /** File offset of buf[0]. */
  private base = 0;
  /** Valid bytes in buf. */
  private end = 0;
  /** Read cursor in buf. */
  pos = 0;

  constructor(
    private readonly fh: FileHandle,
    readonly path: string,
    readonly fileSize: number,
  ) {
    this.buf = Buffer.allocUnsafe(Math.min(INITIAL_CAPACITY, Math.max(fileSize, 64)));
  }

  /** The buffer the cursor indexes into (valid until the next `fill`). */
  get buffer(): Buffer {
    return this.buf;
  }

  /** File offset of the cursor. */
  get offset(): number {
    return this.base + this.pos;
  }

  /** Bytes between the cursor and the end of the file. */
  get remainingInFile(): number {
    return this.fileSize - this.offset;
  }

  available(): number {
    return this.end - this.pos;
  }

  /** Makes at least `n` bytes available at the cursor; `what` names the item for the error message. */
  async fill(n: number, what: string): Promise<void> {
    if (this.available() >= n) return;
    if (n > this.remainingInFile) {
      throw new GgufError(
        "TRUNCATED",
        this.path,
        `file is truncated: ${what} needs ${n} bytes but the file ends at offset ${this.fileSize}`,
        this.offset,
      );
    }
    // Move the unread tail to the front, growing the buffer if one item is larger than it.
    const tail = this.end - this.pos;
    if (n > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(n, this.buf.length * 2));
      this.buf.copy(bigger, 0, this.pos, this.end);
      this.buf = bigger;
    } else {
      this.buf.copy(this.buf, 0, this.pos, this.end);
    }
    this.base += this.pos;
    this.pos = 0;
    this.end = tail;
    while (this.end < n) {
      const want = Math.min(this.buf.length - this.end, this.fileSize - (this.base + this.end));
      const { bytesRead } = await this.fh.read(this.buf, this.end, want, this.base + this.end);
      if (bytesRead === 0) {
        throw new GgufError("TRUNCATED", this.path, `file shrank while reading ${what}`, this.base + this.end);
      }
      this.end += bytesRead;
    }
  }

  /** Copies the next `dest.length` bytes into `dest`, reading large spans straight from the file. */
  async readInto(dest: Uint8Array, what: string): Promise<void> {
    const n = dest.length;
    if (n > this.remainingInFile) await this.fill(n, what); // throws the truncation error
    const fromBuffer = Math.min(n, this.available());
    dest.set(this.buf.subarray(this.pos, this.pos + fromBuffer), 0);
    this.pos += fromBuffer;
    let done = fromBuffer;
    if (done === n) return;
    if (n - done <= this.buf.length / 2) {
      await this.fill(n - done, what);
      dest.set(this.buf.subarray(this.pos, this.pos + n - done), done);
      this.pos += n - done;
      return;
    }
    // Large span: bypass the buffer, then restart it empty after the span.
    let filePos = this.offset;
    while (done < n) {
      const { bytesRead } = await this.fh.read(dest, done, n - done, filePos);
      if (bytesRead === 0) throw new GgufError("TRUNCATED", this.path, `file shrank while reading ${what}`, filePos);
      done += bytesRead;
      filePos += bytesRead;
    }
    this.base = filePos;
    this.pos = 0;
    this.end = 0;
  }

  /** Moves the cursor to an absolute file offset at or after the current one. */
  async seek(fileOffset: number, what: string): Promise<void> {
    const skip = fileOffset - this.offset;
    if (skip <= this.available()) {
      this.pos += skip;
      return;
    }
    if (fileOffset > this.fileSize) {
      throw new GgufError(
        "TRUNCATED",
        this.path,
        `file is truncated: ${what} would start past its end ${this.fileSize}`,
        fileOffset,
      );
    }
    this.base = fileOffset;
    this.pos = 0;
    this.end = 0;
  }
}
