/**
 * What the hub says about a file before it is downloaded, and which files a repository holds.
 *
 * A HEAD request on a `resolve` URL, not following the redirect to the CDN, answers for a
 * file stored with Git LFS (every model file): `X-Linked-Etag` holds the file's sha256 and
 * `X-Linked-Size` its size; `X-Repo-Commit` the commit the revision resolved to. A small file
 * kept in git answers 200 with a git ETag (not a sha256) and `Content-Length`.
 */
import { ModelDownloadError } from "./errors.js";
import { type HubConnection, hubFetch, statusError, urlPath } from "./hub-http.js";

/** A file as the hub describes it. */
export interface HubFileInfo {
  /** The `resolve` URL to GET (it may redirect to a CDN). */
  url: string;
  /** Bytes, when the hub says. */
  size: number | undefined;
  /** Lower-case hex sha256 of the content, for LFS files. */
  sha256: string | undefined;
  /** The hub's ETag of the file (identifies the version). */
  etag: string | undefined;
  /** The commit the revision resolved to. */
  commit: string | undefined;
}

const SHA256 = /^[0-9a-f]{64}$/;
const MAX_RELATIVE_REDIRECTS = 5;

/** An ETag without its weak marker and quotes. */
export function bareEtag(value: string | null): string | undefined {
  if (value === null) return undefined;
  const v = value
    .trim()
    .replace(/^W\//, "")
    .replace(/^"(.*)"$/, "$1");
  return v === "" ? undefined : v;
}

function sizeHeader(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The `resolve` URL of a file. */
export function resolveUrl(endpoint: string, repo: string, revision: string, file: string): string {
  return `${endpoint}/${urlPath(repo)}/resolve/${encodeURIComponent(revision)}/${urlPath(file)}`;
}

/**
 * HEADs a file's resolve URL, following only redirects within the hub (a renamed repository),
 * and reads its size, sha256, ETag and commit.
 */
export async function fetchFileInfo(
  conn: HubConnection,
  repo: string,
  revision: string,
  file: string,
): Promise<HubFileInfo> {
  const what = `${repo}/${file} (revision ${revision})`;
  let url = resolveUrl(conn.endpoint, repo, revision, file);
  for (let hop = 0; ; hop++) {
    const res = await hubFetch(conn, url, { method: "HEAD", redirect: "manual" });
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location !== null) {
      const target = new URL(location, url);
      // A redirect within the hub (renamed repository) is followed; one elsewhere is the CDN.
      if (
        target.origin === new URL(url).origin &&
        target.pathname.includes("/resolve/") &&
        hop < MAX_RELATIVE_REDIRECTS &&
        !res.headers.has("x-linked-etag")
      ) {
        url = target.href;
        continue;
      }
      return describe(res, url);
    }
    if (!res.ok) throw statusError(res, url, what, conn);
    return describe(res, url);
  }
}

function describe(res: Response, url: string): HubFileInfo {
  const linkedEtag = bareEtag(res.headers.get("x-linked-etag"));
  const etag = linkedEtag ?? bareEtag(res.headers.get("etag"));
  const sha = linkedEtag?.toLowerCase();
  return {
    url,
    size:
      sizeHeader(res.headers.get("x-linked-size")) ??
      (res.status === 200 ? sizeHeader(res.headers.get("content-length")) : undefined),
    sha256: sha !== undefined && SHA256.test(sha) ? sha : undefined,
    etag,
    commit: res.headers.get("x-repo-commit") ?? undefined,
  };
}

/** A file of a repository's listing. */
export interface RepoFile {
  path: string;
  size: number | undefined;
  /** `lfs.oid`: the sha256 of an LFS file. */
  sha256: string | undefined;
}

const MAX_LISTING_PAGES = 50;

/** The files of a repository at a revision (`/api/models/OWNER/REPO/tree/REV?recursive=true`, every page). */
export async function listRepoFiles(conn: HubConnection, repo: string, revision: string): Promise<RepoFile[]> {
  let url: string | undefined =
    `${conn.endpoint}/api/models/${urlPath(repo)}/tree/${encodeURIComponent(revision)}?recursive=true`;
  const files: RepoFile[] = [];
  for (let page = 0; url !== undefined && page < MAX_LISTING_PAGES; page++) {
    const res = await hubFetch(conn, url, { headers: { accept: "application/json" } });
    if (!res.ok) throw statusError(res, url, `the repository ${repo} (revision ${revision})`, conn);
    let data: unknown;
    try {
      data = await res.json();
    } catch (err) {
      throw new ModelDownloadError(
        `the file listing of ${repo} is not JSON: ${(err as Error).message}`,
        "TOOLWRIGHT_DOWNLOAD_FAILED",
        url,
        { cause: err },
      );
    }
    if (!Array.isArray(data))
      throw new ModelDownloadError(`the file listing of ${repo} is not an array`, "TOOLWRIGHT_DOWNLOAD_FAILED", url);
    for (const item of data as {
      type?: unknown;
      path?: unknown;
      size?: unknown;
      lfs?: { oid?: unknown; size?: unknown };
    }[]) {
      if (item === null || typeof item !== "object" || item.type !== "file" || typeof item.path !== "string") continue;
      const oid = typeof item.lfs?.oid === "string" ? item.lfs.oid.toLowerCase() : undefined;
      const size =
        typeof item.lfs?.size === "number" ? item.lfs.size : typeof item.size === "number" ? item.size : undefined;
      files.push({ path: item.path, size, sha256: oid !== undefined && SHA256.test(oid) ? oid : undefined });
    }
    url = nextPage(res.headers.get("link"), url);
  }
  return files;
}

/** The `rel="next"` URL of a Link header (the hub paginates long listings). */
function nextPage(link: string | null, base: string): string | undefined {
  const m = link === null ? null : /<([^>]+)>\s*;\s*rel="?next"?/.exec(link);
  return m ? new URL(m[1]!, base).href : undefined;
}
