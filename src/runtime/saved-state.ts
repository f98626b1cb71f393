/**
 * The file of a saved sequence state (`Context.saveState`): our own header, then llama.cpp's
 * sequence state bytes, so a state from another model, format or a damaged file is refused with a
 * clear error before llama.cpp sees it.
 *
 * Layout (little-endian): the magic "TWSTATE\0"; a u32 format version; a u32 byte length and a
 * JSON header ({@link StateHeader}); the tokens as i32; llama.cpp's state bytes.
 */
import { createHash } from "node:crypto";
import { open, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { SavedStateError, errorCode } from "./errors.js";
import type { NativeContext } from "./binding-types.js";
import { awaitNative } from "./errors.js";
import type { Model } from "./model.js";
import { checkKeys, checkObject, describe, optInteger } from "../validate/index.js";

/** Options of `Context.saveState` and `Context.loadState`. */
export interface StateOptions {
  /**
   * The sequence, 0 to `sequences - 1`. Default: for saveState, the sequence of the latest generation; for
   * loadState, the free sequence least recently used.
   */
  sequence?: number;
}

/** What `Context.saveState` wrote or `Context.loadState` restored. */
export interface SavedStateInfo {
  /** The sequence it came from or went to. */
  sequence: number;
  /** The tokens of that sequence's cache: a prompt starting with them reuses them. */
  tokens: Int32Array;
}

const MAGIC = Buffer.from("TWSTATE\0", "latin1");
/** Bump when the layout or the header's meaning changes: older files are refused, not misread. */
export const STATE_FORMAT_VERSION = 1;
/** A header larger than this is corrupt (it holds a few short fields). */
const MAX_HEADER_BYTES = 1 << 20;

/** Which model made a state: enough to name it in an error, and a hash to compare. */
export interface ModelFingerprint {
  architecture: string;
  vocabSize: number;
  parameterCount: number;
  sizeBytes: number;
  /** sha256 of the model's metadata and sizes. */
  hash: string;
}

/** The JSON header of a state file. */
export interface StateHeader {
  model: ModelFingerprint;
  /** The adapters the cache was computed under: "path@scale", in order. */
  loras: string[];
  /**
   * The saving context's `sequences`: llama.cpp lays out a sequence's state per cache stream (one for a
   * context of one sequence, one per sequence otherwise), so it restores only into as many.
   */
  sequences: number;
  tokenCount: number;
  stateBytes: number;
  /** sha256 of the tokens and state bytes. */
  sha256: string;
}

/** What a state file holds. */
export interface SavedState {
  header: StateHeader;
  tokens: Int32Array;
  data: Uint8Array;
}

/** Bytes read from the model file at evenly spaced offsets: weights of another finetune differ there. */
const SAMPLES = 16;
const SAMPLE_BYTES = 4096;
const fingerprints = new WeakMap<Model, Promise<ModelFingerprint>>();

/**
 * The fingerprint of a model: its metadata (every key and value, as llama.cpp reads them), vocabulary size,
 * parameter count, tensor bytes, and samples of its file's bytes (two finetunes of one base share all the
 * rest). The file's path is left out, so a copy or a renamed file matches. Computed once per model.
 */
export function modelFingerprint(model: Model): Promise<ModelFingerprint> {
  let fingerprint = fingerprints.get(model);
  if (!fingerprint) {
    fingerprint = computeFingerprint(model);
    fingerprints.set(model, fingerprint);
  }
  return fingerprint;
}

async function computeFingerprint(model: Model): Promise<ModelFingerprint> {
  const metadata = Object.entries(model.metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const facts = { metadata, vocabSize: model.vocabSize, parameters: model.info.parameterCount };
  const hash = createHash("sha256").update(JSON.stringify(facts)).update(String(model.info.sizeBytes));
  const file = await open(model.path, "r");
  try {
    const size = (await file.stat()).size;
    const sample = Buffer.alloc(SAMPLE_BYTES);
    for (let i = 0; i < SAMPLES; i++) {
      const at = Math.floor(((size - SAMPLE_BYTES) * i) / (SAMPLES - 1));
      const { bytesRead } = await file.read(sample, 0, SAMPLE_BYTES, Math.max(0, at));
      hash.update(sample.subarray(0, bytesRead));
    }
    hash.update(String(size));
  } finally {
    await file.close();
  }
  return {
    architecture: model.metadata["general.architecture"] ?? "",
    vocabSize: model.vocabSize,
    parameterCount: model.info.parameterCount,
    sizeBytes: model.info.sizeBytes,
    hash: hash.digest("hex"),
  };
}

function digest(tokens: Int32Array, data: Uint8Array): string {
  return createHash("sha256")
    .update(new Uint8Array(tokens.buffer, tokens.byteOffset, tokens.byteLength))
    .update(data)
    .digest("hex");
}

/** The bytes of a state file for `tokens` and llama.cpp's `data`. */
export function encodeState(
  model: ModelFingerprint,
  loras: string[],
  sequences: number,
  tokens: Int32Array,
  data: Uint8Array,
): Buffer[] {
  const header: StateHeader = {
    model,
    loras,
    sequences,
    tokenCount: tokens.length,
    stateBytes: data.byteLength,
    sha256: digest(tokens, data),
  };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const fixed = Buffer.alloc(16);
  MAGIC.copy(fixed, 0);
  fixed.writeUInt32LE(STATE_FORMAT_VERSION, 8);
  fixed.writeUInt32LE(json.byteLength, 12);
  const tokenBytes = Buffer.alloc(tokens.length * 4);
  for (let i = 0; i < tokens.length; i++) tokenBytes.writeInt32LE(tokens[i]!, i * 4);
  return [fixed, json, tokenBytes, Buffer.from(data.buffer, data.byteOffset, data.byteLength)];
}

/** Reads a state file's bytes; throws a {@link SavedStateError} naming `path` and what is wrong. */
export function decodeState(bytes: Buffer, path: string): SavedState {
  const invalid = (what: string): SavedStateError =>
    new SavedStateError(`Cannot restore "${path}": ${what}`, "TOOLWRIGHT_STATE_INVALID", path);
  if (bytes.byteLength < 16 || !bytes.subarray(0, 8).equals(MAGIC))
    throw invalid("not a toolwright state file (no TWSTATE magic)");
  const version = bytes.readUInt32LE(8);
  if (version !== STATE_FORMAT_VERSION)
    throw invalid(`state format version ${version}; this toolwright reads version ${STATE_FORMAT_VERSION}`);
  const headerBytes = bytes.readUInt32LE(12);
  if (headerBytes > MAX_HEADER_BYTES || 16 + headerBytes > bytes.byteLength) throw invalid("truncated header");
  const header = parseHeader(bytes.subarray(16, 16 + headerBytes));
  if (header === undefined) throw invalid("corrupt header");
  const tokensAt = 16 + headerBytes;
  const dataAt = tokensAt + header.tokenCount * 4;
  const end = dataAt + header.stateBytes;
  if (end > bytes.byteLength) throw invalid(`truncated: ${bytes.byteLength} bytes of ${end}`);
  if (end < bytes.byteLength) throw invalid(`${bytes.byteLength - end} bytes after the state`);
  const tokens = new Int32Array(header.tokenCount);
  for (let i = 0; i < tokens.length; i++) tokens[i] = bytes.readInt32LE(tokensAt + i * 4);
  const data = bytes.subarray(dataAt, end);
  if (digest(tokens, data) !== header.sha256) throw invalid("corrupt: its checksum does not match");
  return { header, tokens, data };
}

function parseHeader(bytes: Buffer): StateHeader | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
  const h = value as Partial<StateHeader> | null;
  const count = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  if (h === null || typeof h !== "object" || !count(h.tokenCount) || !count(h.stateBytes)) return undefined;
  if (!count(h.sequences)) return undefined;
  if (typeof h.sha256 !== "string" || !Array.isArray(h.loras) || typeof h.model !== "object" || h.model === null)
    return undefined;
  if (typeof h.model.hash !== "string") return undefined;
  return h as StateHeader;
}

/**
 * Throws a {@link SavedStateError} (TOOLWRIGHT_STATE_MISMATCH) when the state was made by another model, under
 * other adapters, holds more tokens than the context, or comes from a context of another number of sequences.
 */
export function checkStateFits(
  header: StateHeader,
  model: ModelFingerprint,
  loras: string[],
  context: { contextSize: number; sequences: number },
  path: string,
): void {
  const mismatch = (what: string): SavedStateError =>
    new SavedStateError(`Cannot restore "${path}": ${what}`, "TOOLWRIGHT_STATE_MISMATCH", path);
  const made = header.model;
  if (made.hash !== model.hash) {
    throw mismatch(
      `it was saved by another model (${made.architecture}, ${made.vocabSize} tokens, ${made.parameterCount} ` +
        `parameters; this one: ${model.architecture}, ${model.vocabSize} tokens, ${model.parameterCount} parameters)`,
    );
  }
  if (header.loras.join("\n") !== loras.join("\n")) {
    const list = (l: string[]): string => (l.length === 0 ? "none" : l.join(", "));
    throw mismatch(`it was saved under LoRA adapters ${list(header.loras)}; this context has ${list(loras)}`);
  }
  if (header.tokenCount > context.contextSize)
    throw mismatch(`it holds ${header.tokenCount} tokens, more than the context size ${context.contextSize}`);
  if (header.sequences !== context.sequences) {
    throw mismatch(
      `it was saved from a context of ${header.sequences} sequence(s) and this one has ${context.sequences}; ` +
        "restore it into a context with the same `sequences`",
    );
  }
}

/** What a state file records of its context besides the model. */
export interface StateContext {
  /** The applied adapters, "path@scale" in order. */
  loras: string[];
  sequences: number;
}

/** Writes `saved` (a sequence's tokens and llama.cpp's bytes) to `file` through a temporary file renamed over it. */
export async function writeStateFile(
  file: string,
  model: Model,
  context: StateContext,
  saved: { tokens: Int32Array; data: Uint8Array },
): Promise<void> {
  const fingerprint = await modelFingerprint(model);
  const chunks = encodeState(fingerprint, context.loras, context.sequences, saved.tokens, saved.data);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, chunks);
    await rename(temporary, file);
  } catch (err) {
    await unlink(temporary).catch(() => undefined);
    throw err;
  }
}

/**
 * Reads and checks a state file for a context of `model`: a {@link SavedStateError} naming `file` when it is
 * missing, damaged, or does not fit ({@link checkStateFits}).
 */
export async function readStateFile(
  file: string,
  model: Model,
  context: StateContext & { contextSize: number },
): Promise<SavedState> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const code = errorCode(err) === "ENOENT" ? "ENOENT" : "TOOLWRIGHT_STATE_INVALID";
    throw new SavedStateError(`Cannot restore "${file}": ${(err as Error).message}`, code, file, { cause: err });
  }
  const state = decodeState(bytes, file);
  checkStateFits(state.header, await modelFingerprint(model), context.loras, context, file);
  return state;
}

/** A state file's path option: a non-empty string. */
export function checkStatePath(path: unknown, name: string): string {
  if (typeof path !== "string") throw new TypeError(`${name} must be a string, got ${describe(path)}`);
  if (path === "") throw new RangeError(`${name} must not be empty`);
  return path;
}

/** The `sequence` of {@link StateOptions}, checked against a context of `sequences`. */
export function stateSequenceOption(options: unknown, method: string, sequences: number): number | undefined {
  const o = checkObject(options, `${method}: options`);
  checkKeys(o, ["sequence"], `${method}: options`);
  return optInteger(o.sequence, `${method}: options.sequence`, 0, sequences - 1);
}

/** Restores a checked state onto `sequence` (undefined: the native side picks); resolves with the sequence. */
export async function restoreSequence(
  native: NativeContext,
  file: string,
  sequence: number | undefined,
  state: SavedState,
): Promise<number> {
  try {
    return await awaitNative(() => native.restoreSequence(sequence ?? -1, state.tokens, state.data));
  } catch (err) {
    const code = errorCode(err);
    if (code !== "TOOLWRIGHT_STATE_INVALID" && code !== "TOOLWRIGHT_STATE_MISMATCH") throw err;
    throw new SavedStateError(`Cannot restore "${file}": ${(err as Error).message}`, code, file, { cause: err });
  }
}
