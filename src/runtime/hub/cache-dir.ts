/**
 * Where downloaded models are kept: `$TOOLWRIGHT_MODELS_DIR`, else `$TOOLWRIGHT_CACHE_DIR/models`,
 * else `$XDG_CACHE_HOME/toolwright/models`, else `~/.cache/toolwright/models`.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/**
 * The model cache directory for `env` (default `process.env`).
 *
 * @example
 * import { modelCacheDir } from "toolwright";
 * console.log(modelCacheDir()); // /home/me/.cache/toolwright/models
 */
export function modelCacheDir(env: Record<string, string | undefined> = process.env): string {
  if (env.TOOLWRIGHT_MODELS_DIR) return resolve(env.TOOLWRIGHT_MODELS_DIR);
  if (env.TOOLWRIGHT_CACHE_DIR) return join(resolve(env.TOOLWRIGHT_CACHE_DIR), "models");
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache");
  return join(base, "toolwright", "models");
}

/**
 * The cached path of a hub file: `<cacheDir>/hf/OWNER/REPO/<revision>/<path in repo>`.
 *
 * @example
 * hubFilePath("/c", "Qwen/Qwen3-0.6B-GGUF", "main", "Qwen3-0.6B-Q8_0.gguf");
 * // /c/hf/Qwen/Qwen3-0.6B-GGUF/main/Qwen3-0.6B-Q8_0.gguf
 */
export function hubFilePath(cacheDir: string, repo: string, revision: string, file: string): string {
  return join(revisionDir(cacheDir, repo, revision), ...file.split("/"));
}

/** The folder of a repository's revision in the cache (the revision percent-encoded: "refs/pr/1" stays one folder). */
export function revisionDir(cacheDir: string, repo: string, revision: string): string {
  const [owner, name] = repo.split("/") as [string, string];
  return join(cacheDir, "hf", owner, name, encodeURIComponent(revision));
}
