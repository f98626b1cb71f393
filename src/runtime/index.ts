/**
 * The runtime: load GGUF models, tokenize, and generate with llama.cpp's kernels.
 *
 * @example
 * import { loadModel } from "toolwright";
 * await using model = await loadModel("model.gguf");
 * await using context = await model.createContext();
 * console.log(await context.generate({ prompt: "Hello", maxTokens: 16 }).text());
 */
export { Model } from "./model.js";
export { TokenAttribute } from "./model-types.js";
export type { LoadModelOptions } from "./load-model.js";
export type {
  TokenizeOptions,
  DetokenizeOptions,
  SpecialTokens,
  TokenKind,
  ModelInfo,
  Vocabulary,
} from "./model-types.js";
export { listDevices } from "./devices.js";
export type { DeviceInfo, GpuOption, ModelPlacement } from "./devices.js";
export { Context } from "./context.js";
export type { ContextStats } from "./context.js";
export type { ContextOptions, SpeculativeOptions } from "./context-options.js";
export type { StateOptions, SavedStateInfo } from "./saved-state.js";
export { LoraAdapter } from "./lora.js";
export type { LoraSpec } from "./lora.js";
export { Generation } from "./generation.js";
export type { GenerateOptions, GeneratedToken, GenerationStats, StopReason } from "./generation.js";
export type { SamplingOptions, GrammarOptions } from "./sampling.js";
export {
  AbortError,
  ModelLoadError,
  ContextOverflowError,
  NotARerankerError,
  LoraError,
  SavedStateError,
} from "./errors.js";
export {
  pullModel,
  ModelDownloadError,
  hfCacheDir,
  modelCacheDir,
  isHfModelRef,
  parseHfModelRef,
} from "./hub/index.js";
export type {
  CacheLayout,
  PullModelOptions,
  PulledModel,
  DownloadProgress,
  ModelDownloadErrorCode,
  HfModelRef,
} from "./hub/index.js";
export { loadedAddon, NativeAddonError } from "./binding.js";
export type { LoadedAddon, AddonAttempt } from "./binding.js";
export { addonVariants } from "./variants.js";
export type { AddonVariant } from "./variants.js";
export { serveRpc } from "./rpc.js";
export type { ServeRpcOptions, RpcServer } from "./rpc.js";
export type { EmbedOptions, Pooling } from "./embedding.js";
export type { RankOptions } from "./rank.js";
export { grammarCacheStats, clearGrammarCache, setGrammarCacheLimit } from "./grammar-cache.js";
export type { GrammarCacheStats } from "./grammar-cache.js";
export { estimateMemory } from "./memory-estimate.js";
export { MediaError, MediaPrompt } from "./projector.js";
export type { MediaErrorCode, MediaPromptImage, ProjectorInfo } from "./projector.js";
export type { MemoryEstimate, MemoryEstimateOptions } from "./memory-estimate.js";
