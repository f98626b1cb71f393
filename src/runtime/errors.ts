/**
 * Error classes of the runtime. Native errors carry a `code` (ENOENT, EISDIR,
 * TOOLWRIGHT_INVALID_GGUF, TOOLWRIGHT_LOAD_FAILED, ABORT_ERR, ...), kept on these classes:
 * every native call of the runtime passes what the addon throws through {@link fromNativeError}.
 */
import { ERROR_CODES, ToolwrightError, type ToolwrightErrorCode } from "../errors.js";

/**
 * An operation was cancelled through its AbortSignal.
 *
 * @example
 * try {
 *   await loadModel(path, { signal: AbortSignal.timeout(10) });
 * } catch (err) {
 *   if (err instanceof AbortError) console.log("cancelled");
 * }
 */
export class AbortError extends ToolwrightError<"ABORT_ERR"> {
  override name = "AbortError";
  constructor(message = "The operation was aborted", options?: { cause?: unknown }) {
    super(message, "ABORT_ERR", options);
  }
}

/**
 * A model file could not be loaded; `message` names the path and the reason.
 *
 * @example
 * try {
 *   await loadModel("missing.gguf");
 * } catch (err) {
 *   if (err instanceof ModelLoadError && err.code === "ENOENT") console.log("no such file");
 * }
 */
export class ModelLoadError extends ToolwrightError {
  override name = "ModelLoadError";
  readonly path: string;
  /**
   * `code`: ENOENT, EISDIR, EACCES, TOOLWRIGHT_INVALID_GGUF, TOOLWRIGHT_LOAD_FAILED, TOOLWRIGHT_FILE_ERROR,
   * TOOLWRIGHT_NO_GPU, TOOLWRIGHT_RPC_UNREACHABLE, TOOLWRIGHT_RPC_LOST.
   */
  constructor(message: string, code: string, path: string, options?: { cause?: unknown }) {
    super(message, isErrorCode(code) ? code : "TOOLWRIGHT_LOAD_FAILED", options);
    this.path = path;
  }
}

/**
 * A conversation or text needs more tokens than the context holds. `needed` and `contextSize`
 * say by how much; the message says what to change (a larger `contextSize`, fewer or shorter
 * messages, or `contextOverflow: "truncate-oldest"` for chats).
 *
 * @example
 * try {
 *   await model.chat({ messages, contextSize: 2048 });
 * } catch (err) {
 *   if (err instanceof ContextOverflowError) console.log(`${err.needed} tokens needed, ${err.contextSize} available`);
 * }
 */
export class ContextOverflowError extends ToolwrightError<"TOOLWRIGHT_CONTEXT_OVERFLOW"> {
  override name = "ContextOverflowError";
  /** Tokens the request needs (for a chat: the prompt plus room for one generated token). */
  readonly needed: number;
  /** Tokens the context holds. */
  readonly contextSize: number;
  constructor(message: string, needed: number, contextSize: number, options?: { cause?: unknown }) {
    super(message, "TOOLWRIGHT_CONTEXT_OVERFLOW", options);
    this.needed = needed;
    this.contextSize = contextSize;
  }
}

/**
 * `model.rank()` on a model that is not a reranker: llama.cpp scores a query/document pair only
 * with a rank head (the model's pooling type "rank" and a classifier, the `cls` or `cls.output`
 * tensors). `reason` says which is missing. Thrown before anything is decoded.
 *
 * @example
 * import { NotARerankerError, loadModel } from "toolwright";
 * const model = await loadModel("model.gguf");
 * try {
 *   await model.rank("a query", ["a document"]);
 * } catch (err) {
 *   if (err instanceof NotARerankerError) console.log(err.reason);
 * }
 */
export class NotARerankerError extends ToolwrightError<"TOOLWRIGHT_NOT_A_RERANKER"> {
  override name = "NotARerankerError";
  /** What the model lacks, e.g. "its pooling type is mean, not rank". */
  readonly reason: string;
  constructor(message: string, reason: string, options?: { cause?: unknown }) {
    super(message, "TOOLWRIGHT_NOT_A_RERANKER", options);
    this.reason = reason;
  }
}

/**
 * A LoRA adapter could not be loaded or applied; `message` names the path and the reason (for a
 * file llama.cpp refuses, its own reason and the llama call that failed).
 *
 * @example
 * import { LoraError } from "toolwright";
 * try {
 *   await model.loadLora("adapter.gguf");
 * } catch (err) {
 *   if (err instanceof LoraError && err.code === "TOOLWRIGHT_LORA_INVALID") console.log(err.message);
 * }
 */
export class LoraError extends ToolwrightError {
  override name = "LoraError";
  /** The adapter file. */
  readonly path: string;
  /**
   * `code`: ENOENT, EISDIR, TOOLWRIGHT_FILE_ERROR, TOOLWRIGHT_LORA_INVALID (not an adapter, another architecture,
   * tensors of another shape), TOOLWRIGHT_DISPOSED (the model or adapter was disposed).
   */
  constructor(message: string, code: string, path: string, options?: { cause?: unknown }) {
    super(message, isErrorCode(code) ? code : "TOOLWRIGHT_LORA_INVALID", options);
    this.path = path;
  }
}

/**
 * A saved state file cannot be restored here; `message` names the path and what is wrong.
 *
 * @example
 * import { SavedStateError } from "toolwright";
 * try {
 *   await context.loadState("chat.state");
 * } catch (err) {
 *   if (err instanceof SavedStateError && err.code === "TOOLWRIGHT_STATE_MISMATCH") console.log("another model's");
 * }
 */
export class SavedStateError extends ToolwrightError {
  override name = "SavedStateError";
  /** The state file. */
  readonly path: string;
  /**
   * `code`: ENOENT (no such file), TOOLWRIGHT_STATE_INVALID (not a toolwright state file, another format version,
   * truncated or corrupt), TOOLWRIGHT_STATE_MISMATCH (made by another model or under other LoRA adapters, or more
   * tokens than the context holds).
   */
  constructor(message: string, code: string, path: string, options?: { cause?: unknown }) {
    super(message, isErrorCode(code) ? code : "TOOLWRIGHT_STATE_INVALID", options);
    this.path = path;
  }
}

/**
 * How the addon's errors become toolwright's classes, by code: codes with a class of their own get
 * it; every other code of the table becomes a {@link ToolwrightError} with that code.
 */
const NATIVE_ERROR_CLASSES: {
  readonly [C in ToolwrightErrorCode]?: (message: string, cause: unknown) => ToolwrightError;
} = {
  ABORT_ERR: (message, cause) => new AbortError(message, { cause }),
};

/**
 * The error the runtime throws for one the addon threw or rejected with: an error carrying a code
 * of the table becomes the class for that code (same `code` and message, the addon's error as
 * `cause`); a ToolwrightError, or an error without such a code (a native TypeError or RangeError
 * about an argument), is returned as it is.
 *
 * @example
 * try { await native.decode(tokens); } catch (err) { throw fromNativeError(err); }
 */
export function fromNativeError(err: unknown): unknown {
  if (err instanceof ToolwrightError) return err;
  const code = errorCode(err);
  if (code === undefined || !isErrorCode(code)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return NATIVE_ERROR_CLASSES[code]?.(message, err) ?? new ToolwrightError(message, code, { cause: err });
}

/**
 * Runs a synchronous call into the addon, throwing what it throws through {@link fromNativeError}.
 *
 * @example
 * const tokens = callNative(() => native.tokenize(text, options));
 */
export function callNative<T>(call: () => T): T {
  try {
    return call();
  } catch (err) {
    throw fromNativeError(err);
  }
}

/**
 * Awaits an asynchronous call into the addon, rejecting with what it throws or rejects with
 * through {@link fromNativeError}.
 *
 * @example
 * const step = await awaitNative(() => native.decode(tokens));
 */
export async function awaitNative<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw fromNativeError(err);
  }
}

/**
 * The error for a model or context used after (or disposed during) an operation, code
 * TOOLWRIGHT_DISPOSED; `what` says which and when ("Context is disposed").
 *
 * @example
 * if (!this.#native) throw disposedError("Context is disposed");
 */
export function disposedError(what: string, options?: { cause?: unknown }): ToolwrightError<"TOOLWRIGHT_DISPOSED"> {
  return new ToolwrightError(what, "TOOLWRIGHT_DISPOSED", options);
}

/** Whether `code` is one of the table's codes. */
export function isErrorCode(code: string): code is ToolwrightErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/** The `code` of a native error, if any. */
export function errorCode(err: unknown): string | undefined {
  if (typeof err === "object" && err !== null && "code" in err && typeof err.code === "string") return err.code;
  return undefined;
}
