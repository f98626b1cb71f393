/**
 * The Hugging Face hub cache layout, as `huggingface_hub` reads and writes it, so a model pulled by
 * huggingface-cli, Python or llama.cpp's `-hf` is found here and one pulled here is found there:
 *
 *   <cache>/models--OWNER--REPO/refs/<revision>          the commit sha the revision resolved to
 *   <cache>/models--OWNER--REPO/snapshots/<sha>/<path>   a relative symlink to ../../blobs/<etag>
 *                                                        (a plain file where symlinks are unavailable)
 *   <cache>/models--OWNER--REPO/blobs/<etag>             the content: the sha256 of an LFS file, the git
 *                                                        sha1 of a small one; `<etag>.incomplete` while
 *                                                        downloading
 */
import { lstat, mkdir, readFile, readdir, readlink, rename, rm, stat, symlink, copyFile } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import { writeFileAtomic } from "./write-atomic.js";

/** What may name a blob or a snapshot folder: no separators, no "." or "..". */
const SAFE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;
const COMMIT = /^[0-9a-f]{40}$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** Whether a name the hub sent (an ETag, a commit) can be a file name in the cache. */
export function isSafeCacheName(name: string | undefined): name is string {
  return name !== undefined && SAFE_NAME.test(name);
}

/** `<cache>/models--OWNER--REPO`. */
export function hfRepoDir(cacheDir: string, repo: string): string {
  return join(cacheDir, `models--${repo.replace("/", "--")}`);
}

/** `refs/<revision>` of a repository, or undefined for a revision no file can be named after. */
function refPath(repoDir: string, revision: string): string | undefined {
  const segments = revision.split("/");
  if (segments.some((s) => s === "" || s === "." || s === ".." || /[\\:\0-\x1f]/.test(s))) return undefined;
  return join(repoDir, "refs", ...segments);
}

/** The commit a revision resolved to when it was last pulled (a commit names itself), or undefined. */
export async function readRef(repoDir: string, revision: string): Promise<string | undefined> {
  const path = refPath(repoDir, revision);
  const text = path === undefined ? undefined : await readFile(path, "utf8").catch(() => undefined);
  const commit = text?.trim();
  if (isSafeCacheName(commit)) return commit;
  return COMMIT.test(revision) ? revision : undefined;
}

/** Records that `revision` resolved to `commit` (nothing for a commit itself, as huggingface_hub does). */
export async function writeRef(repoDir: string, revision: string, commit: string): Promise<void> {
  const path = refPath(repoDir, revision);
  if (path === undefined || revision === commit) return;
  if ((await readFile(path, "utf8").catch(() => undefined)) === commit) return;
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, commit);
}

/** `snapshots/<commit>/<path in repo>`. */
export function snapshotPath(repoDir: string, commit: string, file: string): string {
  return join(repoDir, "snapshots", commit, ...file.split("/"));
}

/** `blobs/<etag>`. */
export function blobPath(repoDir: string, etag: string): string {
  return join(repoDir, "blobs", etag);
}

/** A file found in the hub cache. */
export interface HfCachedFile {
  /** The snapshot path (what the model loads from). */
  path: string;
  commit: string;
  size: number;
  /** The content's sha256 when the blob is named by it (LFS files), else null. */
  sha256: string | null;
}

/** The file of `commit` in the cache (a link whose blob is there, or a plain file), or undefined. */
export async function snapshotFile(repoDir: string, commit: string, file: string): Promise<HfCachedFile | undefined> {
  const path = snapshotPath(repoDir, commit, file);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const link = (await lstat(path)).isSymbolicLink() ? await readlink(path).catch(() => "") : "";
  const blob = basename(link).toLowerCase();
  return { path, commit, size: info.size, sha256: SHA256.test(blob) ? blob : null };
}

/** The file of a revision in the cache: refs/<revision> followed (a commit is its own), or undefined. */
export async function findHfCached(
  cacheDir: string,
  repo: string,
  revision: string,
  file: string,
): Promise<HfCachedFile | undefined> {
  const repoDir = hfRepoDir(cacheDir, repo);
  const commit = await readRef(repoDir, revision);
  return commit === undefined ? undefined : snapshotFile(repoDir, commit, file);
}

/** The .gguf files of a revision's snapshot, as paths in the repository. */
export async function hfCachedGgufFiles(cacheDir: string, repo: string, revision: string): Promise<string[]> {
  const repoDir = hfRepoDir(cacheDir, repo);
  const commit = await readRef(repoDir, revision);
  if (commit === undefined) return [];
  const dir = join(repoDir, "snapshots", commit);
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.toLowerCase().endsWith(".gguf"))
    .map((e) =>
      relative(dir, join(e.parentPath ?? (e as unknown as { path: string }).path, e.name))
        .split(sep)
        .join("/"),
    )
    .sort();
}

/** Errors of a file system (or OS policy) that cannot make symlinks. */
const NO_SYMLINKS = new Set(["EPERM", "EACCES", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EINVAL"]);

/**
 * Points `snapshots/<commit>/<file>` at `blob` with a relative symlink; where symlinks cannot be made, the
 * snapshot gets the content itself (a blob just downloaded is moved there, an older one copied), as
 * huggingface_hub does. Resolves with the snapshot path.
 */
export async function linkSnapshot(
  repoDir: string,
  commit: string,
  file: string,
  blob: string,
  newBlob: boolean,
): Promise<string> {
  const path = snapshotPath(repoDir, commit, file);
  await mkdir(dirname(path), { recursive: true });
  await rm(path, { force: true });
  try {
    await symlink(relative(dirname(path), blob), path);
  } catch (err) {
    if (!NO_SYMLINKS.has((err as NodeJS.ErrnoException).code ?? "")) throw err;
    if (newBlob) await rename(blob, path);
    else await copyFile(blob, path);
  }
  return path;
}
