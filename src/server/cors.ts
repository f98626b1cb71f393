/**
 * Cross-origin requests (CORS), off unless the server is given origins: browsers' pages on those
 * origins may then call the API (a preflight `OPTIONS` is answered without the API key, as browsers
 * send it without credentials). `"*"` allows any origin.
 */
import type { IncomingMessage } from "node:http";

/** The origins allowed, each `scheme://host[:port]`, or "*" for any. */
export type CorsOrigins = readonly string[];

/**
 * Checks the `cors` option: "*", an origin, or a list of them (a comma-separated string too, as
 * `--cors` gives it). Returns the list.
 *
 * @example
 * corsOrigins("https://a.example,https://b.example", "createServer: options.cors"); // two origins
 */
export function corsOrigins(value: unknown, name: string): CorsOrigins {
  const list = typeof value === "string" ? value.split(",").map((o) => o.trim()) : value;
  if (!Array.isArray(list) || list.length === 0 || list.some((o) => typeof o !== "string"))
    throw new TypeError(`${name} must be "*", an origin or an array of origins, got ${JSON.stringify(value)}`);
  for (const origin of list as string[]) {
    if (origin === "*") continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    // An origin is exactly what browsers send in the Origin header: no path, no trailing slash.
    if (parsed?.origin !== origin || !/^https?:$/.test(parsed.protocol))
      throw new RangeError(
        `${name}: ${JSON.stringify(origin)} is not an origin (write it as the Origin header does: ` +
          `"https://app.example" or "http://localhost:3000"), nor "*"`,
      );
  }
  return list as string[];
}

/** The CORS headers of any response to `req` (none when CORS is off or the origin is not allowed). */
export function corsHeaders(origins: CorsOrigins | undefined, req: IncomingMessage): Record<string, string> {
  if (origins === undefined) return {};
  if (origins.includes("*")) return { "Access-Control-Allow-Origin": "*" };
  const origin = req.headers.origin;
  // Vary: the answer depends on the Origin header, so caches must not share it across origins.
  if (origin === undefined || !origins.includes(origin)) return { Vary: "Origin" };
  return { "Access-Control-Allow-Origin": origin, Vary: "Origin" };
}

/** A browser's preflight: `OPTIONS` with `Access-Control-Request-Method`. */
export function isPreflight(req: IncomingMessage): boolean {
  return req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined;
}

/** The headers of a preflight's answer (204): the methods and the headers the API takes. */
export function preflightHeaders(origins: CorsOrigins, req: IncomingMessage): Record<string, string> {
  const asked = req.headers["access-control-request-headers"];
  return {
    ...corsHeaders(origins, req),
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Allow-Headers": asked ?? "Authorization, Content-Type",
    "Access-Control-Max-Age": "86400",
  };
}
