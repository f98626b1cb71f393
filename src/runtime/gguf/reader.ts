/**
 * GGUF reader: header, every metadata key/value and the tensor-info table, without the tensor data.
 *
 * The file is read front to back through a small buffer, so inspecting a multi-gigabyte model costs
 * only the size of its header. Every length and count is checked against the bytes left in the file
 * before anything is allocated: a corrupt or hostile file gets a GgufError, never a giant allocation.
 */
import { open, stat } from "node:fs/promises";
import { endianness } from "node:os";
import { ChunkReader } from "./chunk-reader.js";
import { GgufError } from "./errors.js";
import { ggmlTypeTraits } from "./ggml-types.js";
import {
  GGUF_TYPED_ARRAYS,
  GGUF_VALUE_TYPES,
  type GgufArray,
  type GgufFileInfo,
  type GgufMetadata,
  type GgufTensorInfo,
  type GgufValue,
  type GgufValueType,
} from "./types.js";

const GGUF_MAGIC = 0x46554747; // "GGUF" read as a little-endian u32
const DEFAULT_ALIGNMENT = 32;
const MAX_DIMS = 4;
const MAX_ARRAY_NESTING = 8;
const LITTLE_ENDIAN_HOST = endianness() === "LE";

/** Size in bytes of fixed-size item types; the smallest encoding for strings and arrays. */
const MIN_ITEM_BYTES: Record<GgufValueType, number> = {
  uint8: 1,
  int8: 1,
  uint16: 2,
  int16: 2,
  uint32: 4,
  int32: 4,
  float32: 4,
  bool: 1,
  string: 8,
  array: 12,
  uint64: 8,
  int64: 8,
  float64: 8,
};

/**
 * Reads a GGUF file's header, metadata and tensor infos (not the tensor data).
 *
 * @example
 * const gguf = await readGguf("model.gguf");
 * console.log(gguf.metadata.get("general.architecture")?.value, gguf.tensors.length);
 */
export async function readGguf(path: string): Promise<GgufFileInfo> {
  if (typeof path !== "string" || path.length === 0) {
    throw new TypeError(`readGguf: path must be a non-empty string, got ${JSON.stringify(path)}`);
  }
  let size: number;
  try {
    const st = await stat(path);
    if (!st.isFile()) {
      throw new GgufError(
        "NOT_A_FILE",
        path,
        st.isDirectory() ? "is a directory, not a GGUF file" : "is not a regular file",
      );
    }
    size = st.size;
  } catch (e) {
    throw ioError(path, e);
  }
  let fh;
  try {
    fh = await open(path, "r");
  } catch (e) {
    throw ioError(path, e);
  }
  try {
    return await parse(new ChunkReader(fh, path, size));
  } catch (e) {
    throw ioError(path, e);
  } finally {
    await fh.close();
  }
}

/**
 * Reads only what most callers want: the metadata key/values of a GGUF file (e.g. its chat template).
 *
 * @example
 * const meta = await readGgufMetadata("model.gguf");
 * const template = meta.get("tokenizer.chat_template")?.value; // string | undefined
 */
export async function readGgufMetadata(path: string): Promise<GgufMetadata> {
  return (await readGguf(path)).metadata;
}

function ioError(path: string, e: unknown): Error {
  if (e instanceof GgufError) return e;
  const err = e as NodeJS.ErrnoException;
  if (err?.code === "ENOENT") return new GgufError("NOT_FOUND", path, "no such file");
  if (err?.code === "EISDIR") return new GgufError("NOT_A_FILE", path, "is a directory, not a GGUF file");
  return new GgufError("IO", path, `cannot read: ${err?.message ?? String(e)}`);
}

async function parse(r: ChunkReader): Promise<GgufFileInfo> {
  const path = r.path;
  if (r.fileSize < 4) {
    throw new GgufError("BAD_MAGIC", path, `not a GGUF file: only ${r.fileSize} bytes long`);
  }
  await r.fill(4, "the magic");
  const magic = r.buffer.readUInt32LE(r.pos);
  if (magic !== GGUF_MAGIC) {
    const shown = JSON.stringify(r.buffer.toString("latin1", r.pos, r.pos + 4));
    throw new GgufError("BAD_MAGIC", path, `not a GGUF file: starts with ${shown} instead of "GGUF"`, 0);
  }
  r.pos += 4;
  await r.fill(4 + 8 + 8, "the header");
  const version = r.buffer.readUInt32LE(r.pos);
  if (version !== 2 && version !== 3) {
    const swapped = r.buffer.readUInt32BE(r.pos);
    const why = swapped === 2 || swapped === 3 ? " (a big-endian GGUF file, not supported)" : "";
    throw new GgufError(
      "UNSUPPORTED_VERSION",
      path,
      `unsupported GGUF version ${version}${why}: only 2 and 3 are read`,
      4,
    );
  }
  r.pos += 4;
  const tensorCount = readU64(r, "tensor count");
  const kvCount = readU64(r, "metadata key/value count");
  // Smallest possible encodings: a key/value is 8 (key length) + 4 (type) + 1 bytes, a tensor info 24.
  checkFits(
    r,
    kvCount * 13 + tensorCount * 24,
    `header claims ${kvCount} metadata entries and ${tensorCount} tensors`,
    8,
  );

  const metadata: GgufMetadata = new Map();
  for (let i = 0; i < kvCount; i++) {
    const keyOffset = r.offset;
    const key = await readString(r, `metadata key #${i}`);
    if (metadata.has(key)) throw new GgufError("INVALID", path, `duplicate metadata key "${key}"`, keyOffset);
    await r.fill(4, `the type of "${key}"`);
    const type = valueType(r, key);
    metadata.set(key, await readValue(r, type, key, 0));
  }

  let alignment = DEFAULT_ALIGNMENT;
  const alignmentValue = metadata.get("general.alignment");
  if (alignmentValue !== undefined) {
    if (alignmentValue.type !== "uint32") {
      throw new GgufError("INVALID", path, `general.alignment must be a uint32, found ${alignmentValue.type}`);
    }
    alignment = alignmentValue.value;
    if (alignment === 0 || (alignment & (alignment - 1)) !== 0) {
      throw new GgufError("INVALID", path, `general.alignment ${alignment} is not a power of two`);
    }
  }

  const tensors: GgufTensorInfo[] = [];
  const names = new Set<string>();
  for (let i = 0; i < tensorCount; i++) {
    const infoOffset = r.offset;
    const tensor = await readTensorInfo(r, i);
    if (names.has(tensor.name))
      throw new GgufError("INVALID", path, `duplicate tensor name "${tensor.name}"`, infoOffset);
    names.add(tensor.name);
    tensors.push(tensor);
  }

  const headerEnd = r.offset;
  const dataOffset = tensorCount > 0 ? alignUp(headerEnd, alignment) : headerEnd;
  for (const t of tensors) {
    if (t.offset % alignment !== 0) {
      throw new GgufError(
        "INVALID",
        path,
        `tensor "${t.name}" data offset ${t.offset} is not a multiple of the alignment ${alignment}`,
      );
    }
    t.fileOffset = dataOffset + t.offset;
    if (t.fileOffset + t.byteSize > r.fileSize) {
      throw new GgufError(
        "TRUNCATED",
        path,
        `file is truncated: tensor "${t.name}" (${t.byteSize} bytes) would end at offset ` +
          `${t.fileOffset + t.byteSize} but the file ends at ${r.fileSize}`,
        t.fileOffset,
      );
    }
  }
  return { path, version, fileSize: r.fileSize, metadata, tensors, alignment, dataOffset };
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

/** Reads a u64 that must fit a JS number (the caller has made 8 bytes available). */
function readU64(r: ChunkReader, what: string): number {
  const lo = r.buffer.readUInt32LE(r.pos);
  const hi = r.buffer.readUInt32LE(r.pos + 4);
  if (hi >= 0x200000) {
    throw new GgufError(
      "IMPLAUSIBLE",
      r.path,
      `${what} ${(BigInt(hi) << 32n) | BigInt(lo)} is implausibly large`,
      r.offset,
    );
  }
  r.pos += 8;
  return hi * 0x100000000 + lo;
}

/** No real GGUF item is this large: a count implying more is corrupt, not merely cut short. */
const PLAUSIBLE_BYTES = 2 ** 40;

/**
 * Throws unless `needed` bytes (the least a count or length implies) fit in the rest of the file:
 * IMPLAUSIBLE when no real file could hold them (garbage counts), TRUNCATED otherwise.
 * Checked before anything is allocated for the item.
 */
function checkFits(r: ChunkReader, needed: number, claim: string, at: number): void {
  if (needed <= r.remainingInFile) return;
  const need = claim.endsWith(" bytes") ? claim : `${claim}, needing at least ${needed} bytes`;
  if (needed > PLAUSIBLE_BYTES) {
    throw new GgufError("IMPLAUSIBLE", r.path, `${need}: implausible, the file is corrupt`, at);
  }
  throw new GgufError("TRUNCATED", r.path, `file is truncated: ${need}, but only ${r.remainingInFile} remain`, at);
}

function valueType(r: ChunkReader, key: string): GgufValueType {
  const id = r.buffer.readUInt32LE(r.pos);
  const type = GGUF_VALUE_TYPES[id];
  if (type === undefined) {
    throw new GgufError("INVALID", r.path, `unknown value type ${id} for metadata key "${key}"`, r.offset);
  }
  r.pos += 4;
  return type;
}

async function readString(r: ChunkReader, what: string): Promise<string> {
  if (r.available() < 8) await r.fill(8, `the length of ${what}`);
  const at = r.offset;
  const len = readU64(r, `length of ${what}`);
  if (r.available() < len) {
    checkFits(r, len, `${what} claims ${len} bytes`, at);
    await r.fill(len, what);
  }
  const s = r.buffer.toString("utf8", r.pos, r.pos + len);
  r.pos += len;
  return s;
}

async function readValue(r: ChunkReader, type: GgufValueType, key: string, depth: number): Promise<GgufValue> {
  if (type === "string") return { type, value: await readString(r, `the value of "${key}"`) };
  if (type === "array") return readArray(r, key, depth);
  const size = MIN_ITEM_BYTES[type];
  if (r.available() < size) await r.fill(size, `the value of "${key}"`);
  const b = r.buffer;
  const p = r.pos;
  r.pos += size;
  switch (type) {
    case "uint8":
      return { type, value: b.readUInt8(p) };
    case "int8":
      return { type, value: b.readInt8(p) };
    case "uint16":
      return { type, value: b.readUInt16LE(p) };
    case "int16":
      return { type, value: b.readInt16LE(p) };
    case "uint32":
      return { type, value: b.readUInt32LE(p) };
    case "int32":
      return { type, value: b.readInt32LE(p) };
    case "float32":
      return { type, value: b.readFloatLE(p) };
    case "float64":
      return { type, value: b.readDoubleLE(p) };
    case "bool":
      return { type, value: b.readUInt8(p) !== 0 };
    case "uint64":
      return { type, value: b.readBigUInt64LE(p) };
    case "int64":
      return { type, value: b.readBigInt64LE(p) };
  }
}

async function readArray(r: ChunkReader, key: string, depth: number): Promise<GgufArray> {
  if (depth >= MAX_ARRAY_NESTING) {
    throw new GgufError(
      "INVALID",
      r.path,
      `metadata "${key}" nests arrays more than ${MAX_ARRAY_NESTING} deep`,
      r.offset,
    );
  }
  if (r.available() < 12) await r.fill(12, `the array header of "${key}"`);
  const itemType = valueType(r, key);
  const at = r.offset;
  const count = readU64(r, `length of array "${key}"`);
  checkFits(r, count * MIN_ITEM_BYTES[itemType], `array "${key}" claims ${count} ${itemType} items`, at);
  switch (itemType) {
    case "string": {
      // Token lists hold 100k+ short strings: decode straight from the buffer, awaiting only when
      // it runs dry (an await per item would cost more than the decoding).
      const items = new Array<string>(count);
      for (let i = 0; i < count; i++) {
        const b = r.buffer;
        const p = r.pos;
        if (r.available() >= 8) {
          const len = b.readUInt32LE(p);
          if (b.readUInt32LE(p + 4) === 0 && r.available() >= 8 + len) {
            items[i] = b.toString("utf8", p + 8, p + 8 + len);
            r.pos = p + 8 + len;
            continue;
          }
        }
        items[i] = await readString(r, `item ${i} of "${key}"`);
      }
      return { type: "array", itemType, value: items };
    }
    case "bool": {
      await r.fill(count, `the items of "${key}"`);
      const items = new Array<boolean>(count);
      for (let i = 0; i < count; i++) items[i] = r.buffer[r.pos + i] !== 0;
      r.pos += count;
      return { type: "array", itemType, value: items };
    }
    case "array": {
      const items = new Array<GgufArray>(count);
      for (let i = 0; i < count; i++) items[i] = await readArray(r, `${key}[${i}]`, depth + 1);
      return { type: "array", itemType, value: items };
    }
    default: {
      const items = new GGUF_TYPED_ARRAYS[itemType](count);
      const bytes = new Uint8Array(items.buffer, items.byteOffset, items.byteLength);
      await r.readInto(bytes, `the items of "${key}"`);
      if (!LITTLE_ENDIAN_HOST) swapBytes(bytes, items.BYTES_PER_ELEMENT);
      return { type: "array", itemType, value: items } as GgufArray;
    }
  }
}

function swapBytes(bytes: Uint8Array, width: number): void {
  if (width === 1) return;
  for (let i = 0; i < bytes.length; i += width) bytes.subarray(i, i + width).reverse();
}

async function readTensorInfo(r: ChunkReader, index: number): Promise<GgufTensorInfo> {
  const name = await readString(r, `the name of tensor #${index}`);
  await r.fill(4, `the dimension count of tensor "${name}"`);
  const dimsAt = r.offset;
  const nDims = r.buffer.readUInt32LE(r.pos);
  r.pos += 4;
  if (nDims > MAX_DIMS) {
    throw new GgufError(
      "INVALID",
      r.path,
      `tensor "${name}" has ${nDims} dimensions, at most ${MAX_DIMS} are allowed`,
      dimsAt,
    );
  }
  await r.fill(nDims * 8 + 4 + 8, `the shape, type and offset of tensor "${name}"`);
  const shape: number[] = [];
  let elementCount = 1;
  for (let d = 0; d < nDims; d++) {
    const ne = readU64(r, `dimension ${d} of tensor "${name}"`);
    shape.push(ne);
    elementCount *= ne;
  }
  if (!Number.isSafeInteger(elementCount)) {
    throw new GgufError(
      "IMPLAUSIBLE",
      r.path,
      `tensor "${name}" shape [${shape.join(", ")}] has too many elements`,
      dimsAt,
    );
  }
  const typeAt = r.offset;
  const type = r.buffer.readUInt32LE(r.pos);
  r.pos += 4;
  const traits = ggmlTypeTraits(type);
  if (!traits) throw new GgufError("INVALID", r.path, `tensor "${name}" has unknown ggml type ${type}`, typeAt);
  const rowLength = shape[0] ?? 1;
  if (rowLength % traits.blockSize !== 0) {
    throw new GgufError(
      "INVALID",
      r.path,
      `tensor "${name}" of type ${traits.name} has rows of ${rowLength} elements, not a multiple of the block ` +
        `size ${traits.blockSize}`,
      dimsAt,
    );
  }
  const byteSize = (elementCount / traits.blockSize) * traits.typeSize;
  const offset = readU64(r, `data offset of tensor "${name}"`);
  return { name, shape, type, typeName: traits.name, offset, fileOffset: 0, byteSize, elementCount };
}
