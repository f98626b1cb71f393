/**
 * The base class of every error toolwright throws on purpose: `code` says what went wrong (one
 * of {@link ERROR_CODES}, the table the addon shares), `message` names the option, file, rule or
 * position and the reason. Subclasses add what their callers need (a path, a line and column).
 *
 * @example
 * import { ToolwrightError } from "toolwright";
 * try { await model.chat({ messages }); }
 * catch (e) { if (e instanceof ToolwrightError && e.code === "TOOLWRIGHT_CONTEXT_FULL") shorten(messages); }
 */
import type { ToolwrightErrorCode } from "./error-codes.js";

export { ERROR_CODES, type ToolwrightErrorCode } from "./error-codes.js";

export class ToolwrightError<Code extends ToolwrightErrorCode = ToolwrightErrorCode> extends Error {
  override name = "ToolwrightError";
  readonly code: Code;

  constructor(message: string, code: Code, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
