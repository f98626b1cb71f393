/**
 * A local stand-in for the Hugging Face hub on 127.0.0.1, speaking the parts of its protocol a
 * model download uses: `resolve` URLs that redirect LFS files to a CDN path with `X-Linked-Etag`
 * (the sha256) and `X-Linked-Size`, byte ranges with If-Range on the CDN, the `tree` listing API,
 * and the hub's 404/401 answers with `X-Error-Code`. Faults are switched on per test: a
 * connection dropped after some bytes, bytes that differ from the advertised sha256, a gated
 * repository.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface HubFile {
  content: Uint8Array;
  /** Stored with LFS (default true): redirected to the CDN, sha256 in X-Linked-Etag. */
  lfs?: boolean;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
}

export interface HubServer {
  endpoint: string;
  /** Every request, in order. */
  requests: RecordedRequest[];
  /** Adds or replaces a file: repo "owner/name", path in the repository. */
  put(repo: string, path: string, file: HubFile): void;
  /** The next `count` content responses end the connection after `bytes` bytes. */
  dropAfter(bytes: number, count?: number): void;
  /** Content responses serve these bytes instead of the file's (the metadata stays the file's). */
  corrupt(repo: string, path: string, bytes: Uint8Array): void;
  /**
   * The commit a revision of a repository resolves to (`X-Repo-Commit`): a 40-hex revision is itself, any other
   * is a hash of the revision and the repository's files, so changing a file makes a new commit, as on the hub.
   */
  commit(repo: string, revision: string): string;
  /** Requests for this repository answer 401 Unauthorized, as for a gated model without a token. */
  gate(repo: string): void;
  /** Content responses wait for this promise before sending their body. */
  holdBodies(until: Promise<void> | undefined): void;
  close(): Promise<void>;
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export async function startHubServer(): Promise<HubServer> {
  const repos = new Map<string, Map<string, HubFile>>();
  const corrupted = new Map<string, Uint8Array>();
  const gated = new Set<string>();
  const requests: RecordedRequest[] = [];
  let drops: { bytes: number; count: number } | undefined;
  let hold: Promise<void> | undefined;

  const blobs = new Map<string, Uint8Array>();
  const key = (repo: string, path: string) => `${repo}\0${path}`;
  const commitOf = (repo: string, revision: string) => {
    if (/^[0-9a-f]{40}$/.test(revision)) return revision;
    const hash = createHash("sha1").update(`${repo}\0${revision}`);
    for (const [path, file] of [...(repos.get(repo) ?? [])].sort(([a], [b]) => (a < b ? -1 : 1)))
      hash.update(`\0${path}\0${sha256(file.content)}`);
    return hash.digest("hex");
  };

  const notFound = (res: ServerResponse, code: string) => {
    res.writeHead(404, { "x-error-code": code, "x-error-message": `${code} (local hub)` });
    res.end();
  };

  async function serveContent(req: IncomingMessage, res: ServerResponse, bytes: Uint8Array, etag: string) {
    const total = bytes.length;
    let start = 0;
    let status = 200;
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
    const ifRange = req.headers["if-range"];
    if (range && (ifRange === undefined || ifRange === etag)) {
      start = Number(range[1]);
      if (start >= total) {
        res.writeHead(416, { "content-range": `bytes */${total}` });
        res.end();
        return;
      }
      status = 206;
    }
    const body = bytes.subarray(start);
    const headers: Record<string, string> = {
      etag,
      "accept-ranges": "bytes",
      "content-length": String(body.length),
      "content-type": "application/octet-stream",
    };
    if (status === 206) headers["content-range"] = `bytes ${start}-${total - 1}/${total}`;
    res.writeHead(status, headers);
    if (req.method === "HEAD") {
      res.end();
      return;
    }
    if (hold) await hold;
    if (drops && drops.count > 0) {
      drops.count--;
      const cut = body.subarray(0, Math.min(drops.bytes, body.length));
      // Let the bytes reach the client before the connection drops (an errored stream discards
      // what it had queued, so the client keeps at most what it read by then).
      res.write(cut, () => setTimeout(() => res.socket?.destroy(), 100));
      return;
    }
    res.end(body);
  }

  function handle(req: IncomingMessage, res: ServerResponse) {
    requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    const url = new URL(req.url ?? "/", "http://local");
    const path = decodeURIComponent(url.pathname);
    const cdn = /^\/cdn\/([0-9a-f]{64})$/.exec(url.pathname);
    if (cdn) {
      const blob = blobs.get(cdn[1]!);
      if (!blob) return notFound(res, "EntryNotFound");
      void serveContent(req, res, blob, `"${cdn[1]}"`);
      return;
    }
    const tree = /^\/api\/models\/([^/]+\/[^/]+)\/tree\/([^/]+)$/.exec(path);
    if (tree) {
      const files = repos.get(tree[1]!);
      if (!files) return notFound(res, "RepoNotFound");
      const listing = [...files].map(([p, f]) => ({
        type: "file",
        path: p,
        oid: createHash("sha1").update(f.content).digest("hex"),
        size: f.content.length,
        ...(f.lfs === false ? {} : { lfs: { oid: sha256(f.content), size: f.content.length, pointerSize: 134 } }),
      }));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(listing));
      return;
    }
    // The revision is one percent-encoded segment ("refs%2Fpr%2F1"): match before decoding.
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (!resolve) return notFound(res, "RepoNotFound");
    const repo = decodeURIComponent(resolve[1]!);
    const filePath = decodeURIComponent(resolve[3]!);
    if (gated.has(repo)) {
      res.writeHead(401, { "x-error-code": "GatedRepo", "x-error-message": "Access to this model is restricted" });
      res.end();
      return;
    }
    const files = repos.get(repo);
    if (!files) return notFound(res, "RepoNotFound");
    const file = files.get(filePath);
    if (!file) return notFound(res, "EntryNotFound");
    const served = corrupted.get(key(repo, filePath)) ?? file.content;
    const commit = commitOf(repo, decodeURIComponent(resolve[2]!));
    if (file.lfs === false) {
      res.setHeader("x-repo-commit", commit);
      void serveContent(req, res, served, `"${createHash("sha1").update(file.content).digest("hex")}"`);
      return;
    }
    const sha = sha256(file.content);
    blobs.set(sha, served);
    res.writeHead(302, {
      location: `${endpoint}/cdn/${sha}`,
      "x-linked-etag": `"${sha}"`,
      "x-linked-size": String(file.content.length),
      "x-repo-commit": commit,
      etag: `"${sha}"`,
    });
    res.end();
  }

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    endpoint,
    requests,
    put(repo, path, file) {
      if (!repos.has(repo)) repos.set(repo, new Map());
      repos.get(repo)!.set(path, file);
      corrupted.delete(key(repo, path));
    },
    dropAfter(bytes, count = 1) {
      drops = { bytes, count };
    },
    corrupt(repo, path, bytes) {
      corrupted.set(key(repo, path), bytes);
    },
    commit: commitOf,
    gate(repo) {
      gated.add(repo);
    },
    holdBodies(until) {
      hold = until;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL on 127.0.0.1 where nothing listens (a port just released). */
export async function closedEndpoint(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
