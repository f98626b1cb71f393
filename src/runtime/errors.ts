/**
 * Error classes of the runtime. Native errors carry a `code` (ENOENT, EISDIR,
 * TOOLWRIGHT_INVALID_GGUF, TOOLWRIGHT_LOAD_FAILED, ABORT_ERR, ...), kept on these classes.
 */

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
export class AbortError extends Error {
  override name = "AbortError";
  readonly code = "ABORT_ERR";
  constructor(message = "The operation was aborted", options?: { cause?: unknown }) {
    super(message, options);
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
export class ModelLoadError extends Error {
  override name = "ModelLoadError";
  /** ENOENT, EISDIR, EACCES, TOOLWRIGHT_INVALID_GGUF, TOOLWRIGHT_LOAD_FAILED, TOOLWRIGHT_FILE_ERROR. */
  readonly code: string;
  readonly path: string;
  constructor(message: string, code: string, path: string) {
    super(message);
    this.code = code;
    this.path = path;
  }
}

/** The `code` of a native error, if any. */
export function errorCode(err: unknown): string | undefined {
  if (typeof err === "object" && err !== null && "code" in err && typeof err.code === "string") return err.code;
  return undefined;
}
