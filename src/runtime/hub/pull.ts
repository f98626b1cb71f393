/**
 * `pullModel("hf:OWNER/REPO/FILE.gguf")`: a model file from the Hugging Face hub (or a mirror), kept in the
 * hub cache that huggingface_hub shares (hf-cache.ts). A file is looked for there first, then in toolwright's
 * own folder of earlier versions (legacy-cache.ts), and downloaded only when neither has it (or, when asked
 * to check, when the hub has a newer version).
 */
import { checkKeys, checkObject, checkString, optBoolean, optFunction, optSignal } from "../../validate/index.js";
import { AbortError } from "../errors.js";
import { hfCacheDir, modelCacheDir } from "./cache-dir.js";
import type { DownloadProgress } from "./download-file.js";
import { ModelDownloadError } from "./errors.js";
import { findHfCached, type HfCachedFile, hfCachedGgufFiles, hfRepoDir, snapshotFile, writeRef } from "./hf-cache.js";
import { downloadToHfCache, isStorable } from "./hf-download.js";
import { abortError, type HubConnection, hubEndpoint, hubOffline, hubToken } from "./hub-http.js";
import { fetchFileInfo, type HubFileInfo, listRepoFiles } from "./hub-metadata.js";
import { downloadToLegacy, findLegacyCached, isCurrent, type LegacyFile, legacyGgufFiles } from "./legacy-cache.js";
import { isHfModelRef, parseHfModelRef, pickProjectorFile, pickQuantFile } from "./model-ref.js";

/** Where new downloads go: the shared Hugging Face hub cache, or toolwright's own folder as before. */
export type CacheLayout = "huggingface" | "toolwright";
const LAYOUTS: readonly CacheLayout[] = ["huggingface", "toolwright"];

/** Options of {@link pullModel}. */
export interface PullModelOptions {
  /** Branch, tag or commit (default "main"). */
  revision?: string;
  /** The hub's base URL (default `$TOOLWRIGHT_HF_ENDPOINT`, `$HF_ENDPOINT` or https://huggingface.co). */
  endpoint?: string;
  /** Access token for gated and private repositories (default `$HF_TOKEN`). */
  token?: string;
  /**
   * The Hugging Face hub cache, read first and written by downloads (default {@link hfCacheDir}: `$HF_HUB_CACHE`,
   * `$HF_HOME/hub` or `~/.cache/huggingface/hub`), shared with huggingface_hub and llama.cpp's `-hf`.
   */
  cacheDir?: string;
  /** toolwright's own folder, where earlier versions downloaded: read second (default {@link modelCacheDir}). */
  legacyCacheDir?: string;
  /**
   * Where downloads go: "huggingface" (the hub cache, default) or "toolwright" (`legacyCacheDir`, as earlier
   * versions did). The default is `$TOOLWRIGHT_CACHE_LAYOUT` when set. A hub (a mirror) that names no commit
   * (`X-Repo-Commit`) or sends an ETag that cannot name a file is downloaded from into `legacyCacheDir` too.
   */
  layout?: CacheLayout;
  /**
   * Ask the hub whether a cached file is still current, and download the new version when not
   * (default true). With false a cached file is used as it is, without any request. With `$HF_HUB_OFFLINE`
   * set (1, ON, YES or TRUE) the hub is never asked: a cached file is used, a missing one is an error.
   */
  checkForUpdate?: boolean;
  /** Called as bytes arrive (and once at the start, with what a resumed download kept). */
  onProgress?: (progress: DownloadProgress) => void;
  /** Aborting rejects with an AbortError; the partial file is kept, and the next pull resumes it. */
  signal?: AbortSignal;
}

/** Where a pulled model is, and what it is. */
export interface PulledModel {
  /** The local file: pass it to `loadModel`. In the hub cache, `…/snapshots/<commit>/<file>`. */
  path: string;
  repo: string;
  /** The file's path in the repository. */
  file: string;
  revision: string;
  /** The commit the revision resolved to, when known. */
  commit: string | null;
  sizeBytes: number;
  /**
   * The content's sha256 (hex): checked against the hub's when the hub gives one; null when not known (a small
   * file kept in git, or a cached copy stored without symlinks).
   */
  sha256: string | null;
  /** "downloaded" now, or "cached" (already there and current, or not checked). */
  source: "downloaded" | "cached";
  /**
   * Whether the hub was asked: false with `checkForUpdate: false` or `$HF_HUB_OFFLINE`, or when it could not be
   * reached and a cached copy was used.
   */
  checked: boolean;
}

export const PULL_OPTION_KEYS: readonly string[] = [
  "revision",
  "endpoint",
  "token",
  "cacheDir",
  "legacyCacheDir",
  "layout",
  "checkForUpdate",
  "onProgress",
  "signal",
];

/** Checked options with the environment's defaults filled in. */
interface PullPlan {
  revision: string;
  cacheDir: string;
  legacyCacheDir: string;
  layout: CacheLayout;
  checkForUpdate: boolean;
  /** `$HF_HUB_OFFLINE`: no request at all. */
  offline: boolean;
  conn: HubConnection;
  onProgress: ((p: DownloadProgress) => void) | undefined;
}

function optDir(value: unknown, name: string, fallback: () => string): string {
  const dir = value === undefined ? fallback() : checkString(value, name);
  if (dir === "") throw new RangeError(`${name} must not be empty`);
  return dir;
}

function cacheLayout(value: unknown, name: string): CacheLayout {
  const env = process.env.TOOLWRIGHT_CACHE_LAYOUT;
  const [layout, what] = value !== undefined ? [value, name] : env ? [env, "TOOLWRIGHT_CACHE_LAYOUT"] : ["huggingface"];
  if (!LAYOUTS.includes(layout as CacheLayout))
    throw new RangeError(`${what} must be "huggingface" or "toolwright", got ${JSON.stringify(layout)}`);
  return layout as CacheLayout;
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
  const endpoint = hubEndpoint(endpointOption, process.env, `${name}.endpoint`);
  return {
    revision,
    cacheDir: optDir(o.cacheDir, `${name}.cacheDir`, hfCacheDir),
    legacyCacheDir: optDir(o.legacyCacheDir, `${name}.legacyCacheDir`, modelCacheDir),
    layout: cacheLayout(o.layout, `${name}.layout`),
    checkForUpdate: optBoolean(o.checkForUpdate, `${name}.checkForUpdate`) ?? defaultCheck,
    offline: hubOffline(process.env),
    conn: { endpoint, token: hubToken(token), signal: optSignal(o.signal, `${name}.signal`) },
    onProgress: optFunction<(p: DownloadProgress) => void>(o.onProgress, `${name}.onProgress`),
  };
}

/**
 * Downloads a model from the Hugging Face hub into the cache (or finds it there) and resolves
 * with its local path. The cache is the one huggingface_hub, huggingface-cli and llama.cpp's `-hf` share
 * (`models--OWNER--REPO/snapshots/<commit>/<file>`), so a file pulled by any of them is found; toolwright's
 * own folder of earlier versions is still read. A download shows progress through `onProgress`, resumes a
 * partial file left by an earlier attempt or a dropped connection (HTTP Range), checks the sha256 the hub
 * gives for the file, and appears under its final name only when complete. Two pulls of one file at once
 * download it once.
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

/**
 * The local path of the projector ("mmproj") file that goes with the `hf:` model `modelRef`, pulled like the model:
 * the repository's mmproj file llama.cpp's `-hf` would pick ({@link pickProjectorFile}), from the cache when it is
 * there (and checking for updates is off), else from the hub's listing. TOOLWRIGHT_DOWNLOAD_NOT_FOUND when the
 * repository has none.
 *
 * @internal
 * @example
 * const mmproj = await resolveProjectorPath("hf:ggml-org/gemma-3-4b-it-GGUF:Q4_K_M", {}, "options.download");
 */
export async function resolveProjectorPath(modelRef: string, options: unknown, name: string): Promise<string> {
  const plan = planPull(options, name, false);
  const model = await pullPlanned(modelRef, plan);
  const { repo } = parseHfModelRef(modelRef);
  let file: string | undefined;
  if (!plan.checkForUpdate || plan.offline)
    file = pickProjectorFile(await hfCachedGgufFiles(plan.cacheDir, repo, plan.revision), model.file);
  if (file === undefined && plan.offline) throw offlineError(`${modelRef} (its projector)`, plan);
  if (file === undefined)
    file = pickProjectorFile(
      (await listRepoFiles(plan.conn, repo, plan.revision)).map((f) => f.path),
      model.file,
    );
  if (file === undefined) {
    throw new ModelDownloadError(
      `${modelRef}: the repository ${repo} has no projector file (a .gguf with "mmproj" in its name) for ${model.file}`,
      "TOOLWRIGHT_DOWNLOAD_NOT_FOUND",
      `${plan.conn.endpoint}/${repo}`,
    );
  }
  return (await pullPlanned(`hf:${repo}/${file}`, plan)).path;
}

async function pullPlanned(ref: string, plan: PullPlan): Promise<PulledModel> {
  const parsed = parseHfModelRef(ref);
  const { conn } = plan;
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
    const local = await findLocal(plan, parsed.repo, file);
    if (local && (!plan.checkForUpdate || plan.offline)) return local;
    if (plan.offline) throw offlineError(ref, plan);

    let info: HubFileInfo;
    try {
      info = await fetchFileInfo(conn, parsed.repo, plan.revision, file);
    } catch (err) {
      // No network: a cached copy will do.
      if (local && err instanceof ModelDownloadError && err.code === "TOOLWRIGHT_OFFLINE") return local;
      throw err;
    }
    if (info.sha256 === undefined && listed !== undefined) info = { ...info, sha256: listed };
    return (await findCurrent(plan, parsed.repo, file, info)) ?? (await download(plan, parsed.repo, file, info));
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

/** A cached copy of the revision's file, unchecked: the hub cache's, else toolwright's folder's. */
async function findLocal(plan: PullPlan, repo: string, file: string): Promise<PulledModel | undefined> {
  const hf = await findHfCached(plan.cacheDir, repo, plan.revision, file);
  if (hf) return fromHf(hf, repo, file, plan.revision, "cached", false);
  const legacy = await findLegacyCached(plan.legacyCacheDir, repo, plan.revision, file);
  return legacy ? fromLegacy(legacy, "cached", false) : undefined;
}

/** A cached copy of the version the hub describes, or undefined. */
async function findCurrent(
  plan: PullPlan,
  repo: string,
  file: string,
  info: HubFileInfo,
): Promise<PulledModel | undefined> {
  if (isStorable(info)) {
    const repoDir = hfRepoDir(plan.cacheDir, repo);
    const hf = await snapshotFile(repoDir, info.commit, file);
    if (hf) {
      await writeRef(repoDir, plan.revision, info.commit);
      return fromHf(hf, repo, file, plan.revision, "cached", true);
    }
  }
  const legacy = await findLegacyCached(plan.legacyCacheDir, repo, plan.revision, file);
  return legacy && isCurrent(legacy.record, info) ? fromLegacy(legacy, "cached", true) : undefined;
}

/** Downloads into the hub cache, or into toolwright's folder (asked for, or a hub that sends no commit). */
async function download(plan: PullPlan, repo: string, file: string, info: HubFileInfo): Promise<PulledModel> {
  const common = { conn: plan.conn, repo, revision: plan.revision, file, onProgress: plan.onProgress };
  if (plan.layout === "huggingface" && isStorable(info)) {
    const { cached, downloaded } = await downloadToHfCache({ ...common, cacheDir: plan.cacheDir, info });
    return fromHf(cached, repo, file, plan.revision, downloaded ? "downloaded" : "cached", true);
  }
  const { downloaded, ...legacy } = await downloadToLegacy({ ...common, dir: plan.legacyCacheDir, info });
  return fromLegacy(legacy, downloaded ? "downloaded" : "cached", true);
}

function offlineError(ref: string, plan: PullPlan): ModelDownloadError {
  return new ModelDownloadError(
    `${ref}: not in the model cache (${plan.cacheDir}), and HF_HUB_OFFLINE is set: the hub is not asked`,
    "TOOLWRIGHT_OFFLINE",
    plan.conn.endpoint,
  );
}

function fromHf(
  hf: HfCachedFile,
  repo: string,
  file: string,
  revision: string,
  source: PulledModel["source"],
  checked: boolean,
): PulledModel {
  const { path, commit, size, sha256 } = hf;
  return { path, repo, file, revision, commit, sizeBytes: size, sha256, source, checked };
}

function fromLegacy({ path, record }: LegacyFile, source: PulledModel["source"], checked: boolean): PulledModel {
  return {
    path,
    repo: record.repo,
    file: record.file,
    revision: record.revision,
    commit: record.commit,
    sizeBytes: record.size,
    sha256: record.sha256,
    source,
    checked,
  };
}

/** The cached file for `REPO:QUANT` (the hub cache's, else toolwright's folder's), unchecked. */
async function cachedPick(plan: PullPlan, repo: string, quant: string | undefined): Promise<PulledModel | undefined> {
  const hfFile = pickQuantFile(await hfCachedGgufFiles(plan.cacheDir, repo, plan.revision), quant);
  const hf = hfFile === undefined ? undefined : await findHfCached(plan.cacheDir, repo, plan.revision, hfFile);
  if (hf && hfFile !== undefined) return fromHf(hf, repo, hfFile, plan.revision, "cached", false);
  const legacyFile = pickQuantFile(await legacyGgufFiles(plan.legacyCacheDir, repo, plan.revision), quant);
  if (legacyFile === undefined) return undefined;
  const legacy = await findLegacyCached(plan.legacyCacheDir, repo, plan.revision, legacyFile);
  return legacy ? fromLegacy(legacy, "cached", false) : undefined;
}

/** Picks the file for `REPO:QUANT`: from the hub's listing, or from the cache when allowed or offline. */
async function pickFile(
  plan: PullPlan,
  repo: string,
  quant: string | undefined,
  ref: string,
): Promise<{ file: string; sha256?: string; cached?: PulledModel }> {
  if (!plan.checkForUpdate || plan.offline) {
    const cached = await cachedPick(plan, repo, quant);
    if (cached) return { file: cached.file, cached };
    if (plan.offline) throw offlineError(ref, plan);
  }
  let files: Awaited<ReturnType<typeof listRepoFiles>>;
  try {
    files = await listRepoFiles(plan.conn, repo, plan.revision);
  } catch (err) {
    if (err instanceof ModelDownloadError && err.code === "TOOLWRIGHT_OFFLINE") {
      const cached = await cachedPick(plan, repo, quant);
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
