/**
 * Building and reading typed GGUF metadata values without spelling out `{ type, value }` objects.
 */
import type { GgufArray, GgufMetadata, GgufTypedArrays, GgufValue } from "./types.js";

/**
 * Constructors for metadata values, one per GGUF type.
 *
 * @example
 * const meta: GgufMetadata = new Map([
 *   ["general.architecture", gguf.string("llama")],
 *   ["llama.block_count", gguf.uint32(2)],
 *   ["tokenizer.ggml.scores", gguf.array("float32", new Float32Array([0, -1]))],
 * ]);
 */
export const gguf = {
  uint8: (value: number): GgufValue => ({ type: "uint8", value }),
  int8: (value: number): GgufValue => ({ type: "int8", value }),
  uint16: (value: number): GgufValue => ({ type: "uint16", value }),
  int16: (value: number): GgufValue => ({ type: "int16", value }),
  uint32: (value: number): GgufValue => ({ type: "uint32", value }),
  int32: (value: number): GgufValue => ({ type: "int32", value }),
  float32: (value: number): GgufValue => ({ type: "float32", value }),
  float64: (value: number): GgufValue => ({ type: "float64", value }),
  uint64: (value: bigint): GgufValue => ({ type: "uint64", value }),
  int64: (value: bigint): GgufValue => ({ type: "int64", value }),
  bool: (value: boolean): GgufValue => ({ type: "bool", value }),
  string: (value: string): GgufValue => ({ type: "string", value }),
  array<K extends keyof GgufTypedArrays>(itemType: K, items: GgufTypedArrays[K]): GgufArray {
    return { type: "array", itemType, value: items } as GgufArray;
  },
  stringArray: (items: string[]): GgufArray => ({ type: "array", itemType: "string", value: items }),
  boolArray: (items: boolean[]): GgufArray => ({ type: "array", itemType: "bool", value: items }),
  arrayOfArrays: (items: GgufArray[]): GgufArray => ({ type: "array", itemType: "array", value: items }),
};

/**
 * A string metadata value, `undefined` when the key is absent; TypeError when it is not a string.
 *
 * @example
 * const template = ggufString(meta, "tokenizer.chat_template");
 */
export function ggufString(meta: GgufMetadata, key: string): string | undefined {
  const v = meta.get(key);
  if (v === undefined) return undefined;
  if (v.type !== "string") throw new TypeError(`GGUF metadata "${key}" is a ${v.type}, not a string`);
  return v.value;
}

/**
 * A numeric metadata value (any integer or float type; 64-bit integers must be safe integers),
 * `undefined` when the key is absent.
 *
 * @example
 * const layers = ggufNumber(meta, "llama.block_count");
 */
export function ggufNumber(meta: GgufMetadata, key: string): number | undefined {
  const v = meta.get(key);
  if (v === undefined) return undefined;
  if (v.type === "uint64" || v.type === "int64") {
    const n = Number(v.value);
    if (!Number.isSafeInteger(n)) throw new RangeError(`GGUF metadata "${key}" = ${v.value} does not fit a JS number`);
    return n;
  }
  if (v.type === "string" || v.type === "bool" || v.type === "array") {
    throw new TypeError(`GGUF metadata "${key}" is a ${v.type}, not a number`);
  }
  return v.value as number;
}

/**
 * A boolean metadata value, `undefined` when the key is absent.
 *
 * @example
 * const addBos = ggufBool(meta, "tokenizer.ggml.add_bos_token") ?? true;
 */
export function ggufBool(meta: GgufMetadata, key: string): boolean | undefined {
  const v = meta.get(key);
  if (v === undefined) return undefined;
  if (v.type !== "bool") throw new TypeError(`GGUF metadata "${key}" is a ${v.type}, not a bool`);
  return v.value;
}

/**
 * A string-array metadata value (e.g. `tokenizer.ggml.tokens`), `undefined` when the key is absent.
 *
 * @example
 * const tokens = ggufStringArray(meta, "tokenizer.ggml.tokens") ?? [];
 */
export function ggufStringArray(meta: GgufMetadata, key: string): string[] | undefined {
  const v = meta.get(key);
  if (v === undefined) return undefined;
  if (v.type !== "array" || v.itemType !== "string") {
    throw new TypeError(
      `GGUF metadata "${key}" is a ${v.type === "array" ? `${v.itemType} array` : v.type}, not a string array`,
    );
  }
  return v.value;
}

/**
 * A metadata value as plain JSON-friendly data (bigints as decimal strings when unsafe, typed
 * arrays as arrays), for printing. Arrays longer than `maxItems` are cut and end with "… N more".
 *
 * @example
 * console.log(JSON.stringify(ggufToJson(meta.get("tokenizer.ggml.tokens")!, 5)));
 */
export function ggufToJson(v: GgufValue, maxItems = Infinity): unknown {
  if (v.type === "uint64" || v.type === "int64") {
    const n = Number(v.value);
    return Number.isSafeInteger(n) ? n : v.value.toString();
  }
  if (v.type !== "array") return v.value;
  const items: ArrayLike<unknown> = v.value;
  const shown = Math.min(items.length, maxItems);
  const out: unknown[] = [];
  for (let i = 0; i < shown; i++) {
    const item = items[i];
    if (v.itemType === "array") out.push(ggufToJson(item as GgufArray, maxItems));
    else if (typeof item === "bigint") out.push(ggufToJson({ type: "int64", value: item }));
    else out.push(item);
  }
  if (shown < items.length) out.push(`… ${items.length - shown} more`);
  return out;
}
