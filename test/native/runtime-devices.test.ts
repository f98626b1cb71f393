/**
 * GPU selection: `loadModel({ gpu })` places the weights on the asked backend or fails naming what
 * the build has, and the model reports where it runs. On a CPU-only build the GPU cases check the
 * refusal; on a GPU build the same table checks the placement.
 */
import { beforeAll, describe, expect, test } from "vitest";
import { listDevices, loadModel, ModelLoadError } from "../../src/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

let modelPath: string;

beforeAll(async () => {
  modelPath = await ensureTestModel({ vocab: "llama-spm", template: "Qwen-Qwen3-0.6B" });
});

const gpuDevices = () => listDevices().filter((d) => d.type === "gpu" || d.type === "igpu");
const backendOf = (name: string) => (name === "metal" ? /^(metal|mtl)$/i : new RegExp(`^${name}$`, "i"));

test("listDevices names the build's devices, the CPU among them", () => {
  const devices = listDevices();
  const cpus = devices.filter((d) => d.type === "cpu");
  expect(cpus).toHaveLength(1);
  expect(cpus[0]!.backend).toBe("CPU");
  for (const d of devices) {
    expect(d.name).toMatch(/\S/);
    expect(typeof d.description).toBe("string");
    expect(d.memoryTotal).toBeGreaterThanOrEqual(0);
  }
});

test("gpu: false keeps every layer on the CPU, and the model still generates", async () => {
  await using model = await loadModel(modelPath, { gpu: false });
  expect(model.placement).toEqual({ devices: [], gpuLayers: 0, backend: "cpu" });
  await using context = await model.createContext({ contextSize: 128, threads: 1 });
  const text = await context.generate({ prompt: "Hello", maxTokens: 3, sampling: { greedy: true } }).text();
  expect(typeof text).toBe("string");
});

test('gpu: "auto" (the default) uses the build\'s GPUs when it has any, else the CPU', async () => {
  await using model = await loadModel(modelPath);
  const gpus = gpuDevices();
  if (gpus.length === 0) {
    expect(model.placement).toEqual({ devices: [], gpuLayers: 0, backend: "cpu" });
  } else {
    expect(model.placement.devices.length).toBeGreaterThan(0);
    for (const d of model.placement.devices) expect(gpus.map((g) => g.name)).toContain(d.name);
    expect(model.placement.gpuLayers).toBe(model.info.layerCount + 1);
  }
});

test("gpuLayers bounds what is offloaded; gpu: false wins over it", async () => {
  await using model = await loadModel(modelPath, { gpu: false, gpuLayers: 2 });
  expect(model.placement.gpuLayers).toBe(0);
});

describe.each(["cuda", "metal", "vulkan"] as const)("gpu: %s", (backend) => {
  test("uses that backend when the build has it, or fails naming the devices it has", async () => {
    const present = gpuDevices().filter((d) => backendOf(backend).test(d.backend));
    if (present.length > 0) {
      await using model = await loadModel(modelPath, { gpu: backend, gpuLayers: 1 });
      expect(model.placement.backend).toMatch(backendOf(backend));
      expect(model.placement.gpuLayers).toBe(1);
      return;
    }
    const error = await loadModel(modelPath, { gpu: backend }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelLoadError);
    expect((error as ModelLoadError).code).toBe("TOOLWRIGHT_NO_GPU");
    expect((error as Error).message).toContain(`"${backend}"`);
    expect((error as Error).message).toMatch(/CPU/); // the devices the build does have
  });
});

test.each([
  { gpu: "opencl", error: RangeError },
  { gpu: "", error: RangeError },
  { gpu: true, error: TypeError },
  { gpu: 1, error: TypeError },
])("gpu: $gpu is refused with a $error.name naming the option", async ({ gpu, error }) => {
  const result = loadModel(modelPath, { gpu: gpu as never });
  await expect(result).rejects.toBeInstanceOf(error);
  await expect(result).rejects.toThrow(/options\.gpu/);
});
