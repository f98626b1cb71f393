/**
 * The HTTP plumbing of the server, on node:http: a JSON body read under a size limit, JSON and
 * OpenAI-error responses, and server-sent events with backpressure.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ChatCompletionError } from "../openai/index.js";

/**
 * Reads a request body as JSON, refusing more than `limit` bytes (413, before reading when
 * Content-Length says so) and bodies that are not JSON (400).
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers["content-length"]);
  const tooLarge = () =>
    new ChatCompletionError(`The request body is larger than this server accepts (${limit} bytes).`, {
      status: 413,
      openaiCode: "request_too_large",
    });
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > limit) throw tooLarge();
    parts.push(part);
  }
  const text = Buffer.concat(parts).toString("utf8");
  if (text.trim() === "")
    throw new ChatCompletionError("The request body is empty: expected a JSON object.", { openaiCode: "invalid_json" });
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ChatCompletionError(`The request body is not valid JSON: ${(e as Error).message}`, {
      openaiCode: "invalid_json",
      cause: e,
    });
  }
}

/** Sends a JSON response (unless the client is gone). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const data = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(data),
    ...headers,
  });
  res.end(data);
}

/** Sends an OpenAI error body with its status. */
export function sendError(res: ServerResponse, error: ChatCompletionError, headers: Record<string, string> = {}): void {
  sendJson(res, error.status, error.toJSON(), headers);
}

/** Server-sent events, as OpenAI streams: `data: {json}` lines and a final `data: [DONE]`. */
export class SseWriter {
  readonly #res: ServerResponse;

  constructor(res: ServerResponse, headers: Record<string, string> = {}) {
    this.#res = res;
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
      ...headers,
    });
    res.flushHeaders();
  }

  /** Writes one event; waits while the socket's buffer is full. */
  async send(data: unknown): Promise<void> {
    if (this.#res.destroyed) return;
    if (!this.#res.write(`data: ${JSON.stringify(data)}\n\n`)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.#res.off("drain", done);
          this.#res.off("close", done);
          resolve();
        };
        this.#res.on("drain", done);
        this.#res.on("close", done);
      });
    }
  }

  /** Ends the stream with `[DONE]`. */
  end(): void {
    if (this.#res.destroyed || this.#res.writableEnded) return;
    this.#res.end("data: [DONE]\n\n");
  }
}
