/**
 * Requests to the model hub with Node's built-in fetch: the endpoint and token from options or
 * the environment, and every failure turned into a {@link ModelDownloadError} or an AbortError.
 */
import { AbortError } from "../errors.js";
import { ModelDownloadError } from "./errors.js";

export const DEFAULT_HF_ENDPOINT = "https://huggingface.co";

/** Where to reach the hub and as whom. */
export interface HubConnection {
  /** Base URL without a trailing slash. */
  endpoint: string;
  token: string | undefined;
  signal: AbortSignal | undefined;
}

/**
 * The hub's base URL: the option, else `$TOOLWRIGHT_HF_ENDPOINT`, else `$HF_ENDPOINT`, else
 * https://huggingface.co. Throws a RangeError for anything but an http(s) URL.
 *
 * @example
 * hubEndpoint(undefined, { HF_ENDPOINT: "https://hf-mirror.com/" }); // "https://hf-mirror.com"
 */
export function hubEndpoint(
  option: string | undefined,
  env: Record<string, string | undefined> = process.env,
  optionName = "options.endpoint",
): string {
  const [value, name] =
    option !== undefined
      ? [option, optionName]
      : env.TOOLWRIGHT_HF_ENDPOINT
        ? [env.TOOLWRIGHT_HF_ENDPOINT, "TOOLWRIGHT_HF_ENDPOINT"]
        : env.HF_ENDPOINT
          ? [env.HF_ENDPOINT, "HF_ENDPOINT"]
          : [DEFAULT_HF_ENDPOINT, "the default"];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RangeError(`${name} must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new RangeError(`${name} must be an http(s) URL, got ${JSON.stringify(value)}`);
  return url.href.replace(/\/+$/, "");
}

/** The access token: the option, else `$HF_TOKEN`, else `$HUGGING_FACE_HUB_TOKEN`. */
export function hubToken(
  option: string | undefined,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  return option ?? (env.HF_TOKEN || env.HUGGING_FACE_HUB_TOKEN || undefined);
}

/**
 * Whether `$HF_HUB_OFFLINE` forbids requests to the hub, as huggingface_hub reads it (1, ON, YES or TRUE, in any
 * case): then only cached files are used.
 *
 * @example
 * hubOffline({ HF_HUB_OFFLINE: "1" }); // true
 */
export function hubOffline(env: Record<string, string | undefined> = process.env): boolean {
  return ["1", "ON", "YES", "TRUE"].includes((env.HF_HUB_OFFLINE ?? "").trim().toUpperCase());
}

/** Connection-level error codes that mean the host cannot be reached at all. */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "ENETDOWN",
  "EHOSTDOWN",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The `code` of a fetch failure's cause chain (undici wraps the socket error). */
export function networkErrorCode(err: unknown): string | undefined {
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === "object" && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    // AggregateError of several addresses (IPv4 and IPv6) refused alike.
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) return networkErrorCode(errors[0]);
  }
  return undefined;
}

function isAbort(err: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (err instanceof Error && err.name === "AbortError");
}

/** An AbortError for an aborted download of `what`. */
export function abortError(what: string, signal: AbortSignal | undefined): AbortError {
  return new AbortError(`${what}: the download was aborted`, { cause: signal?.reason });
}

/**
 * `fetch` with the hub's headers (token only for the hub's own origin, no compression so byte
 * ranges mean bytes). A failure to connect becomes TOOLWRIGHT_OFFLINE.
 */
export async function hubFetch(
  conn: HubConnection,
  url: string,
  init: { method?: string; headers?: Record<string, string>; redirect?: "follow" | "manual" } = {},
): Promise<Response> {
  const headers: Record<string, string> = {
    "accept-encoding": "identity",
    "user-agent": "toolwright",
    ...init.headers,
  };
  if (conn.token && new URL(url).origin === new URL(conn.endpoint).origin)
    headers.authorization = `Bearer ${conn.token}`;
  try {
    return await fetch(url, {
      method: init.method ?? "GET",
      headers,
      redirect: init.redirect ?? "follow",
      ...(conn.signal ? { signal: conn.signal } : {}),
    });
  } catch (err) {
    if (isAbort(err, conn.signal)) throw abortError(url, conn.signal);
    const code = networkErrorCode(err);
    const host = new URL(url).host;
    if (code === undefined || UNREACHABLE.has(code)) {
      throw new ModelDownloadError(
        `cannot reach ${host} (${code ?? (err instanceof Error ? err.message : String(err))}): check the ` +
          `network connection, or point TOOLWRIGHT_HF_ENDPOINT / HF_ENDPOINT at a reachable ` +
          `hub or mirror`,
        "TOOLWRIGHT_OFFLINE",
        url,
        { cause: err },
      );
    }
    throw new ModelDownloadError(
      `request to ${host} failed (${code}): ${err instanceof Error ? err.message : String(err)}`,
      "TOOLWRIGHT_DOWNLOAD_FAILED",
      url,
      { cause: err },
    );
  }
}

/**
 * The error for a response with a failing status: 404 (and the hub's 401 for a repository that
 * does not exist) → TOOLWRIGHT_DOWNLOAD_NOT_FOUND, 401/403 → TOOLWRIGHT_DOWNLOAD_DENIED, others →
 * TOOLWRIGHT_DOWNLOAD_FAILED. `what` names the thing asked for.
 */
export function statusError(res: Response, url: string, what: string, conn: HubConnection): ModelDownloadError {
  const hubCode = res.headers.get("x-error-code") ?? "";
  const hubMessage = res.headers.get("x-error-message");
  const detail = hubMessage ? ` (${hubMessage})` : "";
  void res.body?.cancel().catch(() => undefined);
  if (
    res.status === 404 ||
    hubCode === "RepoNotFound" ||
    hubCode === "EntryNotFound" ||
    hubCode === "RevisionNotFound"
  ) {
    const access = res.status === 401 && !conn.token ? "; if it is private or gated, set HF_TOKEN" : "";
    return new ModelDownloadError(
      `${what} was not found on ${new URL(conn.endpoint).host}: HTTP ${res.status}${detail}${access}`,
      "TOOLWRIGHT_DOWNLOAD_NOT_FOUND",
      url,
      { status: res.status },
    );
  }
  if (res.status === 401 || res.status === 403) {
    const hint = conn.token
      ? "the token in HF_TOKEN has no access to it (accept the model's terms on its page?)"
      : "it is gated or private: set HF_TOKEN to an access token";
    return new ModelDownloadError(
      `${what}: access denied, HTTP ${res.status}${detail}: ${hint}`,
      "TOOLWRIGHT_DOWNLOAD_DENIED",
      url,
      { status: res.status },
    );
  }
  return new ModelDownloadError(
    `${what}: the hub answered HTTP ${res.status} ${res.statusText}${detail}`,
    "TOOLWRIGHT_DOWNLOAD_FAILED",
    url,
    { status: res.status },
  );
}

/** A URL path from segments, each percent-encoded. */
export function urlPath(...segments: string[]): string {
  return segments
    .flatMap((s) => s.split("/"))
    .map(encodeURIComponent)
    .join("/");
}
