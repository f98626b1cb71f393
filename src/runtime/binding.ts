/**
 * Loads the native addon (its interface is described in binding-types.ts).
 *
 * Search order: `TOOLWRIGHT_ADDON` (an explicit path), then the prebuilt binaries for this
 * platform, in the order of the variant table `addon-variants.json` (variants.ts): GPU variants
 * first; `TOOLWRIGHT_VARIANT=cpu|cuda|vulkan|...` puts that variant first. Each variant's folder
 * `prebuilds/<platform>-<arch>[-variant]/` of this package (a clone, a fallback install) comes
 * before its platform package `@toolwright/<platform>-<arch>[-variant]` (the published layout: npm
 * installs the ones that fit the machine from the optionalDependencies; missing ones are normal).
 * Then a local build (`build/Release/toolwright.node` in a clone,
 * `addon/toolwright.node` in an installed package that built from source). A local build
 * made on purpose (`npm run build:native`, or an install with `TOOLWRIGHT_FORCE_BUILD=1` or a GPU
 * switch) carries a marker file beside it and is tried before the prebuilds: it exists because a
 * prebuild was not what the user wanted.
 *
 * A GPU build is passed over when it does not load (its runtime libraries are missing: no
 * libcuda.so.1 without NVIDIA's driver, no libcudart) or loads but finds no device of its backend
 * (a Vulkan build with no Vulkan driver): the next candidate is tried, and if none loads, the GPU
 * build that loaded is kept (its CPU backend runs the model). {@link loadedAddon} tells which
 * binary was chosen and why the others were not. When nothing loads, ONE error lists every place
 * tried, why each failed, and how to build the addon.
 */
import type { NativeBinding, NativeSystemInfo } from "./binding-types.js";
import { ToolwrightError } from "../errors.js";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  addonVariants,
  defaultVariant,
  platformPackageName,
  platformPackageScope,
  unusableGpuBuild,
  variantOfFolder,
  variantRank,
} from "./variants.js";

/** Package root: this file is src/runtime/binding.ts, compiled to lib/runtime/binding.js. */
const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Where the addon was looked for, and why each candidate failed (or was passed over). */
export interface AddonAttempt {
  path: string;
  error: string;
}
type Attempt = AddonAttempt;

/** Which addon binary was loaded ({@link loadedAddon}), and why the ones before it were not used. */
export interface LoadedAddon {
  path: string;
  /** Its variant: from its prebuild folder, else from the GPU backend compiled in ("cpu" without one). */
  variant: string;
  /** The ggml backends compiled in ("CPU", "CUDA", "Vulkan", "RPC", ...). */
  backends: readonly string[];
  /** Candidates tried before it: not found, failed to load (with the loader's message), or no device. */
  passedOver: readonly AddonAttempt[];
  /** Set when it is a GPU build kept although it found no device: why (the CPU runs the models). */
  noDevice?: string;
}

/**
 * Thrown when no addon binary could be loaded; `attempts` lists each path tried and why it failed.
 *
 * @example
 * try { loadNative(); } catch (err) { if (err instanceof NativeAddonError) console.error(err.message); }
 */
export class NativeAddonError extends ToolwrightError<"TOOLWRIGHT_NO_ADDON"> {
  override name = "NativeAddonError";
  constructor(
    message: string,
    readonly attempts: readonly Attempt[],
  ) {
    super(message, "TOOLWRIGHT_NO_ADDON");
  }
}

/** A scoped npm package name (`@toolwright/linux-x64-cuda`), as opposed to a file path. */
const PACKAGE_NAME = /^@[^/\\]+\/[^/\\]+$/;

let cached: NativeBinding | undefined;
let chosen: LoadedAddon | undefined;

/**
 * Marker file that scripts/build-native.mjs writes beside a local build made on purpose; the
 * loader then tries that build before the prebuilds.
 */
export const PREFERRED_BUILD_MARKER = "toolwright.preferred";

/**
 * Candidate addon files, in the order they are tried. A platform package that this package
 * declares in its optionalDependencies but that is not installed is listed by its name (npm left
 * it out: another platform, `--omit=optional`), so that the error names it too.
 *
 * @example
 * console.log(addonCandidates());
 */
export function addonCandidates(root = PACKAGE_ROOT): string[] {
  const out: string[] = [];
  const explicit = process.env.TOOLWRIGHT_ADDON;
  // A relative path names a file from the working directory, as on a command line (require() would read it
  // as a package name).
  if (explicit) out.push(resolve(explicit));
  // Local builds: a clone's (build/Release, always listed for the error message), and an
  // installed package's source build (addon/, built in the user's cache and copied there).
  const locals = [join(root, "build", "Release")];
  if (existsSync(join(root, "addon", "toolwright.node"))) locals.push(join(root, "addon"));
  const preferred = locals.filter((dir) => existsSync(join(dir, PREFERRED_BUILD_MARKER)));
  for (const dir of preferred) out.push(join(dir, "toolwright.node"));
  const base = `${process.platform}-${process.arch}`;
  const packages = platformPackages(root);
  for (const folder of prebuildFolders(root)) {
    // The package's own prebuilds/ (a clone, a fallback install) before the platform package.
    const dir = join(root, "prebuilds", folder);
    const files = addonFiles(dir);
    out.push(...files);
    if (files.length === 0 && folder === base) out.push(join(dir, "toolwright.node"));
    const pkg = packages.resolve(folder);
    if (pkg.dir !== undefined) out.push(...addonFiles(pkg.dir));
    else if (pkg.declared) out.push(pkg.name);
  }
  for (const dir of locals) if (!preferred.includes(dir)) out.push(join(dir, "toolwright.node"));
  return out;
}

/** The `.node` files of a prebuild folder; within one folder (prebuildify-tagged names) too, GPU builds first. */
function addonFiles(dir: string): string[] {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".node")) : [];
  files.sort((a, b) => gpuFirst(a, b) || a.localeCompare(b));
  return files.map((f) => join(dir, f));
}

/**
 * This platform's prebuild folder names in the order tried: `TOOLWRIGHT_VARIANT`'s first ("cpu" or
 * "default" name the plain folder), then GPU variants, then the plain folder. The folders of
 * prebuilds/ and those of the variant table (whose platform packages may be installed).
 */
function prebuildFolders(root: string): string[] {
  const base = `${process.platform}-${process.arch}`;
  const prebuilds = join(root, "prebuilds");
  const present = existsSync(prebuilds) ? readdirSync(prebuilds).filter((d) => d.startsWith(`${base}-`)) : [];
  const fromTable = addonVariants().map((v) => (v === defaultVariant() ? base : `${base}-${v.name}`));
  const suffixes = [...new Set([...present, ...fromTable])]
    .filter((d) => d !== base)
    .map((d) => d.slice(base.length + 1));
  const rank = (v: string) => variantRank(variantOfFolder(v ? `${base}-${v}` : base, base)?.name ?? v);
  let order = [...suffixes, ""].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const wanted = process.env.TOOLWRIGHT_VARIANT?.toLowerCase();
  if (wanted) {
    const first = wanted === "cpu" || wanted === "default" ? "" : wanted;
    order = [first, ...order.filter((v) => v !== first)];
  }
  return order.map((v) => (v ? `${base}-${v}` : base));
}

/**
 * Where the platform packages (`@toolwright/<folder>`) are installed, resolved as Node resolves
 * them from the package root; and which of them the package declares (optionalDependencies,
 * written at publish by scripts/platform-packages.mjs).
 */
function platformPackages(root: string): {
  resolve(folder: string): { name: string; dir: string | undefined; declared: boolean };
} {
  const manifest = join(root, "package.json");
  const declared = readManifest(manifest)?.optionalDependencies ?? {};
  const require = createRequire(manifest);
  return {
    resolve(folder) {
      const name = platformPackageName(folder);
      let dir: string | undefined;
      try {
        dir = dirname(require.resolve(`${name}/package.json`));
      } catch {
        // not installed: normal for another platform's or another variant's package
      }
      return { name, dir, declared: Object.hasOwn(declared, name) };
    },
  };
}

interface PackageManifest {
  name?: string;
  version?: string;
  optionalDependencies?: Record<string, string>;
}

/** Sort order of file names in one folder (prebuildify-tagged names): the variant table's order. */
function gpuFirst(a: string, b: string): number {
  const rank = (name: string) =>
    Math.min(...["cuda", "vulkan", "metal"].map((v) => (name.toLowerCase().includes(v) ? variantRank(v) : Infinity)));
  const ra = rank(a);
  const rb = rank(b);
  return ra === rb ? 0 : ra < rb ? -1 : 1;
}

function reportOf(path: string, info: NativeSystemInfo, passedOver: readonly Attempt[]): LoadedAddon {
  const backends = info.backends ?? [...new Set(info.devices.map((d) => d.backend))];
  const folder = prebuiltOrigin(path)?.folder;
  const fromFolder = folder === undefined ? undefined : variantOfFolder(folder);
  const gpu = ["CUDA", "Vulkan", "Metal", "MTL"].find((b) => backends.some((x) => x.toLowerCase() === b.toLowerCase()));
  const variant = fromFolder?.name ?? (gpu === undefined ? "cpu" : gpu === "MTL" ? "metal" : gpu.toLowerCase());
  return Object.freeze({
    path,
    variant,
    backends: Object.freeze([...backends]),
    passedOver: Object.freeze([...passedOver]),
  });
}

/**
 * Where a prebuilt binary comes from: `prebuilds/<folder>/x.node` in this package, or
 * `<scope>/<folder>/x.node`, a platform package; undefined for a local build.
 */
function prebuiltOrigin(path: string): { folder: string; platformPackage?: string } | undefined {
  const m = /[\\/]([^\\/]+)[\\/]([^\\/]+)[\\/][^\\/]+$/.exec(path);
  if (m === null) return undefined;
  if (m[1] === "prebuilds") return { folder: m[2]! };
  return m[1] === platformPackageScope() ? { folder: m[2]!, platformPackage: `${m[1]}/${m[2]}` } : undefined;
}

/**
 * Why a binary of a platform package cannot be used with this toolwright: its version differs
 * (the addon and lib/ are built together and released in lockstep), or undefined.
 */
function versionMismatch(path: string): string | undefined {
  const name = prebuiltOrigin(path)?.platformPackage;
  if (name === undefined) return undefined;
  const own = readManifest(join(PACKAGE_ROOT, "package.json"))?.version;
  const theirs = readManifest(join(dirname(path), "package.json"))?.version;
  if (own === undefined || theirs === own) return undefined;
  return `${name} is version ${theirs}, toolwright is ${own}: reinstall toolwright`;
}

function readManifest(path: string): PackageManifest | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as PackageManifest;
  } catch {
    return undefined;
  }
}

/**
 * Why a portable x86-64 prebuild cannot run on this CPU (it needs AVX2, FMA, F16C and BMI2), or
 * undefined when it can or when this cannot be told (only Linux exposes the CPU flags cheaply).
 */
function missingCpuFeatures(path: string): string | undefined {
  if (process.platform !== "linux" || process.arch !== "x64" || prebuiltOrigin(path) === undefined) return undefined;
  let cpuinfo: string;
  try {
    cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  } catch {
    return undefined;
  }
  const flags = new Set(/^flags\s*:(.*)$/m.exec(cpuinfo)?.[1]?.trim().split(/\s+/) ?? []);
  if (flags.size === 0) return undefined;
  const missing = ["avx2", "fma", "f16c", "bmi2"].filter((f) => !flags.has(f));
  return missing.length > 0 ? `this CPU lacks ${missing.join(", ")}, which the prebuilt binary needs` : undefined;
}

/**
 * Returns the native module, loading it on first use.
 *
 * @throws {NativeAddonError} listing every location tried and how to build the addon.
 * @example
 * const native = loadNative();
 * console.log(native.systemInfo().system);
 */
export function loadNative(): NativeBinding {
  if (cached === undefined) {
    const loaded = chooseAddon(addonCandidates());
    const binding = loaded.binding;
    process.once("exit", () => binding.stopContexts());
    cached = binding;
    chosen = loaded.report;
  }
  return cached;
}

/**
 * Which addon binary runs (loading it on first use), and why each candidate before it was passed
 * over: the way to tell why a GPU variant is not used.
 *
 * @example
 * import { loadedAddon } from "toolwright";
 * const addon = loadedAddon();
 * console.log(addon.variant, addon.path);
 * for (const p of addon.passedOver) console.log(`not ${p.path}: ${p.error}`);
 */
export function loadedAddon(): LoadedAddon {
  loadNative();
  return chosen!;
}

/**
 * Loads the first addon in `paths` that loads; otherwise throws one {@link NativeAddonError}
 * listing every path and why it failed.
 *
 * @example
 * const native = loadAddonFrom(["/opt/toolwright/toolwright.node"]);
 */
export function loadAddonFrom(paths: readonly string[]): NativeBinding {
  return chooseAddon(paths).binding;
}

/**
 * {@link loadAddonFrom} with the report of the choice.
 *
 * @example
 * const { binding, report } = chooseAddon([
 *   "prebuilds/linux-x64-cuda/toolwright.node",
 *   "build/Release/toolwright.node",
 * ]);
 * console.log(report.variant, report.passedOver);
 */
export function chooseAddon(paths: readonly string[]): { binding: NativeBinding; report: LoadedAddon } {
  const require = createRequire(import.meta.url);
  const attempts: Attempt[] = [];
  // A GPU build that loaded but found no device: kept if nothing after it loads.
  let deviceless: { binding: NativeBinding; path: string; reason: string; attempts: number } | undefined;
  for (const path of paths) {
    if (!existsSync(path)) {
      // A bare package name: a platform package declared as an optional dependency, not installed.
      const error = PACKAGE_NAME.test(path) ? "not installed (optional dependency)" : "not found";
      attempts.push({ path, error });
      continue;
    }
    const unfit = missingCpuFeatures(path) ?? versionMismatch(path);
    if (unfit) {
      attempts.push({ path, error: unfit });
      continue;
    }
    try {
      const binding = require(path) as Partial<NativeBinding>;
      if (typeof binding.Model?.load !== "function") throw new Error("not a toolwright addon (no Model.load)");
      const native = binding as NativeBinding;
      const info = native.systemInfo();
      const noDevice = unusableGpuBuild(info);
      if (noDevice !== undefined) {
        attempts.push({ path, error: noDevice });
        deviceless ??= { binding: native, path, reason: noDevice, attempts: attempts.length - 1 };
        continue;
      }
      return { binding: native, report: reportOf(path, info, attempts) };
    } catch (err) {
      attempts.push({ path, error: err instanceof Error ? err.message.split("\n")[0]! : String(err) });
    }
  }
  if (deviceless !== undefined) {
    const report = reportOf(deviceless.path, deviceless.binding.systemInfo(), attempts.slice(0, deviceless.attempts));
    return { binding: deviceless.binding, report: { ...report, noDevice: deviceless.reason } };
  }
  const lines = attempts.map((a) => `  - ${a.path}: ${a.error}`).join("\n");
  throw new NativeAddonError(
    `toolwright: the native addon could not be loaded. Tried:\n${lines}\n` +
      `Build it with \`npm run build:native\` in a clone, or \`npm rebuild toolwright\` with ` +
      `TOOLWRIGHT_FORCE_BUILD=1 in an app (needs CMake and a C++17 compiler; ` +
      `TOOLWRIGHT_CUDA=1 / TOOLWRIGHT_METAL=1 select a GPU backend), ` +
      `or reinstall the package to get a prebuilt binary for ${process.platform}-${process.arch} ` +
      `(the optional dependency ${platformPackageName(`${process.platform}-${process.arch}`)}: not with ` +
      `--omit=optional). ` +
      `See docs/install.md in the toolwright repository.`,
    attempts,
  );
}
