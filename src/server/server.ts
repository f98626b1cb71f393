/**
 * An OpenAI-compatible HTTP server over a loaded model: `/v1/chat/completions` (JSON or
 * server-sent events), `/v1/embeddings`, `/v1/rerank`, `/v1/models` and `/health`. Built on node:http: the server
 * needs a router of five routes, a body limit and SSE, which node:http does in a page, and toolwright
 * keeps its dependencies few (no framework to audit or keep up to date). Every request goes
 * through the in-process client of `toolwright/openai`, so the HTTP and in-process APIs cannot
 * drift apart.
 */
import { timingSafeEqual } from "node:crypto";
import { type IncomingMessage, type Server, type ServerResponse, createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { basename } from "node:path";
import { AbortError } from "../runtime/index.js";
import {
  type ChatBackend,
  ChatCompletionError,
  type ChatCompletionStream,
  type OpenAIClient,
  createOpenAIClient,
  toChatCompletionError,
} from "../openai/index.js";
import { type CorsOrigins, corsHeaders, corsOrigins, isPreflight, preflightHeaders } from "./cors.js";
import { readJsonBody, SseWriter, sendError, sendJson } from "./http-io.js";
import { handleSlot, type SlotBackend, slotOfPath } from "./slots.js";

/** Options of {@link createServer}. */
export interface ServerOptions {
  /** Requests must carry `Authorization: Bearer <apiKey>` (all routes but /health). Default: none. */
  apiKey?: string;
  /** The model id of responses and /v1/models. Default: the file's base name without ".gguf". */
  modelId?: string;
  /**
   * More names requests may give as `model` (each listed by /v1/models too). The model id and the
   * file's base name are always accepted; another name is a 404 (`model_not_found`) that lists them.
   * A request without `model` gets the loaded one.
   */
  aliases?: readonly string[];
  /**
   * Cross-origin requests from browsers: "*" (any origin), an origin ("https://app.example"), or a
   * list of them. Default: off (no Access-Control headers; browsers refuse cross-origin calls).
   */
  cors?: string | readonly string[];
  /**
   * The most tokens a request may ask for (a 400 beyond), and what a request that sets none gets.
   * Default: no limit but the context's, and a request that sets none gets chat()'s default
   * (`DEFAULT_MAX_TOKENS`, 1024), as `model.chat()` and `toolwright chat` do.
   */
  maxTokens?: number;
  /** The largest request body accepted, in bytes (413 beyond). Default 8 MiB. */
  maxBodyBytes?: number;
  /** Called with one line per request (method, path, status, ms). Default: silent. */
  log?: (line: string) => void;
  /**
   * A folder for llama-server's slot persistence: `POST /slots/{id}?action=save|restore` with
   * `{ "filename": "name.bin" }` writes a sequence's KV cache there or reads it back. It needs a backend
   * with slots (`toolwright serve` has them). Default: off (501).
   */
  slotSavePath?: string;
}

/** Where the server listens. */
export interface ListenOptions {
  /** Default "127.0.0.1" (loopback only: pass "0.0.0.0" to serve the network). */
  host?: string;
  /** Default 8080; 0 picks a free port. */
  port?: number;
}

/** Options of {@link ToolwrightServer.close}. */
export interface CloseOptions {
  /** In-flight requests still running after this many ms are aborted. Default: wait for them. */
  timeoutMs?: number;
}

const SERVER_KEYS = ["apiKey", "modelId", "aliases", "cors", "maxTokens", "maxBodyBytes", "log", "slotSavePath"];

function checkServerOptions(o: ServerOptions): void {
  if (o === null || typeof o !== "object")
    throw new TypeError(`createServer: options must be an object, got ${o === null ? "null" : typeof o}`);
  for (const key of Object.keys(o))
    if (!SERVER_KEYS.includes(key))
      throw new TypeError(
        `createServer: options has an unknown key ${JSON.stringify(key)} (known keys: ${SERVER_KEYS.join(", ")})`,
      );
  if (o.apiKey !== undefined && (typeof o.apiKey !== "string" || o.apiKey === ""))
    throw new TypeError("createServer: options.apiKey must be a non-empty string");
  if (o.slotSavePath !== undefined && (typeof o.slotSavePath !== "string" || o.slotSavePath === ""))
    throw new TypeError("createServer: options.slotSavePath must be a folder path");
  const positive = (v: unknown, name: string) => {
    if (v !== undefined && (typeof v !== "number" || !Number.isInteger(v) || v < 1))
      throw new RangeError(`createServer: options.${name} must be a positive integer, got ${JSON.stringify(v)}`);
  };
  positive(o.maxTokens, "maxTokens");
  positive(o.maxBodyBytes, "maxBodyBytes");
  if (o.log !== undefined && typeof o.log !== "function")
    throw new TypeError("createServer: options.log must be a function");
  if (
    o.aliases !== undefined &&
    (!Array.isArray(o.aliases) || o.aliases.some((a: unknown) => typeof a !== "string" || a === ""))
  )
    throw new TypeError(
      `createServer: options.aliases must be an array of non-empty strings, got ${JSON.stringify(o.aliases)}`,
    );
}

/** The names a request may give as `model`: the id first, then the aliases and the file's name. */
function modelNames(modelId: string, aliases: readonly string[], path: string | undefined): string[] {
  const file = path ? basename(path).replace(/\.gguf$/i, "") : undefined;
  return [...new Set([modelId, ...aliases, ...(file ? [file] : [])])];
}

function sameKey(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A server made by {@link createServer}: `listen()` to start, `close()` to stop after the
 * requests in flight end.
 */
export class ToolwrightServer {
  /** The node:http server (for its events and settings). */
  readonly httpServer: Server;
  readonly #client: OpenAIClient;
  readonly #options: ServerOptions;
  readonly #maxBodyBytes: number;
  readonly #slots: Partial<SlotBackend>;
  readonly #modelNames: readonly string[];
  readonly #cors: CorsOrigins | undefined;
  readonly #created = Math.floor(Date.now() / 1000);
  /** The requests in flight, each with the controller that aborts its generation. */
  readonly #inFlight = new Map<Promise<void>, AbortController>();
  #closing: Promise<void> | undefined;
  readonly #abortTimers: NodeJS.Timeout[] = [];

  /** @internal Use {@link createServer}. */
  constructor(model: ChatBackend & Partial<SlotBackend>, options: ServerOptions) {
    checkServerOptions(options);
    this.#options = options;
    this.#slots = model;
    this.#maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
    this.#client = createOpenAIClient(model, {
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
      ...(options.modelId !== undefined ? { modelId: options.modelId } : {}),
    });
    this.#modelNames = modelNames(this.#client.modelId, options.aliases ?? [], model.path);
    this.#cors = options.cors === undefined ? undefined : corsOrigins(options.cors, "createServer: options.cors");
    this.httpServer = createHttpServer((req, res) => this.#track(req, res));
  }

  /** The model id the server reports. */
  get modelId(): string {
    return this.#client.modelId;
  }

  /** The names requests may give as `model` (the model id first), as /v1/models lists them. */
  get modelNames(): readonly string[] {
    return this.#modelNames;
  }

  /** Requests being answered now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * Starts listening; resolves with the address (port 0 picks a free one).
   *
   * @example
   * const { url } = await server.listen({ port: 0 });
   */
  listen(options: ListenOptions = {}): Promise<{ url: string; host: string; port: number }> {
    const host = options.host ?? "127.0.0.1";
    const port = options.port ?? 8080;
    if (typeof host !== "string" || host === "")
      throw new TypeError(`listen: options.host must be a non-empty string, got ${JSON.stringify(host)}`);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new RangeError(`listen: options.port must be an integer in [0, 65535], got ${JSON.stringify(port)}`);
    return new Promise((resolve, reject) => {
      this.httpServer.once("error", reject);
      this.httpServer.listen(port, host, () => {
        this.httpServer.off("error", reject);
        const address = this.httpServer.address() as AddressInfo;
        const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
        resolve({ url: `http://${shown}:${address.port}`, host: address.address, port: address.port });
      });
    });
  }

  /**
   * Stops taking requests (new ones get 503), lets those in flight finish (or aborts them after
   * `timeoutMs`), then closes every connection. Calling it again returns the same promise.
   *
   * @example
   * process.once("SIGTERM", () => void server.close({ timeoutMs: 30_000 }));
   */
  close(options: CloseOptions = {}): Promise<void> {
    if (options.timeoutMs !== undefined) {
      if (!Number.isFinite(options.timeoutMs) || options.timeoutMs < 0)
        throw new RangeError(
          `close: options.timeoutMs must be a number >= 0, got ${JSON.stringify(options.timeoutMs)}`,
        );
      this.#abortTimers.push(
        setTimeout(
          () => this.#inFlight.forEach((c) => c.abort(new AbortError("the server is shutting down"))),
          options.timeoutMs,
        ),
      );
    }
    this.#closing ??= this.#drain();
    return this.#closing;
  }

  async #drain(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.httpServer.close(() => resolve()));
    this.httpServer.closeIdleConnections();
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight.keys()]);
    for (const t of this.#abortTimers) clearTimeout(t);
    this.httpServer.closeAllConnections();
    await closed;
  }

  #track(req: IncomingMessage, res: ServerResponse): void {
    for (const [name, value] of Object.entries(corsHeaders(this.#cors, req))) res.setHeader(name, value);
    const controller = new AbortController();
    // A client that goes away before its response ends aborts its generation.
    res.once("close", () => {
      if (!res.writableFinished) controller.abort(new AbortError("the client disconnected"));
    });
    const started = performance.now();
    const work = this.#handle(req, res, controller.signal)
      .catch((e: unknown) => {
        if (!controller.signal.aborted) this.#fail(res, toChatCompletionError(e));
      })
      .finally(() => {
        this.#inFlight.delete(work);
        this.#options.log?.(
          `${req.method} ${req.url} ${res.statusCode}${controller.signal.aborted ? " (aborted)" : ""} ` +
            `${Math.round(performance.now() - started)} ms`,
        );
      });
    this.#inFlight.set(work, controller);
  }

  #fail(res: ServerResponse, error: ChatCompletionError): void {
    if (!res.headersSent) sendError(res, error, this.#closing || error.status === 413 ? { Connection: "close" } : {});
    else if (!res.writableEnded) res.end();
  }

  async #handle(req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const path = new URL(req.url ?? "/", "http://localhost").pathname.replace(/\/+$/, "") || "/";
    if (path === "/health") {
      if (this.#closing) return sendJson(res, 503, { status: "shutting down" }, { Connection: "close" });
      return sendJson(res, 200, { status: "ok" });
    }
    // A browser's preflight carries no credentials: it is answered before the key is checked.
    if (this.#cors && isPreflight(req)) {
      res.writeHead(204, preflightHeaders(this.#cors, req));
      res.end();
      return;
    }
    if (this.#closing)
      throw new ChatCompletionError("The server is shutting down.", {
        status: 503,
        type: "unavailable_error",
        code: "TOOLWRIGHT_SERVER_UNAVAILABLE",
      });
    this.#authorize(req);
    const method = req.method ?? "GET";
    if (path === "/v1/models" || path === "/models") {
      if (method !== "GET") throw notAllowed(method, path);
      return sendJson(res, 200, { object: "list", data: this.#modelNames.map((id) => this.#modelObject(id)) });
    }
    const modelPath = /^\/(?:v1\/)?models\/(.+)$/.exec(path);
    if (modelPath) return sendJson(res, 200, this.#modelObject(this.#servedName(decodeURIComponent(modelPath[1]!))));
    if (path === "/v1/chat/completions" || path === "/chat/completions") {
      if (method !== "POST") throw notAllowed(method, path);
      return this.#chatCompletions(req, res, signal);
    }
    if (path === "/v1/embeddings" || path === "/embeddings") {
      if (method !== "POST") throw notAllowed(method, path);
      const body = this.#withModel(await readJsonBody(req, this.#maxBodyBytes));
      return sendJson(res, 200, await this.#client.embeddings.create(body as never, { signal }), this.#closeHeader());
    }
    const slot = slotOfPath(path);
    if (slot !== undefined) {
      if (method !== "POST") throw notAllowed(method, path);
      const url = new URL(req.url ?? "/", "http://localhost");
      const folder = this.#options.slotSavePath;
      return handleSlot(req, res, { id: slot, url, folder, backend: this.#slots, maxBodyBytes: this.#maxBodyBytes });
    }
    if (RERANK_PATHS.has(path)) {
      if (method !== "POST") throw notAllowed(method, path);
      const body = this.#withModel(await readJsonBody(req, this.#maxBodyBytes));
      return sendJson(res, 200, await this.#client.rerank.create(body as never, { signal }), this.#closeHeader());
    }
    throw new ChatCompletionError(`Unknown request URL: ${method} ${path}.`, {
      status: 404,
      type: "invalid_request_error",
      openaiCode: "unknown_url",
    });
  }

  #authorize(req: IncomingMessage): void {
    const key = this.#options.apiKey;
    if (key === undefined) return;
    const header = req.headers.authorization ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (match && sameKey(match[1]!.trim(), key)) return;
    const message = match
      ? "Incorrect API key provided."
      : "You didn't provide an API key. Provide it in the Authorization header (Authorization: Bearer YOUR_KEY).";
    throw new ChatCompletionError(message, {
      status: 401,
      type: "invalid_request_error",
      openaiCode: "invalid_api_key",
      code: "TOOLWRIGHT_UNAUTHORIZED",
    });
  }

  #modelObject(id: string) {
    return { id, object: "model", created: this.#created, owned_by: "toolwright" };
  }

  /** `name` when the server serves it; else a 404 listing the names it serves. */
  #servedName(name: string): string {
    if (this.#modelNames.includes(name)) return name;
    const names = this.#modelNames.map((n) => `'${n}'`).join(", ");
    throw new ChatCompletionError(`The model '${name}' does not exist: this server serves ${names}.`, {
      status: 404,
      type: "invalid_request_error",
      param: "model",
      openaiCode: "model_not_found",
    });
  }

  /**
   * The body with its `model` checked: a name the server does not serve is a 404; none (OpenAI
   * requires one, this server is lenient) means the loaded model.
   */
  #withModel(body: unknown): unknown {
    if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
    const { model } = body as { model?: unknown };
    if (model === undefined || model === null) return { ...body, model: this.#client.modelId };
    if (typeof model === "string") this.#servedName(model);
    return body;
  }

  #closeHeader(): Record<string, string> {
    return this.#closing ? { Connection: "close" } : {};
  }

  async #chatCompletions(req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const body = this.#withModel(await readJsonBody(req, this.#maxBodyBytes));
    const headers = this.#closeHeader();
    const result = await this.#client.chat.completions.create(body as never, { signal });
    if (!isStream(result)) return sendJson(res, 200, result, headers);
    let sse: SseWriter;
    try {
      sse = new SseWriter(res, headers);
    } catch (e) {
      result.controller.abort();
      throw e;
    }
    try {
      for await (const chunk of result) await sse.send(chunk);
    } catch (e) {
      if (signal.aborted) return;
      // Headers are sent: the error travels as an event, which OpenAI's SDK raises as an APIError.
      await sse.send(toChatCompletionError(e).toJSON());
    }
    sse.end();
  }
}

/** llama-server's rerank routes (Jina's and Cohere's is /v1/rerank). */
const RERANK_PATHS: ReadonlySet<string> = new Set(["/v1/rerank", "/rerank", "/v1/reranking", "/reranking"]);

function isStream(v: unknown): v is ChatCompletionStream {
  return typeof v === "object" && v !== null && Symbol.asyncIterator in v;
}

function notAllowed(method: string, path: string): ChatCompletionError {
  return new ChatCompletionError(`Method ${method} is not allowed on ${path}.`, {
    status: 405,
    type: "invalid_request_error",
    openaiCode: "method_not_allowed",
  });
}

/**
 * An OpenAI-compatible HTTP server over a loaded model (what `toolwright serve` runs):
 * `POST /v1/chat/completions` (JSON, or server-sent events with `stream: true`), `POST
 * /v1/embeddings` (with a model that can embed: a `ChatModel` can), `POST /v1/rerank` (llama-server's,
 * Jina's and Cohere's rerank API, with a reranker model; also `/rerank`), `GET /v1/models`, `GET /health`.
 * Errors are OpenAI's error JSON with its HTTP status. A request names one of the server's
 * {@link ToolwrightServer.modelNames} as `model` (another is a 404), or none. A client that
 * disconnects aborts its generation; `close()` drains the requests in flight.
 *
 * @example
 * import { loadModel } from "toolwright";
 * import { createServer } from "toolwright/server";
 * const server = createServer(await loadModel("model.gguf"), { apiKey: "secret" });
 * const { url } = await server.listen({ port: 8080 }); // http://127.0.0.1:8080
 * // new OpenAI({ baseURL: `${url}/v1`, apiKey: "secret" })
 * await server.close();
 */
export function createServer(model: ChatBackend & Partial<SlotBackend>, options: ServerOptions = {}): ToolwrightServer {
  return new ToolwrightServer(model, options);
}
