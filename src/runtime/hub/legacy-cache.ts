/**
 * toolwright's own model folder, where versions before the shared Hugging Face cache downloaded:
 * `<dir>/hf/OWNER/REPO/<revision>/<path>`, with what a file is recorded beside it (`<file>.meta.json`), so a
 * later pull asks the hub only whether it changed. Still read; written with `layout: "toolwright"`.
 */
import { readdir, readFile, writeFile, mkdir, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { hubFilePath, revisionDir } from "./cache-dir.js";
import { type DownloadProgress, downloadFile } from "./download-file.js";
import type { HubConnection } from "./hub-http.js";
import type { HubFileInfo } from "./hub-metadata.js";
import { acquireLock } from "./file-lock.js";

/** The record kept beside a file of the folder. */
export interface LegacyRecord {
  repo: string;
  file: string;
  revision: string;
  url: string;
  size: number;
  sha256: string | null;
  etag: string | null;
  commit: string | null;
  downloadedAt: string;
}

/** A file of the folder and its record. */
export interface LegacyFile {
  path: string;
  record: LegacyRecord;
}

/** A cached file is current when the hub describes the same content. */
export function isCurrent(cached: LegacyRecord, info: HubFileInfo): boolean {
  if (info.size !== undefined && info.size !== cached.size) return false;
  if (info.sha256 !== undefined) return info.sha256 === cached.sha256;
  return info.etag !== undefined && info.etag === cached.etag;
}

/** The record of a complete file at `path` (one whose size still matches it), or undefined. */
async function readRecord(path: string): Promise<LegacyRecord | undefined> {
  const [info, text] = await Promise.all([
    stat(path).catch(() => undefined),
    readFile(`${path}.meta.json`, "utf8").catch(() => undefined),
  ]);
  if (!info?.isFile() || text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as LegacyRecord;
    return record && typeof record === "object" && record.size === info.size ? record : undefined;
  } catch {
    return undefined;
  }
}

/** The folder's complete copy of a file of a revision, or undefined. */
export async function findLegacyCached(
  dir: string,
  repo: string,
  revision: string,
  file: string,
): Promise<LegacyFile | undefined> {
  const path = hubFilePath(dir, repo, revision, file);
  const record = await readRecord(path);
  return record ? { path, record } : undefined;
}

/** The .gguf files of a revision in the folder, as paths in the repository. */
export async function legacyGgufFiles(dir: string, repo: string, revision: string): Promise<string[]> {
  const root = revisionDir(dir, repo, revision);
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && e.name.toLowerCase().endsWith(".gguf"))
    .map((e) =>
      relative(root, join(e.parentPath ?? (e as unknown as { path: string }).path, e.name))
        .split(sep)
        .join("/"),
    )
    .sort();
}

/** What {@link downloadToLegacy} downloads, and where. */
export interface LegacyDownload {
  conn: HubConnection;
  dir: string;
  repo: string;
  revision: string;
  file: string;
  info: HubFileInfo;
  onProgress: ((p: DownloadProgress) => void) | undefined;
}

/**
 * Downloads a file into the folder under a lock beside it (`<file>.lock`), resuming `<file>.part`; resolves with
 * the file and whether this call downloaded it (false: another process finished it meanwhile).
 */
export async function downloadToLegacy(d: LegacyDownload): Promise<LegacyFile & { downloaded: boolean }> {
  const dest = hubFilePath(d.dir, d.repo, d.revision, d.file);
  await mkdir(dirname(dest), { recursive: true });
  const lock = await acquireLock(`${dest}.lock`, d.conn.signal);
  try {
    const done = await readRecord(dest);
    if (done && isCurrent(done, d.info)) return { path: dest, record: done, downloaded: false };
    const sha256 = await downloadFile({
      conn: d.conn,
      file: d.info,
      dest,
      what: `${d.repo}/${d.file}`,
      onProgress: d.onProgress,
      magic: "GGUF",
    });
    const record: LegacyRecord = {
      repo: d.repo,
      file: d.file,
      revision: d.revision,
      url: d.info.url,
      size: (await stat(dest)).size,
      sha256,
      etag: d.info.etag ?? null,
      commit: d.info.commit ?? null,
      downloadedAt: new Date().toISOString(),
    };
    await writeFile(`${dest}.meta.json`, `${JSON.stringify(record, null, 2)}\n`);
    return { path: dest, record, downloaded: true };
  } finally {
    await lock.release();
  }
}
