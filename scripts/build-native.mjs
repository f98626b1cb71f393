#!/usr/bin/env node
// Builds the native addon: fetches llama.cpp (scripts/fetch-llama.mjs), gets the build tooling
// (scripts/build-tools.mjs), then runs cmake-js on the top-level CMakeLists.txt.
//
//   node scripts/build-native.mjs [--out DIR] [--copy-to FILE] [--target NAME] [--fallback] [-- extra cmake-js args]
//
// Where things go (scripts/build-layout.mjs): in a development checkout, llama.cpp in deps/ and
// the build in build/ (output build/Release/toolwright.node); in an installed package, both in the
// user's cache (~/.cache/toolwright), and only the addon is copied into the package, as
// addon/toolwright.node. `--out` names another build folder (output DIR/Release/toolwright.node).
//
// A build made on purpose gets a marker file beside it (toolwright.preferred), so that the
// loader (src/runtime/binding.ts) tries it before the prebuilds. `--fallback` (the install script,
// when no prebuild loads here) leaves it unmarked: the prebuilds stay first.
//
// Environment (1/ON turns an option on, 0/OFF off; unset keeps the build folder's setting):
//   TOOLWRIGHT_CUDA=1       CUDA backend            (-DGGML_CUDA=ON)
//   TOOLWRIGHT_METAL=1      Metal backend           (-DGGML_METAL=ON; on by default on Apple Silicon)
//   TOOLWRIGHT_VULKAN=1     Vulkan backend          (-DGGML_VULKAN=ON)
//   TOOLWRIGHT_PORTABLE=1   any AVX2 x86-64 CPU instead of this machine's (-DTOOLWRIGHT_PORTABLE=ON)
//   TOOLWRIGHT_BUILD_BENCH=0  skip the llama.cpp reference driver used by bench:runtime
//   TOOLWRIGHT_RPC=0        leave out llama.cpp's RPC backend (-DTOOLWRIGHT_RPC=OFF; on by default)
//   TOOLWRIGHT_AMX=1        let a native x86-64 build use Intel AMX where the CPU reports it
//                           (-DTOOLWRIGHT_AMX=ON; off by default, see CMakeLists.txt)
//   TOOLWRIGHT_BUILD_JOBS=N parallel compile jobs (default: all cores)
//   TOOLWRIGHT_LLAMA_DIR    use this llama.cpp checkout instead of fetching the pinned one
//   TOOLWRIGHT_CACHE_DIR    the cache folder (default $XDG_CACHE_HOME/toolwright or ~/.cache/toolwright)
//   TOOLWRIGHT_VULKAN_GLSLC / TOOLWRIGHT_VULKAN_INCLUDE_DIR  the shader compiler and Vulkan
//                           headers for the Vulkan backend (scripts/vulkan-tools.sh fetches both)
// CCACHE_BASEDIR defaults to the repository root in a checkout (ccache hits across clones) and to
// the cache folder in an installed package (hits across projects).
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildLayout, PACKAGE_ROOT as ROOT, PREFERRED_MARKER } from "./build-layout.mjs";
import { obtainBuildTools } from "./build-tools.mjs";
import { fetchLlama } from "./fetch-llama.mjs";

function log(message) {
  process.stderr.write(`[toolwright:build-native] ${message}\n`);
}

function fail(message) {
  log(`error: ${message}`);
  process.exit(1);
}

/** CMake switches from environment variables. */
const SWITCHES = [
  ["TOOLWRIGHT_CUDA", "GGML_CUDA"],
  ["TOOLWRIGHT_METAL", "GGML_METAL"],
  ["TOOLWRIGHT_VULKAN", "GGML_VULKAN"],
  ["TOOLWRIGHT_PORTABLE", "TOOLWRIGHT_PORTABLE"],
  ["TOOLWRIGHT_BUILD_BENCH", "TOOLWRIGHT_BUILD_BENCH"],
  ["TOOLWRIGHT_RPC", "TOOLWRIGHT_RPC"],
  ["TOOLWRIGHT_AMX", "TOOLWRIGHT_AMX"],
];

/** CMake paths from environment variables. */
const PATHS = [
  ["TOOLWRIGHT_VULKAN_GLSLC", "Vulkan_GLSLC_EXECUTABLE"],
  ["TOOLWRIGHT_VULKAN_INCLUDE_DIR", "Vulkan_INCLUDE_DIR"],
];

export function cmakeDefines(env = process.env) {
  const defines = [];
  for (const [variable, option] of SWITCHES) {
    const value = env[variable];
    if (value === undefined || value === "") continue;
    if (/^(1|on|true|yes)$/i.test(value)) defines.push(`--CD${option}=ON`);
    else if (/^(0|off|false|no)$/i.test(value)) defines.push(`--CD${option}=OFF`);
    else fail(`${variable} must be 1 or 0, got "${value}"`);
  }
  for (const [variable, option] of PATHS) if (env[variable]) defines.push(`--CD${option}=${env[variable]}`);
  return defines;
}

function checkCmake() {
  const probe = spawnSync("cmake", ["--version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) {
    fail(
      "CMake was not found. Building the addon needs CMake >= 3.18 and a C++17 compiler:\n" +
        "  Debian/Ubuntu: sudo apt install cmake build-essential\n" +
        "  macOS:         brew install cmake   (and Xcode command line tools)\n" +
        "  Windows:       install Visual Studio 2022 with 'Desktop development with C++' (includes CMake)\n" +
        "  anywhere:      pip install cmake",
    );
  }
  return probe.stdout.split("\n")[0];
}

function main() {
  const { values, positionals } = parseArgs({
    options: {
      out: { type: "string" },
      "copy-to": { type: "string" },
      target: { type: "string" },
      fallback: { type: "boolean", default: false },
    },
    allowPositionals: true,
  });
  const layout = buildLayout(ROOT);
  const out = values.out ? resolve(ROOT, values.out) : layout.buildDir;
  // An installed package's addon is copied out of the cache into the package (addon/).
  const addonDir = values.out ? join(out, "Release") : layout.addonDir;
  log(checkCmake());
  if (layout.kind === "installed") log(`building in the cache (${out}); the addon goes to ${addonDir}`);
  const llamaDir = fetchLlama(layout.llamaDir);

  let tools;
  try {
    tools = obtainBuildTools(ROOT);
  } catch (err) {
    fail(`the build tooling could not be installed: ${err.message}`);
  }
  const jobs = process.env.TOOLWRIGHT_BUILD_JOBS ?? String(availableParallelism());
  if (!/^\d+$/.test(jobs) || Number(jobs) < 1) fail(`TOOLWRIGHT_BUILD_JOBS must be a positive integer, got "${jobs}"`);
  const args = [
    tools.cmakeJs,
    "build",
    "--out",
    out,
    "--parallel",
    jobs,
    ...cmakeDefines(),
    `--CDNODE_ADDON_API_DIR=${tools.nodeAddonApiDir}`,
  ];
  if (values.target) args.push("--target", values.target);
  args.push(...positionals);

  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, TOOLWRIGHT_LLAMA_DIR: llamaDir };
  env.CCACHE_BASEDIR ??= layout.kind === "checkout" ? ROOT : layout.cache;
  // Outside npm, cmake-js would download Node's headers; use the running Node's own when present.
  const nodePrefix = resolve(dirname(process.execPath), "..");
  if (!env.npm_config_nodedir && existsSync(join(nodePrefix, "include", "node", "node_api.h"))) {
    env.npm_config_nodedir = nodePrefix;
  }
  log(`cmake-js ${args.slice(1).join(" ")}`);
  const result = spawnSync(process.execPath, args, { cwd: ROOT, env, stdio: "inherit" });
  if (result.error) fail(`could not run cmake-js: ${result.error.message}`);
  if (result.status !== 0) {
    fail(
      `the native build failed (exit code ${result.status}). Check the compiler output above; ` +
        `TOOLWRIGHT_BUILD_JOBS=1 gives a readable log, and a stale ${out} folder can be removed to start over.`,
    );
  }
  let built = join(out, "Release", "toolwright.node");
  if (!existsSync(built)) fail(`the build finished but ${built} is missing`);
  if (addonDir !== join(out, "Release")) {
    mkdirSync(addonDir, { recursive: true });
    const target = join(addonDir, "toolwright.node");
    // Copied aside, then renamed over: a process that has the old file loaded keeps its copy.
    copyFileSync(built, `${target}.tmp-${process.pid}`);
    renameSync(`${target}.tmp-${process.pid}`, target);
    built = target;
  }
  const marker = join(addonDir, PREFERRED_MARKER);
  if (values.fallback) rmSync(marker, { force: true });
  else writeFileSync(marker, `${JSON.stringify({ builtAt: new Date().toISOString(), defines: cmakeDefines() })}\n`);
  if (values["copy-to"]) {
    const target = resolve(ROOT, values["copy-to"]);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(built, target);
    log(`copied to ${target}`);
  }
  log(`built ${built}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
