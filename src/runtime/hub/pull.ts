/**
 * `pullModel("hf:OWNER/REPO/FILE.gguf")`: a model file from the Hugging Face hub (or a mirror)
 * into the local cache, once. What a cached file is, is recorded beside it (`<file>.meta.json`),
 * so a later pull asks the hub only whether it changed.
 */
import { readdir, readFile, writeFile, mkdir, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { checkKeys, checkObject, checkString, optBoolean, optFunction, optSignal } from "../../validate/index.js";
import { AbortError } from "../errors.js";
import { hubFilePath, modelCacheDir, revisionDir } from "./cache-dir.js";
import { type DownloadProgress, downloadFile } from "./download-file.js";
import { ModelDownloadError } from "./errors.js";
import { abortError, type HubConnection, hubEndpoint, hubToken } from "./hub-http.js";
import { fetchFileInfo, type HubFileInfo, listRepoFiles } from "./hub-metadata.js";
import { acquireLock } from "./file-lock.js";
import { isHfModelRef, parseHfModelRef, pickQuantFile } from "./model-ref.js";

/** Options of {@link pullModel}. */
export interface PullModelOptions {
  /** Branch, tag or commit (default "main"). */
  revision?: string;
  /** The hub's base URL (default `$TOOLWRIGHT_HF_ENDPOINT`, `$HF_ENDPOINT` or https://huggingface.co). */
  endpoint?: string;
  /** Access token for gated and private repositories (default `$HF_TOKEN`). */
  token?: string;
  /** Where models are kept (default {@link modelCacheDir}). */
  cacheDir?: string;
  /**
   * Ask the hub whether a cached file is still current, and download the new version when not
   * (default true). With false a cached file is used as it is, without any request.
   */
  checkForUpdate?: boolean;
  /** Called as bytes arrive (and once at the start, with what a resumed download kept). */
  onProgress?: (progress: DownloadProgress) => void;
  /** Aborting rejects with an AbortError; the partial file is kept, and the next pull resumes it. */
  signal?: AbortSignal;
}

/** Where a pulled model is, and what it is. */
export interface PulledModel {
  /** The local file: pass it to `loadModel`. */
  path: string;
  repo: string;
  /** The file's path in the repository. */
  file: string;
  revision: string;
  sizeBytes: number;
  /** The content's sha256 (hex): checked against the hub's when the hub gives one. */
  sha256: string | null;
  /** "downloaded" now, or "cached" (already there and current, or not checked). */
  source: "downloaded" | "cached";
  /**
   * Whether the hub was asked: false with `checkForUpdate: false`, or when it could not be reached and a cached copy
   * was used.
   */
  checked: boolean;
}

/** The record kept beside a cached file. */
interface CachedRecord {
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

export const PULL_OPTION_KEYS: readonly string[] = [
  "revision",
  "endpoint",
  "token",
  "cacheDir",
  "checkForUpdate",
  "onProgress",
  "signal",
];

/** Checked options with the environment's defaults filled in. */
interface PullPlan {
  revision: string;
  cacheDir: string;
  checkForUpdate: boolean;
  conn: HubConnection;
  onProgress: ((p: DownloadProgress) => void) | undefined;
}

/** Checks pull options (`name` is the options object as messages name it) and fills in defaults. */
export function planPull(options: unknown, name: string, defaultCheck: boolean): PullPlan {
  const o = checkObject(options, name);
  checkKeys(o, PULL_OPTION_KEYS, name);
  const revision = o.revision === undefined ? "main" : checkString(o.revision, `${name}.revision`);
  if (revision === "" || revision === "." || revision === ".." || /[\0-\x1f]/.test(revision) || revision.length > 256) {
    throw new RangeError(`${name}.revision must be a branch, tag or commit name, got ${JSON.stringify(revision)}`);
  }
  const endpointOption = o.endpoint === undefined ? undefined : checkString(o.endpoint, `${name}.endpoint`);
  const token = o.token === undefined ? undefined : checkString(o.token, `${name}.token`);
  const cacheDir = o.cacheDir === undefined ? modelCacheDir() : checkString(o.cacheDir, `${name}.cacheDir`);
  if (cacheDir === "") throw new RangeError(`${name}.cacheDir must not be empty`);
  const endpoint = hubEndpoint(endpointOption, process.env, `${name}.endpoint`);
  return {
    revision,
    cacheDir,
    checkForUpdate: optBoolean(o.checkForUpdate, `${name}.checkForUpdate`) ?? defaultCheck,
    conn: { endpoint, token: hubToken(token), signal: optSignal(o.signal, `${name}.signal`) },
    onProgress: optFunction<(p: DownloadProgress) => void>(o.onProgress, `${name}.onProgress`),
  };
}

/**
 * Downloads a model from the Hugging Face hub into the cache (or finds it there) and resolves
 * with its local path. A download shows progress through `onProgress`, resumes a partial file
 * left by an earlier attempt or a dropped connection (HTTP Range), checks the sha256 the hub
 * gives for the file, and appears under its final name only when complete. Two pulls of one file
 * at once download it once.
 *
 * References: `hf:OWNER/REPO/FILE.gguf`, `hf:OWNER/REPO/path/in/repo/FILE.gguf`,
 * `hf:OWNER/REPO:QUANT` (the repository's file for that quantization, as llama.cpp's
 * `-hf` picks it), `hf:OWNER/REPO` (Q4_K_M, else Q8_0, else the first model file).
 *
 * @throws {RangeError} for a malformed reference or option.
 * @throws {ModelDownloadError} with code TOOLWRIGHT_OFFLINE, TOOLWRIGHT_DOWNLOAD_NOT_FOUND,
 * TOOLWRIGHT_DOWNLOAD_DENIED, TOOLWRIGHT_CHECKSUM_MISMATCH or TOOLWRIGHT_DOWNLOAD_FAILED.
 * @throws {AbortError} when `signal` aborts.
 * @example
 * import { pullModel, loadModel } from "toolwright";
 * const { path } = await pullModel("hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf", {
 *   onProgress: ({ receivedBytes, totalBytes }) => console.log(receivedBytes, totalBytes),
 * });
 * const model = await loadModel(path);
 */
export async function pullModel(ref: string, options: PullModelOptions = {}): Promise<PulledModel> {
  checkString(ref, "pullModel: ref");
  const plan = planPull(options, "pullModel: options", true);
  return pullPlanned(ref, plan);
}

/**
 * The local path of a model: `pathOrRef` itself unless it is an `hf:` reference, which is
 * pulled (a cached copy is used without asking the hub, unless `checkForUpdate` is true).
 *
 * @internal For `loadModel`.
 * @example
 * const ref = "hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf";
 * const path = await resolveModelPath(ref, {}, "loadModel: options.download");
 */
export async function resolveModelPath(pathOrRef: string, options: unknown, name: string): Promise<string> {
  const plan = planPull(options, name, false);
  return isHfModelRef(pathOrRef) ? (await pullPlanned(pathOrRef, plan)).path : pathOrRef;
}

async function pullPlanned(ref: string, plan: PullPlan): Promise<PulledModel> {
  const parsed = parseHfModelRef(ref);
  const { conn, revision, cacheDir } = plan;
  try {
    if (conn.signal?.aborted) throw abortError(ref, conn.signal);
    let file = parsed.file;
    let listed: HubFileInfo["sha256"];
    if (file === undefined) {
      const picked = await pickFile(plan, parsed.repo, parsed.quant, ref);
      if (picked.cached) return picked.cached;
      file = picked.file;
      listed = picked.sha256;
    }
    const dest = hubFilePath(cacheDir, parsed.repo, revision, file);
    const cached = await readCached(dest);
    if (cached && !plan.checkForUpdate) return result(dest, cached, "cached", false);

    let info: HubFileInfo;
    try {
      info = await fetchFileInfo(conn, parsed.repo, revision, file);
    } catch (err) {
      // No network: a cached copy will do.
      if (cached && err instanceof ModelDownloadError && err.code === "TOOLWRIGHT_OFFLINE")
        return result(dest, cached, "cached", false);
      throw err;
    }
    if (info.sha256 === undefined && listed !== undefined) info = { ...info, sha256: listed };
    if (cached && isCurrent(cached, info)) return result(dest, cached, "cached", true);

    await mkdir(dirname(dest), { recursive: true });
    const lock = await acquireLock(`${dest}.lock`, conn.signal);
    try {
      // Another process may have finished it while this one waited.
      const done = await readCached(dest);
      if (done && isCurrent(done, info)) return result(dest, done, "cached", true);
      const sha256 = await downloadFile({
        conn,
        file: info,
        dest,
        what: `${parsed.repo}/${file}`,
        onProgress: plan.onProgress,
        magic: "GGUF",
      });
      const size = (await stat(dest)).size;
      const record: CachedRecord = {
        repo: parsed.repo,
        file,
        revision,
        url: info.url,
        size,
        sha256,
        etag: info.etag ?? null,
        commit: info.commit ?? null,
        downloadedAt: new Date().toISOString(),
      };
      await writeFile(`${dest}.meta.json`, `${JSON.stringify(record, null, 2)}\n`);
      return result(dest, record, "downloaded", true);
    } finally {
      await lock.release();
    }
  } catch (err) {
    if (conn.signal?.aborted && !(err instanceof AbortError)) throw abortError(ref, conn.signal);
    if (err instanceof ModelDownloadError || err instanceof AbortError || err instanceof RangeError) throw err;
    // The file system (no space, no permission): still a download failure, with the reason.
    const code = (err as NodeJS.ErrnoException).code;
    throw new ModelDownloadError(
      `${ref}: ${code ? `${code}: ` : ""}${(err as Error).message ?? String(err)}`,
      "TOOLWRIGHT_DOWNLOAD_FAILED",
      conn.endpoint,
      { cause: err },
    );
  }
}

function result(path: string, record: CachedRecord, source: PulledModel["source"], checked: boolean): PulledModel {
  return {
    path,
    repo: record.repo,
    file: record.file,
    revision: record.revision,
    sizeBytes: record.size,
    sha256: record.sha256,
    source,
    checked,
  };
}

/** A cached file is current when the hub describes the same content. */
function isCurrent(cached: CachedRecord, info: HubFileInfo): boolean {
  if (info.size !== undefined && info.size !== cached.size) return false;
  if (info.sha256 !== undefined) return info.sha256 === cached.sha256;
  return info.etag !== undefined && info.etag === cached.etag;
}

/** The record of a complete cached file (one whose size still matches it), or undefined. */
async function readCached(dest: string): Promise<CachedRecord | undefined> {
  const [info, text] = await Promise.all([
    stat(dest).catch(() => undefined),
    readFile(`${dest}.meta.json`, "utf8").catch(() => undefined),
  ]);
  if (!info?.isFile() || text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as CachedRecord;
    return record && typeof record === "object" && record.size === info.size ? record : undefined;
  } catch {
    return undefined;
  }
}

/** Picks the file for `REPO:QUANT`: from the hub's listing, or from the cache when allowed or offline. */
async function pickFile(
  plan: PullPlan,
  repo: string,
  quant: string | undefined,
  ref: string,
): Promise<{ file: string; sha256?: string; cached?: PulledModel }> {
  const cachedPick = async () => {
    const dir = revisionDir(plan.cacheDir, repo, plan.revision);
    const local = await cachedGgufFiles(dir);
    const file = pickQuantFile(local, quant);
    if (file === undefined) return undefined;
    const dest = hubFilePath(plan.cacheDir, repo, plan.revision, file);
    const record = await readCached(dest);
    return record ? result(dest, record, "cached", false) : undefined;
  };
  if (!plan.checkForUpdate) {
    const cached = await cachedPick();
    if (cached) return { file: cached.file, cached };
  }
  let files: Awaited<ReturnType<typeof listRepoFiles>>;
  try {
    files = await listRepoFiles(plan.conn, repo, plan.revision);
  } catch (err) {
    if (err instanceof ModelDownloadError && err.code === "TOOLWRIGHT_OFFLINE") {
      const cached = await cachedPick();
      if (cached) return { file: cached.file, cached };
    }
    throw err;
  }
  const file = pickQuantFile(
    files.map((f) => f.path),
    quant,
  );
  if (file === undefined) {
    const ggufs = files.filter((f) => f.path.toLowerCase().endsWith(".gguf")).map((f) => f.path);
    const available =
      ggufs.length > 0
        ? `; its .gguf files: ${ggufs.slice(0, 20).join(", ")}${ggufs.length > 20 ? ", …" : ""}`
        : "; it has no .gguf file";
    throw new ModelDownloadError(
      `${ref}: no file of ${repo} matches ` +
        `${quant === undefined ? "a model file" : `the quantization ${quant}`}${available}`,
      "TOOLWRIGHT_DOWNLOAD_NOT_FOUND",
      `${plan.conn.endpoint}/${repo}`,
    );
  }
  const sha256 = files.find((f) => f.path === file)?.sha256;
  return sha256 === undefined ? { file } : { file, sha256 };
}

/** The .gguf files of a cached revision, as paths in the repository. */
async function cachedGgufFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && e.name.toLowerCase().endsWith(".gguf"))
    .map((e) =>
      relative(dir, join(e.parentPath ?? (e as unknown as { path: string }).path, e.name))
        .split(sep)
        .join("/"),
    )
    .sort();
}
