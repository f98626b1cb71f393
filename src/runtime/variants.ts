/**
 * The addon's build variants (cuda, vulkan, metal, cpu): one table, `addon-variants.json` at the
 * package root, which the loader (binding.ts), the install script and the prebuild script all
 * read. Its order is the loader's preference: a GPU variant first, when it loads and finds a
 * device of its backend; the CPU build otherwise.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Package root: this file is src/runtime/variants.ts, compiled to lib/runtime/variants.js. */
const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** One build variant of the addon (a row of `addon-variants.json`). */
export interface AddonVariant {
  /** `TOOLWRIGHT_VARIANT` value and prebuild folder suffix: "cuda", "vulkan", "metal", "cpu". */
  name: string;
  /** The ggml backend whose devices make the variant worth loading; null for the CPU build. */
  backend: string | null;
  /** Platforms where this is the default variant (its prebuild folder has no suffix). */
  defaultOn: readonly string[];
  /** The environment switches of scripts/build-native.mjs that build it. */
  build: Readonly<Record<string, string>>;
  /** Shared libraries (regular expressions) a Linux build may link besides the C/C++ runtime. */
  linuxLibraries: readonly string[];
  /** What the machine needs for the variant to load and find a device. */
  needs: string;
}

let table: readonly AddonVariant[] | undefined;
let scope: string | undefined;

/** Reads `addon-variants.json` once: the variants and the platform packages' npm scope. */
function readTable(): readonly AddonVariant[] {
  if (table === undefined) {
    const parsed = JSON.parse(readFileSync(join(PACKAGE_ROOT, "addon-variants.json"), "utf8")) as {
      packageScope: string;
      variants: AddonVariant[];
    };
    scope = parsed.packageScope;
    table = Object.freeze(parsed.variants.map((v) => Object.freeze({ ...v })));
  }
  return table;
}

/**
 * The variants in the loader's order of preference.
 *
 * @example
 * import { addonVariants } from "toolwright";
 * console.log(addonVariants().map((v) => v.name)); // ["cuda", "vulkan", "metal", "cpu"]
 */
export function addonVariants(): readonly AddonVariant[] {
  return readTable();
}

/**
 * The npm package that ships one prebuild folder (`linux-x64-cuda` → `@toolwright/linux-x64-cuda`):
 * the published package lists them as optionalDependencies, and npm installs those whose
 * os/cpu/libc fit the machine.
 */
export function platformPackageName(folder: string): string {
  return `${platformPackageScope()}/${folder}`;
}

/** The platform packages' npm scope (`@toolwright`). */
export function platformPackageScope(): string {
  readTable();
  return scope!;
}

/** The platform's default variant: its prebuild folder is `<platform>-<arch>` with no suffix. */
export function defaultVariant(platform: string = process.platform): AddonVariant {
  const variants = addonVariants();
  return variants.find((v) => v.defaultOn.includes(platform)) ?? variants.find((v) => v.backend === null)!;
}

/** The variant a prebuild folder name (`linux-x64`, `linux-x64-cuda`, ...) holds, or undefined. */
export function variantOfFolder(
  folder: string,
  base = `${process.platform}-${process.arch}`,
): AddonVariant | undefined {
  if (folder === base) return defaultVariant();
  if (!folder.startsWith(`${base}-`)) return undefined;
  const name = folder.slice(base.length + 1).toLowerCase();
  return addonVariants().find((v) => v.name === name);
}

/** Rank of a variant name in the table (unknown names after every known one). */
export function variantRank(name: string): number {
  const i = addonVariants().findIndex((v) => v.name === name.toLowerCase());
  return i < 0 ? addonVariants().length : i;
}

/** What a loaded addon reports of itself: its compiled-in backends and the devices they found. */
export interface AddonDeviceFacts {
  backends?: readonly string[];
  devices: readonly { backend: string; type: string }[];
}

/**
 * Why a loaded addon is not worth keeping when another may load: it was built for a GPU backend
 * of the table (CUDA, Vulkan, Metal) and none of that backend's devices is usable here (no
 * driver, no ICD). Undefined when it has such a device, or is a CPU build. An addon too old to
 * list its backends is kept.
 *
 * @example
 * unusableGpuBuild({ backends: ["CPU", "Vulkan"], devices: [{ backend: "CPU", type: "cpu" }] });
 * // "built for Vulkan, but it finds no Vulkan device here (needs the Vulkan loader ...)"
 */
export function unusableGpuBuild(facts: AddonDeviceFacts): string | undefined {
  if (facts.backends === undefined) return undefined;
  const built = addonVariants().filter(
    (v) => v.backend !== null && facts.backends!.some((b) => sameBackend(b, v.backend!)),
  );
  if (built.length === 0) return undefined;
  const usable = built.some((v) =>
    facts.devices.some((d) => (d.type === "gpu" || d.type === "igpu") && sameBackend(d.backend, v.backend!)),
  );
  if (usable) return undefined;
  const names = built.map((v) => v.backend).join(" and ");
  return `built for ${names}, but it finds no ${names} device here (needs ${built.map((v) => v.needs).join("; ")})`;
}

/** Metal's registry is "MTL" in some ggml versions, "Metal" in others. */
function sameBackend(reported: string, table: string): boolean {
  const a = reported.toLowerCase();
  const b = table.toLowerCase();
  return a === b || (b === "metal" && a === "mtl");
}
