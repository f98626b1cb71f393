/**
 * One file downloaded to disk, resumably: bytes go to `<dest>.part` (described by
 * `<dest>.part.json`; both paths can be chosen), a dropped connection is resumed with an HTTP Range request (guarded by
 * If-Range), the sha256 is computed as the bytes arrive (over the kept part first), and the
 * finished file is renamed into place, so `<dest>` is never a partial file.
 */
import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { ModelDownloadError } from "./errors.js";
import { abortError, type HubConnection, hubFetch, statusError } from "./hub-http.js";
import type { HubFileInfo } from "./hub-metadata.js";

/** Progress of a download. */
export interface DownloadProgress {
  /** Bytes on disk so far (a resumed download starts at what was kept). */
  receivedBytes: number;
  /** The file's size, when known. */
  totalBytes: number | undefined;
  /** Bytes that were already on disk from an earlier attempt. */
  resumedFromBytes: number;
}

/** What `<dest>.part.json` records about the partial file. */
interface PartRecord {
  url: string;
  sha256?: string;
  etag?: string;
  size?: number;
  /** The validator of the response the bytes came from, sent back as If-Range. */
  contentEtag?: string;
}

/** Consecutive failed attempts (no new byte) before giving up; the partial file stays for the next pull. */
const MAX_ATTEMPTS_WITHOUT_PROGRESS = 4;
const RETRY_DELAY_MS = 250;

export interface DownloadFileOptions {
  conn: HubConnection;
  file: HubFileInfo;
  dest: string;
  /** What the messages call the file. */
  what: string;
  onProgress?: (progress: DownloadProgress) => void;
  /**
   * The bytes the file must start with ("GGUF"): anything else (an HTML page from a wrong endpoint) is refused early.
   */
  magic?: string;
  /** Where the partial file is kept (default `<dest>.part`). */
  partPath?: string;
  /** Where what the partial file is, is recorded (default `<dest>.part.json`). */
  recordPath?: string;
  /**
   * The partial file's name says which version it is (a blob named by its hash): one without a record, left by
   * another program, is resumed too.
   */
  partNamedByVersion?: boolean;
}

/** The identity of a file version: a partial file of another version is thrown away. */
function sameVersion(part: PartRecord, file: HubFileInfo): boolean {
  if (part.sha256 !== undefined && file.sha256 !== undefined) return part.sha256 === file.sha256;
  if (part.etag !== undefined && file.etag !== undefined) return part.etag === file.etag && part.size === file.size;
  return false;
}

async function readPartRecord(path: string): Promise<PartRecord | undefined> {
  try {
    const data = JSON.parse(await readFile(path, "utf8")) as PartRecord;
    return data && typeof data === "object" && typeof data.url === "string" ? data : undefined;
  } catch {
    return undefined;
  }
}

async function hashFile(path: string, hash: Hash, signal: AbortSignal | undefined): Promise<void> {
  for await (const chunk of createReadStream(path, signal ? { signal } : {})) hash.update(chunk as Buffer);
}

/** "bytes 100-199/200" → 100 (the start), or undefined. */
function rangeStart(contentRange: string | null): number | undefined {
  const m = contentRange === null ? null : /^bytes\s+(\d+)-\d+\/(\d+|\*)$/i.exec(contentRange.trim());
  return m ? Number(m[1]) : undefined;
}

/** A strong ETag as If-Range needs it (weak ones may not be used there). */
function strongEtag(value: string | null): string | undefined {
  return value !== null && !value.trim().startsWith("W/") ? value.trim() : undefined;
}

/**
 * Downloads `file` to `dest`, resuming a kept `.part` of the same version. Resolves with the
 * content's sha256 (hex) once `dest` holds the whole, verified file.
 *
 * @throws {ModelDownloadError} TOOLWRIGHT_CHECKSUM_MISMATCH (the partial file is deleted),
 * TOOLWRIGHT_OFFLINE, TOOLWRIGHT_DOWNLOAD_* (the partial file is kept for the next attempt).
 */
export async function downloadFile(options: DownloadFileOptions): Promise<string> {
  const { conn, file, dest, what } = options;
  const partPath = options.partPath ?? `${dest}.part`;
  const recordPath = options.recordPath ?? `${dest}.part.json`;
  const signal = conn.signal;

  const kept = await readPartRecord(recordPath);
  let offset = (await stat(partPath).catch(() => undefined))?.size ?? 0;
  const same = options.partNamedByVersion === true || (kept !== undefined && sameVersion(kept, file));
  if (offset > 0 && (!same || (file.size !== undefined && offset > file.size))) offset = 0;
  let record: PartRecord = {
    url: file.url,
    ...(file.sha256 ? { sha256: file.sha256 } : {}),
    ...(file.etag ? { etag: file.etag } : {}),
    ...(file.size !== undefined ? { size: file.size } : {}),
  };
  if (offset > 0 && kept?.contentEtag) record.contentEtag = kept.contentEtag;

  let hash = createHash("sha256");
  if (offset > 0) {
    try {
      await hashFile(partPath, hash, signal);
    } catch (err) {
      if (signal?.aborted) throw abortError(what, signal);
      throw err;
    }
  } else {
    await writeFile(partPath, new Uint8Array(0));
  }
  await writeFile(recordPath, JSON.stringify(record));
  const resumedFromBytes = offset;
  const report = () => options.onProgress?.({ receivedBytes: offset, totalBytes: file.size, resumedFromBytes });
  report();

  let failures = 0;
  let lastError: unknown;
  while (file.size === undefined || offset < file.size) {
    if (failures >= MAX_ATTEMPTS_WITHOUT_PROGRESS) {
      const at = file.size === undefined ? `${offset} bytes` : `${offset} of ${file.size} bytes`;
      const code =
        lastError instanceof ModelDownloadError && lastError.code === "TOOLWRIGHT_OFFLINE"
          ? "TOOLWRIGHT_OFFLINE"
          : "TOOLWRIGHT_DOWNLOAD_FAILED";
      throw new ModelDownloadError(
        `${what}: the download kept failing at ${at} (${errorText(lastError)}); the partial file is kept: pull ` +
          `again to resume`,
        code,
        file.url,
        { cause: lastError },
      );
    }
    if (failures > 0)
      await sleep(RETRY_DELAY_MS * failures, undefined, signal ? { signal } : {}).catch(() => undefined);
    if (signal?.aborted) throw abortError(what, signal);

    const headers: Record<string, string> = {};
    if (offset > 0) {
      headers.range = `bytes=${offset}-`;
      if (record.contentEtag) headers["if-range"] = record.contentEtag;
    }
    let res: Response;
    try {
      res = await hubFetch(conn, file.url, { headers });
    } catch (err) {
      // Unreachable before the first byte: say so at once. Mid-download: retry.
      if (!(err instanceof ModelDownloadError) || (err.code === "TOOLWRIGHT_OFFLINE" && offset === 0 && failures === 0))
        throw err;
      lastError = err;
      failures++;
      continue;
    }
    if (res.status === 416 && file.size !== undefined && offset === file.size) {
      void res.body?.cancel().catch(() => undefined);
      break;
    }
    if (res.status === 200 && offset > 0) {
      // The server sent the whole file (no range support, or If-Range saw another version).
      offset = 0;
      hash = createHash("sha256");
      await writeFile(partPath, new Uint8Array(0));
    } else if (res.status === 206) {
      const start = rangeStart(res.headers.get("content-range"));
      if (start !== offset) {
        void res.body?.cancel().catch(() => undefined);
        throw new ModelDownloadError(
          `${what}: asked for bytes from ${offset}, the server sent ` +
            `${res.headers.get("content-range") ?? "no Content-Range"}`,
          "TOOLWRIGHT_DOWNLOAD_FAILED",
          file.url,
        );
      }
    } else if (res.status !== 200) {
      const err = statusError(res, file.url, what, conn);
      // Server errors may pass; anything else will not.
      if (res.status < 500) throw err;
      lastError = err;
      failures++;
      continue;
    }
    const contentEtag = strongEtag(res.headers.get("etag"));
    if (contentEtag !== record.contentEtag) {
      record = { ...record, ...(contentEtag ? { contentEtag } : {}) };
      if (!contentEtag) delete record.contentEtag;
      await writeFile(recordPath, JSON.stringify(record));
    }

    const before = offset;
    const handle = await open(partPath, "r+");
    try {
      if (!res.body) throw new TypeError("the response has no body");
      for await (const chunk of res.body) {
        const bytes = chunk as Uint8Array;
        if (offset === 0) checkMagic(bytes, options, file.url);
        if (file.size !== undefined && offset + bytes.length > file.size) {
          throw new ModelDownloadError(
            `${what}: the server sent more than the ${file.size} bytes the hub announced`,
            "TOOLWRIGHT_DOWNLOAD_FAILED",
            file.url,
          );
        }
        await handle.write(bytes, 0, bytes.length, offset);
        hash.update(bytes);
        offset += bytes.length;
        report();
      }
      if (file.size === undefined) break;
    } catch (err) {
      if (signal?.aborted) throw abortError(what, signal);
      if (err instanceof ModelDownloadError) {
        // Not the file at all (wrong magic): nothing worth keeping.
        if (offset === 0) await Promise.all([rm(partPath, { force: true }), rm(recordPath, { force: true })]);
        throw err;
      }
      lastError = err;
    } finally {
      await handle.close();
    }
    // The connection dropped (or ended early): go on from where it stopped.
    failures = offset > before ? 1 : failures + 1;
  }

  const sha256 = hash.digest("hex");
  const size = offset;
  if ((file.size !== undefined && size !== file.size) || (file.sha256 !== undefined && sha256 !== file.sha256)) {
    await rm(partPath, { force: true });
    await rm(recordPath, { force: true });
    const expected =
      file.sha256 !== undefined ? `sha256 ${file.sha256}, ${file.size ?? "?"} bytes` : `${file.size} bytes`;
    throw new ModelDownloadError(
      `${what}: the downloaded file does not match the hub's metadata (expected ${expected}; got sha256 ` +
        `${sha256}, ${size} bytes); it was deleted`,
      "TOOLWRIGHT_CHECKSUM_MISMATCH",
      file.url,
    );
  }
  const head = Buffer.alloc(options.magic?.length ?? 0);
  if (head.length > 0) {
    const handle = await open(partPath, "r");
    try {
      await handle.read(head, 0, head.length, 0);
    } finally {
      await handle.close();
    }
    try {
      checkMagic(head, options, file.url);
    } catch (err) {
      await rm(partPath, { force: true });
      await rm(recordPath, { force: true });
      throw err;
    }
  }
  await rename(partPath, dest);
  await rm(recordPath, { force: true });
  return sha256;
}

/** Throws when `bytes` (the file's first bytes) do not start with the expected magic. */
function checkMagic(bytes: Uint8Array, options: DownloadFileOptions, url: string): void {
  const magic = options.magic;
  if (!magic || bytes.length < magic.length) return;
  const start = Buffer.from(bytes.subarray(0, magic.length)).toString("latin1");
  if (start !== magic) {
    throw new ModelDownloadError(
      `${options.what}: the server sent a file that starts with ${JSON.stringify(start)}, not ` +
        `${JSON.stringify(magic)}: is the endpoint a model hub?`,
      "TOOLWRIGHT_DOWNLOAD_FAILED",
      url,
    );
  }
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message !== err.message ? `${err.message}: ${cause.message}` : err.message;
  }
  return String(err);
}
