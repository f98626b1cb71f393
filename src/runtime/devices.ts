/**
 * Compute devices: which the build offers ({@link listDevices}) and how `loadModel({ gpu })`
 * chooses among them.
 */
import { loadNative } from "./binding.js";
import type { NativeDevice } from "./binding-types.js";
import { describe } from "../validate/index.js";

/**
 * Where a model's weights go: `"auto"` (the default) uses every discrete GPU of the build's GPU
 * backends (else the integrated ones), as llama.cpp does; `false` keeps everything on the CPU; a
 * backend name (`"cuda"`, `"metal"`, `"vulkan"`) insists on that backend and fails when the build
 * or the machine lacks it.
 */
export type GpuOption = "auto" | "cuda" | "metal" | "vulkan" | false;

const GPU_CHOICES: readonly string[] = ["auto", "cuda", "metal", "vulkan"];

/** A compute device of the native build (the CPU, a CUDA GPU, the Metal GPU, ...). */
export interface DeviceInfo {
  /** ggml's device name, e.g. `CUDA0`, `MTL0`, `CPU`. */
  name: string;
  /** e.g. `NVIDIA H100 80GB HBM3`. */
  description: string;
  /** The ggml backend: `CPU`, `CUDA`, `Metal` (or `MTL`), `Vulkan`, ... */
  backend: string;
  type: "cpu" | "gpu" | "igpu" | "accel" | "other";
  /** Bytes free and in total, as the backend reports them (0 when it does not). */
  memoryFree: number;
  memoryTotal: number;
}

/** Where a loaded model's weights are. */
export interface ModelPlacement {
  /** The GPU devices holding offloaded layers; empty when the model runs on the CPU only. */
  devices: readonly Readonly<DeviceInfo>[];
  /** Layers offloaded to them (the output layer counts as one); 0 on the CPU. */
  gpuLayers: number;
  /** `"cpu"`, or the backend of the first device (`"CUDA"`, `"Metal"`, ...). */
  backend: string;
}

/**
 * Every compute device of the native build's backends (the CPU included). A GPU build that finds
 * no device of its backend lists only the CPU; `loadedAddon()` says which build runs and why the
 * others were passed over.
 *
 * @example
 * for (const d of listDevices()) console.log(d.name, d.backend, d.description);
 */
export function listDevices(): DeviceInfo[] {
  return loadNative().systemInfo().devices.map(copyDevice);
}

/**
 * Checks `options.gpu` and turns it into the native choice: "auto", "none" or a backend name.
 *
 * @example
 * nativeGpuChoice("cuda", "loadModel: options.gpu"); // "cuda"
 */
export function nativeGpuChoice(value: unknown, what: string): string {
  if (value === undefined) return "auto";
  if (value === false) return "none";
  if (typeof value !== "string")
    throw new TypeError(`${what} must be "auto", "cuda", "metal", "vulkan" or false, got ${describe(value)}`);
  const lower = value.toLowerCase();
  if (!GPU_CHOICES.includes(lower))
    throw new RangeError(`${what} must be "auto", "cuda", "metal", "vulkan" or false, got "${value}"`);
  return lower;
}

/** @internal The placement the native model reports. */
export function placementOf(devices: readonly NativeDevice[], gpuLayers: number): ModelPlacement {
  const copied = devices.map((d) => Object.freeze(copyDevice(d)));
  return Object.freeze({
    devices: Object.freeze(copied),
    gpuLayers: copied.length === 0 ? 0 : gpuLayers,
    backend: copied[0]?.backend ?? "cpu",
  });
}

function copyDevice(d: NativeDevice): DeviceInfo {
  return {
    name: d.name,
    description: d.description,
    backend: d.backend,
    type: d.type,
    memoryFree: d.memoryFree,
    memoryTotal: d.memoryTotal,
  };
}
