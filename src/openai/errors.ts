/**
 * OpenAI-style errors: what `chat.completions.create` throws and what the server sends as
 * `{"error": {message, type, param, code}}` with its HTTP status, so OpenAI clients surface them
 * as they would OpenAI's own.
 */
import { ToolSchemaError } from "../chat/index.js";
import { ToolwrightError, type ToolwrightErrorCode } from "../errors.js";

/** OpenAI's error `type`s that toolwright uses. */
export type ChatCompletionErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "not_found_error"
  | "server_error"
  | "unavailable_error"
  /** A feature the server was not started with (llama-server's 501s). */
  | "not_supported_error";

/** The JSON body of an OpenAI error response. */
export interface ChatCompletionErrorBody {
  error: { message: string; type: ChatCompletionErrorType; param: string | null; code: string | null };
}

/**
 * A request that failed, with OpenAI's fields: `status` (the HTTP status), `type`, `param` (the
 * request parameter at fault, or null) and `openaiCode` (OpenAI's `code`, e.g.
 * "unsupported_parameter"); `code` is toolwright's own code.
 *
 * @example
 * import { ChatCompletionError } from "toolwright/openai";
 * try { await client.chat.completions.create({ model: "local", messages, n: 2 }); }
 * catch (e) { if (e instanceof ChatCompletionError) console.log(e.status, e.param, e.message); } // 400 "n" ...
 */
export class ChatCompletionError extends ToolwrightError {
  override name = "ChatCompletionError";
  readonly status: number;
  readonly type: ChatCompletionErrorType;
  readonly param: string | null;
  readonly openaiCode: string | null;

  constructor(
    message: string,
    init: {
      status?: number;
      type?: ChatCompletionErrorType;
      param?: string | null;
      openaiCode?: string | null;
      code?: ToolwrightErrorCode;
      cause?: unknown;
    } = {},
  ) {
    super(
      message,
      init.code ?? "TOOLWRIGHT_INVALID_REQUEST",
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.status = init.status ?? 400;
    this.type = init.type ?? "invalid_request_error";
    this.param = init.param ?? null;
    this.openaiCode = init.openaiCode ?? null;
  }

  /** The response body OpenAI would send. */
  toJSON(): ChatCompletionErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.openaiCode } };
  }
}

/** A 400 for a parameter toolwright cannot honour. */
export function unsupported(param: string, message: string): ChatCompletionError {
  return new ChatCompletionError(message, { param, openaiCode: "unsupported_parameter" });
}

/** A 400 for a parameter of the wrong shape or value. */
export function invalid(param: string | null, message: string): ChatCompletionError {
  return new ChatCompletionError(message, { param, openaiCode: "invalid_value" });
}

/** Codes of a prompt that does not fit the context (OpenAI's context_length_exceeded). */
const CONTEXT_EXCEEDED: ReadonlySet<string> = new Set(["TOOLWRIGHT_CONTEXT_FULL", "TOOLWRIGHT_CONTEXT_OVERFLOW"]);
/** Codes of errors that the request itself caused (a 400, not the server's fault). */
const REQUEST_FAULTS: ReadonlySet<string> = new Set([
  "TOOLWRIGHT_TEMPLATE_RAISED",
  "TOOLWRIGHT_INVALID_SCHEMA",
  "TOOLWRIGHT_GBNF_SYNTAX",
  "TOOLWRIGHT_TOKENIZE_FAILED",
]);

/** Codes of images the request sent that cannot be read (or a model that reads none). */
const MEDIA_FAULTS: ReadonlySet<string> = new Set(["TOOLWRIGHT_MEDIA_INVALID", "TOOLWRIGHT_NO_PROJECTOR"]);
/** The OpenAI parameters of the chat() options that chat() itself may refuse (after the request's own checks). */
const PARAM_OF_OPTION: Readonly<Record<string, string>> = { maxTokens: "max_tokens" };

/** The parameter a chat() option error names (`chat: options.maxTokens (8) …`), or null. */
function paramOf(message: string): string | null {
  const option = /^(?:chat|streamChat): options\.(\w+)/.exec(message)?.[1];
  return (option !== undefined && PARAM_OF_OPTION[option]) || null;
}

/**
 * Turns whatever a chat request threw into a ChatCompletionError: option errors (TypeError,
 * RangeError) and request faults (a prompt over the context, a template refusing the
 * conversation, a schema that has no grammar) are 400s; anything else is a 500.
 *
 * @example
 * import { toChatCompletionError } from "toolwright/openai";
 * toChatCompletionError(new RangeError("chat: options.messages must not be empty")).status; // 400
 */
export function toChatCompletionError(e: unknown): ChatCompletionError {
  if (e instanceof ChatCompletionError) return e;
  const message = e instanceof Error ? e.message : String(e);
  // The runtime reports a prompt longer than the context as a RangeError of generate's options.
  if (e instanceof RangeError && /more than the context size/.test(message))
    return new ChatCompletionError(message, { param: "messages", openaiCode: "context_length_exceeded", cause: e });
  if (e instanceof TypeError || e instanceof RangeError)
    return new ChatCompletionError(message, { param: paramOf(message), openaiCode: "invalid_value", cause: e });
  if (e instanceof ToolwrightError && CONTEXT_EXCEEDED.has(e.code))
    return new ChatCompletionError(message, { param: "messages", openaiCode: "context_length_exceeded", cause: e });
  // The tool and, after the parameters' path, the JSON pointer of the part at fault.
  if (e instanceof ToolSchemaError)
    return new ChatCompletionError(message, {
      param: `tools[${e.toolIndex}].function.parameters${e.pointer}`,
      openaiCode: "invalid_value",
      cause: e,
    });
  if (e instanceof ToolwrightError && MEDIA_FAULTS.has(e.code))
    return new ChatCompletionError(message, { param: "messages", openaiCode: "invalid_value", code: e.code, cause: e });
  if (e instanceof ToolwrightError && REQUEST_FAULTS.has(e.code))
    return new ChatCompletionError(message, { openaiCode: "invalid_value", cause: e });
  return new ChatCompletionError(message, {
    status: 500,
    type: "server_error",
    code: e instanceof ToolwrightError ? e.code : "TOOLWRIGHT_INTERNAL",
    cause: e,
  });
}
