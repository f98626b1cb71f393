/**
 * The checks of `ContextOptions` that take more than a range: speculative decoding and flash attention,
 * each mapped to its native form.
 */
import type { NativeContextOptions } from "./binding.js";
import type { Model } from "./model.js";
import { checkKeys, checkObject, describe, optBoolean, optInteger, optNumber } from "../validate/index.js";

const SPECULATIVE_KEYS: readonly string[] = ["lookup", "draft", "maxDraft", "minProbability"];

/** `{ [key]: value }`, or nothing when the value is undefined (so the native default applies). */
export function defined<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/** The native form of `ContextOptions.speculative`, or undefined when off. */
export function checkSpeculative(value: unknown, model: Model): NativeContextOptions["speculative"] {
  if (value === undefined) return undefined;
  const where = "createContext: options.speculative";
  const o = checkObject(value, where);
  checkKeys(o, SPECULATIVE_KEYS, where);
  const lookup = optBoolean(o.lookup, `${where}.lookup`) ?? false;
  const maxDraft = optInteger(o.maxDraft, `${where}.maxDraft`, 1, 64);
  const minProbability = optNumber(o.minProbability, `${where}.minProbability`, 0, 1);
  // A Model of this package (the class is not imported here: model.ts imports this file).
  if (o.draft !== undefined && !(o.draft instanceof (model.constructor as new (...args: never[]) => Model))) {
    throw new TypeError(`${where}.draft must be a Model from loadModel(), got ${describe(o.draft)}`);
  }
  const draft = o.draft as Model | undefined;
  if (!lookup && draft === undefined) return undefined;
  return {
    lookup,
    ...defined("maxDraft", maxDraft),
    ...defined("minProbability", minProbability),
    ...(draft ? { draft: draft.native } : {}),
  };
}

/** The native form of `ContextOptions.flashAttention`: undefined for "auto" (llama.cpp decides). */
export function checkFlashAttention(value: unknown): boolean | undefined {
  if (value === undefined || value === "auto") return undefined;
  if (typeof value !== "boolean")
    throw new TypeError(`createContext: options.flashAttention must be true, false or "auto", got ${describe(value)}`);
  return value;
}
