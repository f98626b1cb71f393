/**
 * GGUF v3 writer: metadata of any type plus tensors, streamed to disk.
 *
 * The header (metadata and tensor infos) is built in memory — it holds the vocabulary, a few MB at
 * most — and tensor data is then written chunk by chunk as the caller produces it, so writing a
 * model never needs the whole file in memory.
 */
import { open, unlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { endianness } from "node:os";
import { ENCODABLE_TYPES, encodeValues } from "./codec.js";
import { ggmlTensorBytes, ggmlTypeTraits } from "./ggml-types.js";
import { HeaderEncoder } from "./header-encoder.js";
import type { GgufMetadata, GgufValue } from "./types.js";

const GGUF_VERSION = 3;
const DEFAULT_ALIGNMENT = 32;
/** ggml stores tensor names in a 64-byte field including the terminating NUL. */
const MAX_TENSOR_NAME_BYTES = 63;
const FLUSH_BYTES = 4 << 20;

/**
 * A tensor's data: float values (encoded to the tensor's type: F32, F16, BF16 or Q8_0), bytes
 * already in the tensor's type, or a function returning an (async) iterable of such chunks, called
 * once when the tensor is written. Value chunks must hold whole blocks (a multiple of 32 for Q8_0).
 */
export type GgufTensorData =
  | Float32Array
  | Uint8Array
  | (() => Iterable<Float32Array | Uint8Array> | AsyncIterable<Float32Array | Uint8Array>);

/** One tensor to write. */
export interface GgufTensorSpec {
  /** At most 63 bytes, unique in the file. */
  name: string;
  /** Dimensions in ggml order: `shape[0]` is the row length. 1 to 4 dimensions. */
  shape: readonly number[];
  /** ggml type id (GgmlType.F32, GgmlType.Q8_0, ...). */
  type: number;
  data: GgufTensorData;
}

/** What `writeGguf` writes. */
export interface WriteGgufOptions {
  /** Key/values in the order they are written. */
  metadata: GgufMetadata | Iterable<readonly [string, GgufValue]>;
  tensors?: readonly GgufTensorSpec[];
  /** Data alignment (power of two). Default: `general.alignment` from the metadata, else 32. */
  alignment?: number;
  /** Called as tensor data is written (after each chunk), with bytes written so far and the final file size. */
  onProgress?: (written: number, total: number, tensorName: string) => void;
}

/**
 * Writes a GGUF v3 file. On failure the partial file is removed.
 * Returns the file size in bytes.
 *
 * @example
 * await writeGguf("tiny.gguf", {
 *   metadata: new Map([["general.architecture", gguf.string("llama")]]),
 *   tensors: [{ name: "output_norm.weight", shape: [64], type: GgmlType.F32, data: new Float32Array(64).fill(1) }],
 * });
 */
export async function writeGguf(path: string, options: WriteGgufOptions): Promise<number> {
  if (typeof path !== "string" || path.length === 0) {
    throw new TypeError(`writeGguf: path must be a non-empty string, got ${JSON.stringify(path)}`);
  }
  if (options === null || typeof options !== "object") throw new TypeError("writeGguf: options must be an object");
  if (endianness() !== "LE") throw new RangeError("writeGguf: writing GGUF needs a little-endian host");

  const metadata = new Map<string, GgufValue>();
  for (const [key, value] of options.metadata ?? []) {
    if (metadata.has(key)) throw new RangeError(`writeGguf: metadata key "${key}" is given twice`);
    metadata.set(key, value);
  }
  const alignment = resolveAlignment(metadata, options.alignment);
  const tensors = options.tensors ?? [];
  const layout = layoutTensors(tensors, alignment);

  const header = new HeaderEncoder();
  header.raw(Buffer.from("GGUF", "latin1"));
  header.u32(GGUF_VERSION);
  header.u64(tensors.length);
  header.u64(metadata.size);
  for (const [key, value] of metadata) header.keyValue(key, value);
  for (let i = 0; i < tensors.length; i++) {
    const t = tensors[i]!;
    header.string(t.name);
    header.u32(t.shape.length);
    for (const d of t.shape) header.u64(d);
    header.u32(t.type);
    header.u64(layout.offsets[i]!);
  }
  const dataStart = tensors.length > 0 ? alignUp(header.length, alignment) : header.length;
  const total = dataStart + layout.dataSize;

  const fh = await open(path, "w");
  let ok = false;
  try {
    const out = new OutputStream(fh);
    await out.write(header.bytes());
    await out.pad(dataStart - header.length);
    for (let i = 0; i < tensors.length; i++) {
      const t = tensors[i]!;
      const report = options.onProgress && (() => options.onProgress!(out.position, total, t.name));
      const written = await writeTensorData(out, t, layout.sizes[i]!, report);
      if (written !== layout.sizes[i]) {
        throw new RangeError(
          `writeGguf: tensor "${t.name}" data is ${written} bytes, its shape and type need ${layout.sizes[i]}`,
        );
      }
      await out.pad(alignUp(written, alignment) - written);
      report?.();
    }
    await out.flush();
    ok = true;
    return out.position;
  } finally {
    await fh.close();
    if (!ok) await unlink(path).catch(() => undefined);
  }
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

function resolveAlignment(metadata: Map<string, GgufValue>, requested: number | undefined): number {
  const inMeta = metadata.get("general.alignment");
  if (inMeta !== undefined && inMeta.type !== "uint32") {
    throw new TypeError(`writeGguf: general.alignment must be a uint32, got ${inMeta.type}`);
  }
  const alignment = requested ?? (inMeta?.value as number | undefined) ?? DEFAULT_ALIGNMENT;
  if (!Number.isInteger(alignment) || alignment <= 0 || (alignment & (alignment - 1)) !== 0 || alignment > 1 << 20) {
    throw new RangeError(`writeGguf: alignment must be a power of two up to 1 MiB, got ${String(alignment)}`);
  }
  if (inMeta !== undefined && inMeta.value !== alignment) {
    throw new RangeError(`writeGguf: alignment ${alignment} contradicts general.alignment ${String(inMeta.value)}`);
  }
  // Readers only learn a non-default alignment from the metadata.
  if (inMeta === undefined && alignment !== DEFAULT_ALIGNMENT)
    metadata.set("general.alignment", { type: "uint32", value: alignment });
  return alignment;
}

function layoutTensors(tensors: readonly GgufTensorSpec[], alignment: number) {
  if (!Array.isArray(tensors)) throw new TypeError("writeGguf: tensors must be an array");
  const names = new Set<string>();
  const offsets: number[] = [];
  const sizes: number[] = [];
  let offset = 0;
  for (const t of tensors) {
    if (t === null || typeof t !== "object")
      throw new TypeError(`writeGguf: each tensor must be an object, got ${String(t)}`);
    if (typeof t.name !== "string" || t.name.length === 0 || Buffer.byteLength(t.name) > MAX_TENSOR_NAME_BYTES) {
      throw new RangeError(
        `writeGguf: tensor name must be 1 to ${MAX_TENSOR_NAME_BYTES} bytes, got ${JSON.stringify(t.name)}`,
      );
    }
    if (names.has(t.name)) throw new RangeError(`writeGguf: tensor name "${t.name}" is used twice`);
    names.add(t.name);
    if (
      !Array.isArray(t.shape) ||
      t.shape.length < 1 ||
      t.shape.length > 4 ||
      !t.shape.every((d: unknown) => Number.isSafeInteger(d) && (d as number) > 0)
    ) {
      throw new RangeError(
        `writeGguf: tensor "${t.name}" shape must be 1 to 4 positive integers, got ${JSON.stringify(t.shape)}`,
      );
    }
    if (!ggmlTypeTraits(t.type))
      throw new RangeError(`writeGguf: tensor "${t.name}" has unknown ggml type ${String(t.type)}`);
    let size: number;
    try {
      size = ggmlTensorBytes(t.type, t.shape);
    } catch (e) {
      throw new RangeError(`writeGguf: tensor "${t.name}": ${(e as Error).message}`);
    }
    offsets.push(offset);
    sizes.push(size);
    offset += alignUp(size, alignment);
  }
  return { offsets, sizes, dataSize: offset };
}

async function writeTensorData(
  out: OutputStream,
  t: GgufTensorSpec,
  expected: number,
  report?: () => void,
): Promise<number> {
  const data = t.data;
  if (typeof data === "function") {
    let written = 0;
    for await (const chunk of data()) {
      const bytes = toBytes(t, chunk);
      written += bytes.length;
      if (written > expected) {
        throw new RangeError(
          `writeGguf: tensor "${t.name}" data exceeds the ${expected} bytes its shape and type need`,
        );
      }
      await out.write(bytes);
      report?.();
    }
    return written;
  }
  const bytes = toBytes(t, data);
  await out.write(bytes);
  return bytes.length;
}

function toBytes(t: GgufTensorSpec, chunk: unknown): Uint8Array {
  if (chunk instanceof Float32Array) {
    if (!ENCODABLE_TYPES.has(t.type)) {
      throw new RangeError(
        `writeGguf: tensor "${t.name}": float values can be encoded as f32, f16, bf16 or q8_0, not ` +
          `${ggmlTypeTraits(t.type)?.name}; pass encoded bytes`,
      );
    }
    return encodeValues(t.type, chunk);
  }
  if (chunk instanceof Uint8Array) return chunk;
  throw new TypeError(
    `writeGguf: tensor "${t.name}" data must be a Float32Array, a Uint8Array or a function yielding them`,
  );
}

/** Batches small writes into large ones. */
class OutputStream {
  private buf = Buffer.allocUnsafe(FLUSH_BYTES);
  private used = 0;
  private flushed = 0;

  constructor(private readonly fh: FileHandle) {}

  /** Bytes written so far, buffered ones included. */
  get position(): number {
    return this.flushed + this.used;
  }

  async write(bytes: Uint8Array): Promise<void> {
    if (bytes.length >= FLUSH_BYTES) {
      await this.flush();
      await this.writeAll(bytes);
      return;
    }
    if (this.used + bytes.length > FLUSH_BYTES) await this.flush();
    this.buf.set(bytes, this.used);
    this.used += bytes.length;
  }

  async pad(n: number): Promise<void> {
    if (n > 0) await this.write(new Uint8Array(n));
  }

  async flush(): Promise<void> {
    if (this.used === 0) return;
    await this.writeAll(this.buf.subarray(0, this.used));
    this.used = 0;
  }

  private async writeAll(bytes: Uint8Array): Promise<void> {
    let done = 0;
    while (done < bytes.length) {
      const { bytesWritten } = await this.fh.write(bytes, done, bytes.length - done, this.flushed);
      done += bytesWritten;
      this.flushed += bytesWritten;
    }
  }
}
