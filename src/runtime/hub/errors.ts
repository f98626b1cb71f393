import { ToolwrightError } from "../../errors.js";

/** Why a model download failed. */
export type ModelDownloadErrorCode =
  | "TOOLWRIGHT_OFFLINE"
  | "TOOLWRIGHT_DOWNLOAD_NOT_FOUND"
  | "TOOLWRIGHT_DOWNLOAD_DENIED"
  | "TOOLWRIGHT_DOWNLOAD_FAILED"
  | "TOOLWRIGHT_CHECKSUM_MISMATCH";

/**
 * A model could not be downloaded. `code` says why: TOOLWRIGHT_OFFLINE (the hub cannot be
 * reached), TOOLWRIGHT_DOWNLOAD_NOT_FOUND (no such repository, revision, file or quantization),
 * TOOLWRIGHT_DOWNLOAD_DENIED (gated or private: set HF_TOKEN), TOOLWRIGHT_CHECKSUM_MISMATCH (the
 * bytes differ from the hub's sha256 or size; nothing is kept) or TOOLWRIGHT_DOWNLOAD_FAILED
 * (anything else: an HTTP error, a connection dropped past the retries, a disk error). A partial
 * download is kept, except after a checksum mismatch, and the next pull resumes it.
 *
 * @example
 * import { pullModel, ModelDownloadError } from "toolwright";
 * try { await pullModel("hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf"); }
 * catch (e) { if (e instanceof ModelDownloadError && e.code === "TOOLWRIGHT_OFFLINE") console.error("no network"); }
 */
export class ModelDownloadError extends ToolwrightError<ModelDownloadErrorCode> {
  override name = "ModelDownloadError";
  /** The URL being fetched when it failed. */
  readonly url: string;
  /** The HTTP status, when the hub answered with an error. */
  readonly status: number | undefined;

  constructor(
    message: string,
    code: ModelDownloadErrorCode,
    url: string,
    options?: { status?: number; cause?: unknown },
  ) {
    super(message, code, options?.cause === undefined ? undefined : { cause: options.cause });
    this.url = url;
    this.status = options?.status;
  }
}
