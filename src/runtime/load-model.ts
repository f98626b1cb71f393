/**
 * `loadModel()`'s work below the session layer: checks the options, pulls an `hf:` model (and its
 * projector), greets RPC servers, loads the weights on a worker thread with progress and abort,
 * and turns a failure into a {@link ModelLoadError} that says why.
 */
import { loadedAddon, loadNative } from "./binding.js";
import type { NativeModel } from "./binding-types.js";
import { checkRpcServers, greetRpcServer } from "./rpc.js";
import { ToolwrightError } from "../errors.js";
import { AbortError, ModelLoadError, errorCode } from "./errors.js";
import { GgufError } from "./gguf/errors.js";
import { readGgufMetadata } from "./gguf/reader.js";
import {
  checkKeys,
  checkObject,
  checkString,
  describe,
  optBoolean,
  optFunction,
  optInteger,
  optSignal,
} from "../validate/index.js";
import { nativeGpuChoice, type GpuOption } from "./devices.js";
import { resolveModelPath, resolveProjectorPath } from "./hub/pull.js";
import { isHfModelRef } from "./hub/model-ref.js";
import type { NativeProjector } from "./binding-projector.js";
import { defaultThreads } from "./cpu-threads.js";
import { MediaError, loadProjector } from "./projector.js";
import type { PullModelOptions } from "./hub/pull.js";
import type { Model } from "./model.js";

/** Options of {@link loadModel}. */
export interface LoadModelOptions {
  /** Called with the load progress in [0, 1]: non-decreasing, and 1 last (before the promise resolves). */
  onProgress?: (progress: number) => void;
  /** Aborting rejects the load with an {@link AbortError} and frees whatever was loaded. */
  signal?: AbortSignal;
  /** Load only the tokenizer and metadata (no weights): for tokenization, not generation. */
  vocabOnly?: boolean;
  /** Layers to offload to the GPU: a count, or "max" (the default) for all. Ignored on the CPU. */
  gpuLayers?: number | "max";
  /**
   * Which GPU backend to use: "auto" (default: the build's GPUs when there are any), "cuda",
   * "metal", "vulkan" (fails when the build or machine lacks it), or false for the CPU only.
   * What was used is reported by {@link Model.placement}.
   */
  gpu?: GpuOption;
  /** Memory-map the file (default: llama.cpp's choice, normally yes). */
  useMmap?: boolean;
  /**
   * For an `hf:` path: how to download it (see {@link pullModel}). A cached copy is used
   * without asking the hub unless `checkForUpdate` is true; `signal` is the load's.
   *
   * @example
   * await loadModel("hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf", {
   *   download: { onProgress: (p) => console.log(p.receivedBytes) },
   * });
   */
  download?: Omit<PullModelOptions, "signal">;
  /**
   * `"host:port"` of RPC servers (`toolwright rpc-server`) to place layers on, as llama.cpp's
   * `--rpc`: their devices come first in the model's device list, then the local GPUs, and the
   * layers are split in proportion to each device's free memory. Each server is greeted first, so
   * one that is down fails the load with TOOLWRIGHT_RPC_UNREACHABLE. If a server goes away later,
   * the model's operations fail with TOOLWRIGHT_RPC_LOST. `gpu: false` keeps the local GPUs out,
   * not the servers. The protocol has no authentication: use servers on loopback or a private
   * network only.
   */
  rpcServers?: readonly string[];
  /**
   * A multimodal projector for the model (an "mmproj" GGUF: a path or an `hf:` reference, pulled
   * like the model), so that chats can carry images. `"auto"`, for an `hf:` model, pulls the
   * repository's mmproj file that llama.cpp's `-hf` would pick (in the model's folder, the closest
   * quantization). It must be made for this model (its output
   * width is the model's embedding size); models that place images with M-RoPE positions
   * (Qwen2-VL and kin) are not supported yet. Fails with a {@link MediaError}.
   *
   * @example
   * const model = await loadModel("gemma-3-4b-it-Q4_K_M.gguf", { projector: "mmproj-gemma-3-4b-it-f16.gguf" });
   */
  projector?: string;
}

/**
 * llama.cpp's loader says only "failed to read key-value pairs" or "failed to read header" for most
 * malformed files; toolwright's own reader says exactly what is wrong with the same file.
 */
async function preciseGgufProblem(path: string): Promise<{ reason: string; error: GgufError } | undefined> {
  try {
    await readGgufMetadata(path);
    return undefined;
  } catch (err) {
    if (!(err instanceof GgufError)) return undefined;
    const prefix = `${err.path}: `;
    return { reason: err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message, error: err };
  }
}

/** For a demanded GPU: the GPU builds the loader passed over, and why (". Not used: ..."), or "". */
function whyNoGpuVariant(): string {
  const addon = loadedAddon();
  const reasons = addon.passedOver.filter((a) => a.error !== "not found").map((a) => `${a.path}: ${a.error}`);
  if (addon.noDevice !== undefined) reasons.push(`${addon.path} (loaded): ${addon.noDevice}`);
  return reasons.length === 0 ? "" : `. Addon builds not used: ${reasons.join("; ")}`;
}

/** The native message without its "Cannot load model "...": " lead. */
function llamaReason(message: string, path: string): string {
  const lead = `Cannot load model "${path}": `;
  return message.startsWith(lead) ? message.slice(lead.length) : message;
}

/**
 * Loads a GGUF model (`path` or an `hf:` reference, see {@link pullModel}), building the model
 * object with `make`: the runtime has no `loadModel` of its own, toolwright's one (session layer)
 * makes a `ChatModel`, a subclass of {@link Model} with the chat methods.
 *
 * @internal
 * @example
 * const model = await loadModelAs((native, file) => new ChatModel(native, file), "model.gguf");
 */
export async function loadModelAs<M extends Model>(
  make: (native: NativeModel, path: string) => M,
  pathOrRef: string,
  options: LoadModelOptions = {},
): Promise<M> {
  checkString(pathOrRef, "loadModel: path");
  if (pathOrRef === "") throw new RangeError("loadModel: path must not be empty");
  const opts = checkObject(options, "loadModel: options");
  checkKeys(
    opts,
    ["onProgress", "signal", "vocabOnly", "gpuLayers", "gpu", "useMmap", "download", "rpcServers", "projector"],
    "loadModel: options",
  );
  const download = checkObject(opts.download, "loadModel: options.download");
  if (download.signal !== undefined)
    throw new TypeError("loadModel: options.download.signal is not an option: options.signal aborts the download too");
  const onProgress = optFunction<(progress: number) => void>(opts.onProgress, "loadModel: options.onProgress");
  const signal = optSignal(opts.signal, "loadModel: options.signal");
  const vocabOnly = optBoolean(opts.vocabOnly, "loadModel: options.vocabOnly") ?? false;
  const useMmap = optBoolean(opts.useMmap, "loadModel: options.useMmap");
  let gpuLayers = -1;
  if (opts.gpuLayers !== undefined && opts.gpuLayers !== "max") {
    if (typeof opts.gpuLayers !== "number") {
      throw new TypeError(`loadModel: options.gpuLayers must be a number or "max", got ${describe(opts.gpuLayers)}`);
    }
    gpuLayers = optInteger(opts.gpuLayers, "loadModel: options.gpuLayers", 0, 2 ** 31 - 1)!;
  }
  const gpu = nativeGpuChoice(opts.gpu, "loadModel: options.gpu");
  const projectorRef =
    opts.projector === undefined ? undefined : checkString(opts.projector, "loadModel: options.projector");
  if (projectorRef === "") throw new RangeError("loadModel: options.projector must not be empty");
  if (projectorRef === "auto" && !isHfModelRef(pathOrRef))
    throw new RangeError(
      `loadModel: options.projector "auto" finds the projector of an hf: model; give a path for ${pathOrRef}`,
    );
  if (projectorRef !== undefined && vocabOnly)
    throw new RangeError("loadModel: options.projector needs the weights: it cannot be used with vocabOnly");
  const rpcServers =
    opts.rpcServers === undefined ? [] : checkRpcServers(opts.rpcServers, "loadModel: options.rpcServers");
  if (signal?.aborted) throw new AbortError(`loadModel: loading "${pathOrRef}" was aborted`, { cause: signal.reason });
  const path = await resolveModelPath(
    pathOrRef,
    { ...download, ...(signal ? { signal } : {}) },
    "loadModel: options.download",
  );

  const native = loadNative();
  if (rpcServers.length > 0 && !vocabOnly) {
    try {
      // In parallel: each waits for its own server's answer. A server a live model of this process
      // is connected to is not greeted: it serves one connection at a time.
      const connected = new Set(native.rpcEndpointsInUse?.() ?? []);
      await Promise.all(
        rpcServers.filter((endpoint) => !connected.has(endpoint)).map((endpoint) => greetRpcServer(endpoint)),
      );
    } catch (err) {
      const code = err instanceof ToolwrightError ? err.code : "TOOLWRIGHT_RPC_UNREACHABLE";
      throw new ModelLoadError(
        `Cannot load model "${path}": ${err instanceof Error ? err.message : String(err)}`,
        code,
        path,
        { cause: err },
      );
    }
    if (signal?.aborted) throw new AbortError(`loadModel: loading "${path}" was aborted`, { cause: signal.reason });
  }
  // Progress arrives through a thread-safe queue and may trail the result: keep it monotonic and
  // drop anything after the final 1.
  let last = -1;
  let done = false;
  const report = (p: number) => {
    if (done || !onProgress || !(p > last)) return;
    last = Math.min(1, p);
    try {
      onProgress(last);
    } catch (err) {
      queueMicrotask(() => {
        throw err;
      });
    }
  };
  const nativeOptions = {
    vocabOnly,
    gpuLayers,
    gpu,
    ...(useMmap === undefined ? {} : { useMmap }),
    ...(rpcServers.length > 0 ? { rpcServers } : {}),
  };
  const task = native.Model.load(path, nativeOptions, onProgress ? report : undefined);
  const onAbort = () => task.cancel();
  signal?.addEventListener("abort", onAbort, { once: true });
  let handle: NativeModel;
  try {
    handle = await task.promise;
  } catch (err) {
    done = true;
    const code = errorCode(err) ?? "TOOLWRIGHT_LOAD_FAILED";
    const message = err instanceof Error ? err.message : String(err);
    if (code === "ABORT_ERR") throw new AbortError(message, { cause: signal?.reason });
    if (code === "TOOLWRIGHT_LOAD_FAILED") {
      const precise = await preciseGgufProblem(path);
      if (precise !== undefined) {
        // The code stays TOOLWRIGHT_LOAD_FAILED (what callers already test for); the message gains the reason.
        throw new ModelLoadError(
          `Cannot load model "${path}": ${precise.reason} (llama.cpp: ${llamaReason(message, path)})`,
          code,
          path,
          { cause: precise.error },
        );
      }
    }
    if (code === "TOOLWRIGHT_NO_GPU") throw new ModelLoadError(message + whyNoGpuVariant(), code, path, { cause: err });
    throw new ModelLoadError(message, code, path, { cause: err });
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  let projector: NativeProjector | undefined;
  if (projectorRef !== undefined) {
    try {
      const pull = { ...download, ...(signal ? { signal } : {}) };
      const projectorPath =
        projectorRef === "auto"
          ? await resolveProjectorPath(pathOrRef, pull, "loadModel: options.download")
          : await resolveModelPath(projectorRef, pull, "loadModel: options.download");
      projector = await loadProjector(handle, projectorPath, defaultThreads());
    } catch (err) {
      done = true;
      handle.dispose();
      throw err;
    }
  }
  report(1);
  done = true;
  // Loaded, but the abort came after llama.cpp's last progress check (possibly from the
  // final progress report just above).
  if (signal?.aborted) {
    projector?.dispose();
    handle.dispose();
    throw new AbortError(`Cannot load model "${path}": the load was aborted`, { cause: signal.reason });
  }
  const model = make(handle, path);
  if (projector) model.attachProjector(projector);
  return model;
}
