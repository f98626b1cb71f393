#!/usr/bin/env node
// npm `install` hook: use the prebuilt addon for this platform when one loads (prebuilds/ in a
// clone, or the platform package @toolwright/<platform>-<arch>[-variant] that npm installed from the
// optionalDependencies), otherwise build it from source (scripts/build-native.mjs). An installed
// package builds in the user's cache (~/.cache/toolwright, see scripts/build-layout.mjs) and gets
// only addon/toolwright.node; the build tooling (cmake-js) is fetched then, into the same cache
// (scripts/build-tools.mjs).
//
//   TOOLWRIGHT_SKIP_BUILD=1   do nothing (e.g. only the TypeScript parts are needed)
//   TOOLWRIGHT_FORCE_BUILD=1  build from source even when a prebuilt binary exists
//   TOOLWRIGHT_CUDA=1 / TOOLWRIGHT_METAL=1 / TOOLWRIGHT_VULKAN=1  use that backend's prebuild
//                            (prebuilds/<platform>-<arch>-cuda/ or @toolwright/<platform>-<arch>-cuda, ...)
//                            if it loads, else build it
//   TOOLWRIGHT_PORTABLE=1    (for source builds) target any AVX2 CPU, as the prebuilds do
//   TOOLWRIGHT_CACHE_DIR     (for source builds) the cache folder
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const truthy = (v) => v !== undefined && /^(1|on|true|yes)$/i.test(v);

function log(message) {
  process.stderr.write(`[toolwright:install] ${message}\n`);
}

/**
 * Prebuild folder suffix ("" = the platform's default build) that each GPU switch asks for, from
 * the variant table the loader also reads (addon-variants.json).
 */
const { variants: TABLE, packageScope: SCOPE } = JSON.parse(readFileSync(join(ROOT, "addon-variants.json"), "utf8"));
const VERSION = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
const GPU_FOLDERS = Object.fromEntries(
  TABLE.filter((v) => v.backend !== null).map((v) => [
    `TOOLWRIGHT_${v.name.toUpperCase()}`,
    v.defaultOn.includes(process.platform) ? "" : `-${v.name}`,
  ]),
);

/**
 * Why a portable x86-64 prebuild cannot run on this CPU (AVX2, FMA, F16C, BMI2 needed), or
 * undefined. Only Linux exposes the CPU flags cheaply; src/runtime/binding.ts checks the same.
 */
function missingCpuFeatures() {
  if (process.platform !== "linux" || process.arch !== "x64") return undefined;
  let cpuinfo;
  try {
    cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  } catch {
    return undefined;
  }
  const flags = new Set(/^flags\s*:(.*)$/m.exec(cpuinfo)?.[1]?.trim().split(/\s+/) ?? []);
  const missing = ["avx2", "fma", "f16c", "bmi2"].filter((f) => !flags.has(f));
  return flags.size > 0 && missing.length > 0 ? `this CPU lacks ${missing.join(", ")}` : undefined;
}

/**
 * The first prebuilt binary for this platform that loads, or undefined. `gpu` (a TOOLWRIGHT_*
 * switch) limits the search to that backend's folder; otherwise GPU variants come first, as in
 * the runtime loader. Each folder is looked for in prebuilds/ (a clone, a package packed with
 * them), then as its platform package (@toolwright/<folder>, an optional dependency: the
 * published layout).
 */
function loadablePrebuild(gpu) {
  const base = `${process.platform}-${process.arch}`;
  const prebuilds = join(ROOT, "prebuilds");
  const present = existsSync(prebuilds) ? readdirSync(prebuilds) : [];
  const fromTable = TABLE.map((v) => (v.defaultOn.includes(process.platform) ? base : `${base}-${v.name}`));
  const folders = gpu
    ? [`${base}${GPU_FOLDERS[gpu]}`]
    : [...new Set([...present, ...fromTable])]
        .filter((d) => d === base || d.startsWith(`${base}-`))
        .sort((a, b) => rank(a, base) - rank(b, base) || a.localeCompare(b));
  const dirs = folders.flatMap((folder) => [join(prebuilds, folder), platformPackageDir(folder)]);
  if (!dirs.some((dir) => dir !== undefined && existsSync(dir))) return undefined;
  const unfit = missingCpuFeatures();
  if (unfit) {
    log(`not using the prebuilt binaries: ${unfit}, which they need`);
    return undefined;
  }
  const require = createRequire(import.meta.url);
  for (const dir of dirs) {
    if (dir === undefined || !existsSync(dir)) continue;
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith(".node"))
      .sort()) {
      const path = join(dir, file);
      try {
        require(path);
        return path;
      } catch (err) {
        log(`prebuilt ${path} does not load here (${String(err.message).split("\n")[0]})`);
      }
    }
  }
  return undefined;
}

/**
 * The folder of the platform package that ships prebuild `folder`, when it is installed and of
 * this package's version (they are released in lockstep); undefined otherwise.
 */
function platformPackageDir(folder) {
  const name = `${SCOPE}/${folder}`;
  let manifest;
  try {
    manifest = createRequire(join(ROOT, "package.json")).resolve(`${name}/package.json`);
  } catch {
    return undefined; // not installed: another platform's or variant's package
  }
  const theirs = JSON.parse(readFileSync(manifest, "utf8")).version;
  if (theirs === VERSION) return dirname(manifest);
  log(`not using ${name}: version ${theirs}, toolwright is ${VERSION}`);
  return undefined;
}

/** A prebuild folder's place in the variant table (the loader's order). */
function rank(folder, base) {
  const name =
    folder === base ? TABLE.find((v) => v.defaultOn.includes(process.platform))?.name : folder.slice(base.length + 1);
  const i = TABLE.findIndex((v) => v.name === name);
  return i < 0 ? TABLE.length : i;
}

function main() {
  if (truthy(process.env.TOOLWRIGHT_SKIP_BUILD)) {
    log(
      "TOOLWRIGHT_SKIP_BUILD is set: not building the native addon (loadModel() will fail until `npm run " +
        "build:native`).",
    );
    return;
  }
  const gpu = ["TOOLWRIGHT_CUDA", "TOOLWRIGHT_METAL", "TOOLWRIGHT_VULKAN"].find((v) => truthy(process.env[v]));
  if (!truthy(process.env.TOOLWRIGHT_FORCE_BUILD)) {
    const prebuilt = loadablePrebuild(gpu);
    if (prebuilt) {
      log(`using the prebuilt addon ${prebuilt}${gpu ? ` (${gpu} is set)` : ""}`);
      return;
    }
    const which = gpu ? `${gpu.slice("TOOLWRIGHT_".length)} ` : "";
    log(
      `no prebuilt ${which}addon for ${process.platform}-${process.arch} loads here: building from source ` +
        `(this takes several minutes)`,
    );
  } else {
    log("building from source (TOOLWRIGHT_FORCE_BUILD is set)");
  }
  // A forced or GPU build is what the user asked for instead of a prebuild: build-native marks it
  // so the loader prefers it. A build made only because no prebuild loads stays a fallback.
  const deliberate = truthy(process.env.TOOLWRIGHT_FORCE_BUILD) || gpu !== undefined;
  const buildArgs = [join(ROOT, "scripts", "build-native.mjs"), ...(deliberate ? [] : ["--fallback"])];
  const result = spawnSync(process.execPath, buildArgs, { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) {
    log(
      "the native addon could not be built, so toolwright cannot run models. Fix the error above and run " +
        "`npm rebuild toolwright` (or `npm run build:native` in a clone), or set TOOLWRIGHT_SKIP_BUILD=1 to " +
        "install without it.",
    );
    process.exit(result.status ?? 1);
  }
}

main();
