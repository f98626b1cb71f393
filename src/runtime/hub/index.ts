/**
 * Getting models: `pullModel("hf:OWNER/REPO/FILE.gguf")` downloads from the Hugging Face hub
 * into the hub cache huggingface_hub shares (resumable, checked against the hub's sha256);
 * `loadModel("hf:…")` does the same before loading.
 *
 * @example
 * import { pullModel, hfCacheDir } from "toolwright";
 * const { path } = await pullModel("hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf");
 * console.log(path.startsWith(hfCacheDir())); // true
 */
export { pullModel, type CacheLayout, type PullModelOptions, type PulledModel } from "./pull.js";
export type { DownloadProgress } from "./download-file.js";
export { ModelDownloadError, type ModelDownloadErrorCode } from "./errors.js";
export { hfCacheDir, modelCacheDir } from "./cache-dir.js";
export { isHfModelRef, parseHfModelRef, type HfModelRef } from "./model-ref.js";
