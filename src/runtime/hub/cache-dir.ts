/**
 * Where downloaded models are kept. New downloads go to the Hugging Face hub cache that
 * `huggingface_hub` (huggingface-cli, transformers, llama.cpp's `-hf`) shares: `$HF_HUB_CACHE`, else
 * `$HF_HOME/hub`, else `$XDG_CACHE_HOME/huggingface/hub`, else `~/.cache/huggingface/hub`. Earlier
 * versions downloaded into toolwright's own folder, still read: `$TOOLWRIGHT_MODELS_DIR`, else
 * `$TOOLWRIGHT_CACHE_DIR/models`, else `$XDG_CACHE_HOME/toolwright/models`, else `~/.cache/toolwright/models`.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/** `~` and `~/…` as Python's `os.path.expanduser` reads them, then an absolute path. */
function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/") || path.startsWith("~\\")) return join(homedir(), path.slice(2));
  return resolve(path);
}

/**
 * The Hugging Face hub cache for `env` (default `process.env`), resolved as `huggingface_hub` resolves it:
 * `$HF_HUB_CACHE` (or the older `$HUGGINGFACE_HUB_CACHE`), else `$HF_HOME/hub`, else
 * `$XDG_CACHE_HOME/huggingface/hub`, else `~/.cache/huggingface/hub`.
 *
 * @example
 * import { hfCacheDir } from "toolwright";
 * console.log(hfCacheDir()); // /home/me/.cache/huggingface/hub
 */
export function hfCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const hubCache = env.HF_HUB_CACHE || env.HUGGINGFACE_HUB_CACHE;
  if (hubCache) return expandHome(hubCache);
  // huggingface_hub takes XDG_CACHE_HOME as it is (a relative one too), unlike toolwright's own folder.
  const home = env.HF_HOME || join(env.XDG_CACHE_HOME || join("~", ".cache"), "huggingface");
  return join(expandHome(home), "hub");
}

/**
 * toolwright's own model folder for `env` (default `process.env`): where versions before the shared Hugging
 * Face cache downloaded `hf:` models (`<dir>/hf/OWNER/REPO/REVISION/FILE`). It is still read, and written
 * with `layout: "toolwright"`.
 *
 * @example
 * import { modelCacheDir } from "toolwright";
 * console.log(modelCacheDir()); // /home/me/.cache/toolwright/models
 */
export function modelCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env.TOOLWRIGHT_MODELS_DIR) return resolve(env.TOOLWRIGHT_MODELS_DIR);
  if (env.TOOLWRIGHT_CACHE_DIR) return join(resolve(env.TOOLWRIGHT_CACHE_DIR), "models");
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache");
  return join(base, "toolwright", "models");
}

/**
 * The path of a hub file in toolwright's own folder: `<cacheDir>/hf/OWNER/REPO/<revision>/<path in repo>`.
 *
 * @example
 * hubFilePath("/c", "Qwen/Qwen3-0.6B-GGUF", "main", "Qwen3-0.6B-Q8_0.gguf");
 * // /c/hf/Qwen/Qwen3-0.6B-GGUF/main/Qwen3-0.6B-Q8_0.gguf
 */
export function hubFilePath(cacheDir: string, repo: string, revision: string, file: string): string {
  return join(revisionDir(cacheDir, repo, revision), ...file.split("/"));
}

/** The folder of a repository's revision in toolwright's folder (percent-encoded: "refs/pr/1" stays one folder). */
export function revisionDir(cacheDir: string, repo: string, revision: string): string {
  const [owner, name] = repo.split("/") as [string, string];
  return join(cacheDir, "hf", owner, name, encodeURIComponent(revision));
}
