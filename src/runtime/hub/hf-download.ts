/**
 * A download into the Hugging Face hub cache: the content goes to `blobs/<etag>` (resumed from
 * `blobs/<etag>.incomplete`, which huggingface_hub also resumes), then `snapshots/<commit>/<file>` points at
 * it and `refs/<revision>` records the commit. A blob already there (the same content under another commit or
 * file name) is linked without downloading.
 *
 * The lock is toolwright's (`.locks/models--OWNER--REPO/<etag>.toolwright.lock`): huggingface_hub's own lock
 * beside it is an OS file lock, which no Node.js API takes, so a pull here and one from Python at the very
 * same moment are not kept apart (each checks the bytes it wrote).
 */
import { mkdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { type DownloadProgress, downloadFile } from "./download-file.js";
import { acquireLock } from "./file-lock.js";
import {
  blobPath,
  type HfCachedFile,
  hfRepoDir,
  isSafeCacheName,
  linkSnapshot,
  snapshotFile,
  writeRef,
} from "./hf-cache.js";
import type { HubConnection } from "./hub-http.js";
import type { HubFileInfo } from "./hub-metadata.js";

const SHA256 = /^[0-9a-f]{64}$/;

/** A file the hub described with a commit and an ETag that can name files: what the layout needs. */
export type StorableInfo = HubFileInfo & { commit: string; etag: string };

/** Whether the hub's answer can be stored in the hub cache's layout (a mirror may send no commit). */
export function isStorable(info: HubFileInfo): info is StorableInfo {
  return isSafeCacheName(info.commit) && isSafeCacheName(info.etag);
}

/** What {@link downloadToHfCache} downloads, and where. */
export interface HfDownload {
  conn: HubConnection;
  cacheDir: string;
  repo: string;
  revision: string;
  file: string;
  info: StorableInfo;
  onProgress: ((p: DownloadProgress) => void) | undefined;
}

/**
 * Downloads a file into the hub cache (or links a blob already there); resolves with the snapshot file and
 * whether this call downloaded its content.
 */
export async function downloadToHfCache(d: HfDownload): Promise<{ cached: HfCachedFile; downloaded: boolean }> {
  const { commit, etag } = d.info;
  const repoDir = hfRepoDir(d.cacheDir, d.repo);
  const lockDir = join(d.cacheDir, ".locks", basename(repoDir));
  await mkdir(lockDir, { recursive: true });
  const lock = await acquireLock(join(lockDir, `${etag}.toolwright.lock`), d.conn.signal);
  try {
    // Another process may have finished it while this one waited.
    const done = await snapshotFile(repoDir, commit, d.file);
    if (done) {
      await writeRef(repoDir, d.revision, commit);
      return { cached: done, downloaded: false };
    }
    const blob = blobPath(repoDir, etag);
    const kept = await stat(blob).catch(() => undefined);
    let sha256 = SHA256.test(etag) ? etag : null;
    const reuse = kept?.isFile() === true && (d.info.size === undefined || kept.size === d.info.size);
    if (!reuse) {
      await mkdir(join(repoDir, "blobs"), { recursive: true });
      sha256 = await downloadFile({
        conn: d.conn,
        file: d.info,
        dest: blob,
        partPath: `${blob}.incomplete`,
        recordPath: join(lockDir, `${etag}.toolwright-part.json`),
        partNamedByVersion: true,
        what: `${d.repo}/${d.file}`,
        onProgress: d.onProgress,
        magic: "GGUF",
      });
    }
    const path = await linkSnapshot(repoDir, commit, d.file, blob, !reuse);
    await writeRef(repoDir, d.revision, commit);
    const size = (await stat(path)).size;
    return { cached: { path, commit, size, sha256 }, downloaded: !reuse };
  } finally {
    await lock.release();
  }
}
