import { ToolwrightError } from "../../errors.js";

/** What was wrong with a GGUF file (or with what a caller asked to write). */
export type GgufErrorCode =
  | "NOT_FOUND"
  | "NOT_A_FILE"
  | "IO"
  | "BAD_MAGIC"
  | "UNSUPPORTED_VERSION"
  | "TRUNCATED"
  | "IMPLAUSIBLE"
  | "INVALID";

/**
 * A GGUF file that cannot be read: the message names the file, the offset and what is wrong.
 *
 * @example
 * try { await readGguf("model.gguf"); }
 * catch (e) { if (e instanceof GgufError && e.code === "BAD_MAGIC") console.error("not a GGUF file"); }
 */
export class GgufError extends ToolwrightError<GgufErrorCode> {
  override readonly name = "GgufError";
  constructor(
    code: GgufErrorCode,
    readonly path: string,
    detail: string,
    readonly offset?: number,
  ) {
    super(`${path}: ${detail}${offset === undefined ? "" : ` (at byte offset ${offset})`}`, code);
  }
}
