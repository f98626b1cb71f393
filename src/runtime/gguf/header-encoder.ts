/**
 * Serialises GGUF metadata values and tensor infos into a growable little-endian byte buffer,
 * checking each value against its declared type (the boundary where caller data enters the file).
 */
import {
  GGUF_TYPED_ARRAYS,
  GGUF_VALUE_TYPES,
  type GgufArray,
  type GgufValue,
  type GgufValueType,
  isTypedArrayItemType,
} from "./types.js";

const INT_RANGES: Partial<Record<GgufValueType, [number, number]>> = {
  uint8: [0, 0xff],
  int8: [-0x80, 0x7f],
  uint16: [0, 0xffff],
  int16: [-0x8000, 0x7fff],
  uint32: [0, 0xffffffff],
  int32: [-0x80000000, 0x7fffffff],
};

export class HeaderEncoder {
  private buf = Buffer.allocUnsafe(1 << 16);
  length = 0;

  /** The encoded bytes so far. */
  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }

  private ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.length + n, this.buf.length * 2));
    this.buf.copy(bigger, 0, 0, this.length);
    this.buf = bigger;
  }

  u32(n: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(n, this.length);
    this.length += 4;
  }

  u64(n: number | bigint): void {
    this.ensure(8);
    this.buf.writeBigUInt64LE(BigInt(n), this.length);
    this.length += 8;
  }

  string(s: string): void {
    const len = Buffer.byteLength(s, "utf8");
    this.ensure(8 + len);
    this.buf.writeUInt32LE(len % 0x100000000, this.length);
    this.buf.writeUInt32LE(Math.floor(len / 0x100000000), this.length + 4);
    this.buf.write(s, this.length + 8, len, "utf8");
    this.length += 8 + len;
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** Writes one key/value: key, type id, value. `where` names the key for error messages. */
  keyValue(key: string, value: GgufValue): void {
    if (typeof key !== "string" || key.length === 0)
      throw new TypeError(`GGUF metadata key must be a non-empty string, got ${JSON.stringify(key)}`);
    if (value === null || typeof value !== "object") {
      throw new TypeError(`GGUF metadata "${key}": expected a { type, value } object, got ${String(value)}`);
    }
    this.string(key);
    this.u32(typeId(value.type, key));
    this.value(value, key);
  }

  private value(v: GgufValue, where: string): void {
    // Values come from callers' code, possibly untyped JS: check the value, not just the tag.
    const value: unknown = v.value;
    switch (v.type) {
      case "string":
        if (typeof value !== "string") throw typeError(where, "a string", value);
        this.string(value);
        return;
      case "bool":
        if (typeof value !== "boolean") throw typeError(where, "a boolean", value);
        this.ensure(1);
        this.buf[this.length++] = value ? 1 : 0;
        return;
      case "uint64":
      case "int64":
        this.scalar64(v.type, value, where);
        return;
      case "float32":
      case "float64":
        if (typeof value !== "number") throw typeError(where, "a number", value);
        this.ensure(8);
        this.length =
          v.type === "float32" ? this.buf.writeFloatLE(value, this.length) : this.buf.writeDoubleLE(value, this.length);
        return;
      case "array":
        this.array(v, where);
        return;
      default:
        this.integer(v.type, value, where);
    }
  }

  private integer(type: GgufValueType, n: unknown, where: string): void {
    const range = INT_RANGES[type];
    if (!range) throw new TypeError(`GGUF metadata "${where}": unknown value type ${JSON.stringify(type)}`);
    if (typeof n !== "number" || !Number.isInteger(n) || n < range[0] || n > range[1]) {
      throw new RangeError(
        `GGUF metadata "${where}": ${type} must be an integer in [${range[0]}, ${range[1]}], got ${String(n)}`,
      );
    }
    this.ensure(4);
    switch (type) {
      case "uint8":
        this.length = this.buf.writeUInt8(n, this.length);
        break;
      case "int8":
        this.length = this.buf.writeInt8(n, this.length);
        break;
      case "uint16":
        this.length = this.buf.writeUInt16LE(n, this.length);
        break;
      case "int16":
        this.length = this.buf.writeInt16LE(n, this.length);
        break;
      case "uint32":
        this.length = this.buf.writeUInt32LE(n, this.length);
        break;
      default:
        this.length = this.buf.writeInt32LE(n, this.length);
    }
  }

  private scalar64(type: "uint64" | "int64", n: unknown, where: string): void {
    const ok =
      typeof n === "bigint" && (type === "uint64" ? n >= 0n && n < 1n << 64n : n >= -(1n << 63n) && n < 1n << 63n);
    if (!ok) throw new RangeError(`GGUF metadata "${where}": ${type} must be a bigint in range, got ${String(n)}`);
    this.ensure(8);
    this.length =
      type === "uint64" ? this.buf.writeBigUInt64LE(n, this.length) : this.buf.writeBigInt64LE(n, this.length);
  }

  private array(v: GgufArray, where: string): void {
    const items: unknown = v.value;
    this.u32(typeId(v.itemType, where));
    if (isTypedArrayItemType(v.itemType)) {
      const typed = GGUF_TYPED_ARRAYS[v.itemType];
      if (!(items instanceof typed)) throw typeError(where, `a ${typed.name} for a ${v.itemType} array`, items);
      const view = items as unknown as Uint8Array;
      this.u64(view.length);
      this.raw(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
      return;
    }
    if (!Array.isArray(items)) throw typeError(where, `an array of ${v.itemType} items`, items);
    this.u64(items.length);
    for (let i = 0; i < items.length; i++) {
      const item: unknown = items[i];
      switch (v.itemType) {
        case "string":
          if (typeof item !== "string") throw typeError(`${where}[${i}]`, "a string", item);
          this.string(item);
          break;
        case "bool":
          if (typeof item !== "boolean") throw typeError(`${where}[${i}]`, "a boolean", item);
          this.ensure(1);
          this.buf[this.length++] = item ? 1 : 0;
          break;
        case "array":
          if (item === null || typeof item !== "object" || (item as GgufValue).type !== "array") {
            throw typeError(`${where}[${i}]`, 'a nested { type: "array" } value', item);
          }
          this.array(item as GgufArray, `${where}[${i}]`);
          break;
        default:
          throw new TypeError(`GGUF metadata "${where}": unknown array item type ${JSON.stringify(v.itemType)}`);
      }
    }
  }
}

function typeId(type: unknown, where: string): number {
  const id = GGUF_VALUE_TYPES.indexOf(type as GgufValueType);
  if (id < 0) throw new TypeError(`GGUF metadata "${where}": unknown value type ${JSON.stringify(type)}`);
  return id;
}

function typeError(where: string, expected: string, got: unknown): TypeError {
  const shown =
    typeof got === "object" && got !== null
      ? (got.constructor?.name ?? "object")
      : typeof got === "bigint"
        ? `${got}n`
        : JSON.stringify(got);
  return new TypeError(`GGUF metadata "${where}": expected ${expected}, got ${shown}`);
}
