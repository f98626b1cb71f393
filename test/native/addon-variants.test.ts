/**
 * The loader's choice among the addon's variants (addon-variants.json), on real binaries:
 * - a CUDA variant that does not load (the dynamic linker cannot find libcudart.so.12, as on a
 *   machine without the CUDA runtime) is passed over for the next build, and the report says why;
 * - a Vulkan build on a machine without a Vulkan driver (no ICD) loads but finds no Vulkan device:
 *   the loader prefers the CPU build, and keeps the Vulkan build (running on its CPU backend) only
 *   when nothing else loads; `gpu: "vulkan"` then fails naming why.
 * The Vulkan cases need a Vulkan build (TOOLWRIGHT_TEST_VULKAN_ADDON, or build-vulkan/ made as
 * docs/gpu.md says) and skip with a printed reason without one; so does the case of a real CUDA build
 * (TOOLWRIGHT_TEST_CUDA_ADDON, or build-cuda/ from scripts/gpu/build-cuda.sh) on a machine without a driver.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { addonVariants, listDevices, loadedAddon } from "../../src/index.js";
import { addonCandidates, chooseAddon } from "../../src/runtime/binding.js";
import { unusableGpuBuild } from "../../src/runtime/variants.js";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import { ensureTestModel, REPO_ROOT } from "../helpers/test-models.js";

const base = `${process.platform}-${process.arch}`;
const LOCAL_BUILD = join(REPO_ROOT, "build", "Release", "toolwright.node");
const VULKAN_BUILD =
  process.env.TOOLWRIGHT_TEST_VULKAN_ADDON ?? join(REPO_ROOT, "build-vulkan", "Release", "toolwright.node");
const hasVulkanBuild = existsSync(VULKAN_BUILD);
const CUDA_BUILD =
  process.env.TOOLWRIGHT_TEST_CUDA_ADDON ?? join(REPO_ROOT, "build-cuda", "Release", "toolwright.node");
const hasCudaBuild = existsSync(CUDA_BUILD) && !existsSync("/dev/nvidiactl");
const hasCompiler = process.platform === "linux" && spawnSync("cc", ["--version"]).status === 0;
const roots: string[] = [];
let modelPath: string;

if (!hasVulkanBuild)
  console.log(`addon-variants: Vulkan cases skipped: no Vulkan build at ${VULKAN_BUILD} (see docs/gpu.md)`);
if (!hasCudaBuild)
  console.log(`addon-variants: real CUDA build case skipped: no build at ${CUDA_BUILD}, or this machine has a driver`);
if (!hasCompiler) console.log("addon-variants: the CUDA-variant case needs Linux and a C compiler (cc): skipped");

beforeAll(async () => {
  await ensureCompiledLib();
  modelPath = await ensureTestModel({ vocab: "llama-spm", template: "Qwen-Qwen3-0.6B" });
}, 300_000);

afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "toolwright-variants-"));
  roots.push(dir);
  return dir;
}

/**
 * A real shared library named toolwright.node that needs libcudart.so.12, linked against a stand-in
 * that is then deleted: loading it fails in the dynamic linker exactly as a CUDA build does where
 * the CUDA runtime is not installed.
 */
function brokenCudaAddon(path: string): void {
  const work = tempDir();
  const cc = (args: string[]) => {
    const r = spawnSync("cc", args, { cwd: work, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`cc ${args.join(" ")} failed: ${r.stderr}`);
  };
  writeFileSync(join(work, "cudart.c"), "int cudaRuntimeGetVersion(int* v) { *v = 12000; return 0; }\n");
  writeFileSync(
    join(work, "addon.c"),
    "int cudaRuntimeGetVersion(int*);\nint toolwright_probe(void) { int v; return cudaRuntimeGetVersion(&v); }\n",
  );
  cc(["-shared", "-fPIC", "-o", "libcudart.so.12", "-Wl,-soname,libcudart.so.12", "cudart.c"]);
  mkdirSync(join(path, ".."), { recursive: true });
  cc(["-shared", "-fPIC", "-o", path, "addon.c", "-Wl,--no-as-needed", join(work, "libcudart.so.12")]);
  rmSync(join(work, "libcudart.so.12"));
}

/** Runs an ES module in a child Node.js process with `env` added; returns its JSON report. */
function child(script: string, env: Record<string, string>): Record<string, unknown> {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  const line = r.stdout.trim().split("\n").at(-1)!;
  return JSON.parse(line) as Record<string, unknown>;
}

const lib = (path: string) => JSON.stringify(join(REPO_ROOT, "lib", path));
/** No Vulkan driver: the loader reads only these (missing) manifests. */
const NO_ICD = { VK_ICD_FILENAMES: "/nonexistent/icd.json", VK_DRIVER_FILES: "/nonexistent/icd.json" };

describe("the variant table", () => {
  test("lists cuda, vulkan, metal, cpu in the loader's order, each with what it needs", () => {
    expect(addonVariants().map((v) => v.name)).toEqual(["cuda", "vulkan", "metal", "cpu"]);
    for (const v of addonVariants()) expect(v.needs.length).toBeGreaterThan(10);
    expect(addonVariants().find((v) => v.name === "cuda")!.linuxLibraries).toEqual([
      "^libcuda\\.so\\.",
      "^libcudart\\.so\\.",
      "^libcublas\\.so\\.",
      "^libcublasLt\\.so\\.",
    ]);
  });

  test.each([
    { facts: { backends: ["CPU", "RPC"], devices: [{ backend: "CPU", type: "cpu" }] }, unusable: false },
    { facts: { backends: ["CPU", "Vulkan"], devices: [{ backend: "CPU", type: "cpu" }] }, unusable: true },
    {
      facts: {
        backends: ["CPU", "Vulkan"],
        devices: [
          { backend: "Vulkan", type: "igpu" },
          { backend: "CPU", type: "cpu" },
        ],
      },
      unusable: false,
    },
    { facts: { backends: ["CUDA", "CPU"], devices: [{ backend: "CPU", type: "cpu" }] }, unusable: true },
    { facts: { backends: ["MTL", "CPU"], devices: [{ backend: "MTL", type: "gpu" }] }, unusable: false },
    { facts: { devices: [{ backend: "CPU", type: "cpu" }] }, unusable: false },
  ])(
    "a build with $facts.backends and devices $facts.devices.length is passed over: $unusable",
    ({ facts, unusable }) => {
      const reason = unusableGpuBuild(facts);
      expect(reason !== undefined).toBe(unusable);
      if (reason) expect(reason).toMatch(/^built for (CUDA|Vulkan), but it finds no \w+ device here \(needs /);
    },
  );
});

test("this process's addon: what loadedAddon() and listDevices() report", () => {
  const addon = loadedAddon();
  expect(existsSync(addon.path)).toBe(true);
  expect(addon.backends).toContain("CPU");
  const gpus = listDevices().filter((d) => d.type === "gpu" || d.type === "igpu");
  if (gpus.length === 0) expect(["cpu", "vulkan", "cuda"]).toContain(addon.variant);
  for (const p of addon.passedOver) expect(p.error).toMatch(/\S/);
});

describe.skipIf(!hasCompiler)("a CUDA variant without the CUDA runtime", () => {
  test("is passed over for the CPU build, and the report quotes the dynamic linker", () => {
    const root = tempDir();
    brokenCudaAddon(join(root, "prebuilds", `${base}-cuda`, "toolwright.node"));
    mkdirSync(join(root, "prebuilds", base), { recursive: true });
    symlinkSync(LOCAL_BUILD, join(root, "prebuilds", base, "toolwright.node"));
    const candidates = addonCandidates(root).filter((p) => p.startsWith(root) && existsSync(p));
    expect(candidates).toEqual([
      join(root, "prebuilds", `${base}-cuda`, "toolwright.node"),
      join(root, "prebuilds", base, "toolwright.node"),
    ]);
    const { binding, report } = chooseAddon(candidates);
    expect(typeof binding.Model.load).toBe("function");
    expect(report.path).toBe(candidates[1]);
    expect(report.variant).toBe("cpu");
    expect(report.passedOver).toHaveLength(1);
    expect(report.passedOver[0]!.path).toBe(candidates[0]);
    expect(report.passedOver[0]!.error).toContain("libcudart.so.12: cannot open shared object file");
  });

  test('loadModel falls back to the CPU; gpu: "cuda" fails naming the missing library', () => {
    const root = tempDir();
    const fake = join(root, "cuda", "toolwright.node");
    brokenCudaAddon(fake);
    const out = child(
      `import { loadModel, loadedAddon } from ${lib("index.js")};
       const m = await loadModel(${JSON.stringify(modelPath)});
       const placement = m.placement.backend; m.dispose();
       const e = await loadModel(${JSON.stringify(modelPath)}, { gpu: "cuda" }).catch((e) => e);
       console.log(JSON.stringify({ variant: loadedAddon().variant, skipped: loadedAddon().passedOver[0], placement,
         code: e.code, message: e.message }));`,
      { TOOLWRIGHT_ADDON: fake },
    );
    expect(out.variant).toBe("cpu");
    expect((out.skipped as { path: string }).path).toBe(fake);
    expect(out.placement).toBe("cpu");
    expect(out.code).toBe("TOOLWRIGHT_NO_GPU");
    expect(out.message).toContain('"cuda"');
    expect(out.message).toContain("libcudart.so.12");
  });
});

describe.skipIf(!hasCudaBuild)("a real CUDA build on a machine without an NVIDIA driver", () => {
  test('does not load (no driver, no CUDA runtime) and is passed over; gpu: "cuda" names the library', () => {
    const out = child(
      `import { loadModel, loadedAddon } from ${lib("index.js")};
       const e = await loadModel(${JSON.stringify(modelPath)}, { gpu: "cuda" }).catch((e) => e);
       const a = loadedAddon();
       const skipped = a.passedOver[0];
       console.log(JSON.stringify({ variant: a.variant, skipped, code: e.code, message: e.message }));`,
      { TOOLWRIGHT_ADDON: CUDA_BUILD },
    );
    expect(out.variant).toBe("cpu");
    expect(out.skipped).toEqual({
      path: CUDA_BUILD,
      error: expect.stringMatching(/lib(cuda|cudart|cublas|cublasLt)\.so\.\d+: cannot open shared object file/),
    });
    expect(out.code).toBe("TOOLWRIGHT_NO_GPU");
    expect(out.message).toContain(CUDA_BUILD);
  });
});

describe.skipIf(!hasVulkanBuild)("a Vulkan build on a machine without a Vulkan driver", () => {
  test('is passed over for the CPU build; listDevices shows no Vulkan device; gpu: "vulkan" says why', () => {
    const out = child(
      `import { loadModel, loadedAddon, listDevices } from ${lib("index.js")};
       const m = await loadModel(${JSON.stringify(modelPath)});
       const placement = m.placement.backend; m.dispose();
       const e = await loadModel(${JSON.stringify(modelPath)}, { gpu: "vulkan" }).catch((e) => e);
       const a = loadedAddon();
       console.log(JSON.stringify({ path: a.path, variant: a.variant, skipped: a.passedOver[0],
         devices: listDevices().map((d) => d.backend), placement, code: e.code, message: e.message }));`,
      { ...NO_ICD, TOOLWRIGHT_ADDON: VULKAN_BUILD },
    );
    expect(out.path).not.toBe(VULKAN_BUILD);
    expect(out.variant).toBe("cpu");
    expect(out.skipped).toEqual({
      path: VULKAN_BUILD,
      error: expect.stringMatching(/^built for Vulkan, but it finds no Vulkan device here/),
    });
    expect(out.devices).not.toContain("Vulkan");
    expect(out.placement).toBe("cpu");
    expect(out.code).toBe("TOOLWRIGHT_NO_GPU");
    expect(out.message).toContain("built for Vulkan, but it finds no Vulkan device");
  });

  test('is kept when nothing else loads: models run on its CPU backend, gpu: "vulkan" fails', () => {
    const out = child(
      `import { chooseAddon } from ${lib("runtime/binding.js")};
       const { binding, report } = chooseAddon([${JSON.stringify(VULKAN_BUILD)}]);
       const task = binding.Model.load(${JSON.stringify(modelPath)}, { gpu: "auto" });
       const m = await task.promise;
       const devices = m.info().devices.length; m.dispose();
       const e = await binding.Model.load(${JSON.stringify(modelPath)}, { gpu: "vulkan" }).promise.catch((e) => e);
       console.log(JSON.stringify({ variant: report.variant, noDevice: report.noDevice, backends: report.backends,
         devices, code: e.code }));`,
      NO_ICD,
    );
    expect(out.variant).toBe("vulkan");
    expect(out.backends).toContain("Vulkan");
    expect(out.noDevice).toMatch(/^built for Vulkan/);
    expect(out.devices).toBe(0);
    expect(out.code).toBe("TOOLWRIGHT_NO_GPU");
  });
});
