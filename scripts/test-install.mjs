#!/usr/bin/env node
// Installs the package the way a user gets it, and runs it. Three modes:
//
//   --mode packages (default): the published layout: the main tarball ships no binary and lists
//     the platform package (@toolwright/<platform>-<arch>, made by scripts/platform-packages.mjs)
//     as an optional dependency; both tarballs are installed together with no C/C++ compiler,
//     CMake or nvcc on PATH (a PATH of symlinks to everything else), so a source build cannot happen;
//   --mode prebuild: the same, with the prebuilt addon inside the main tarball (prebuilds/);
//   --mode source: the tarball ships no prebuild, so the install script builds the addon from
//     source: llama.cpp's clone and the object files go to the user's cache (TOOLWRIGHT_CACHE_DIR,
//     default ~/.cache/toolwright), the build tooling (cmake-js) too; only the addon lands in the
//     package. ccache (CCACHE_DIR) and the cached llama.cpp bundle keep repeated runs short.
//
// Steps: `npm pack` this repository (what `files` in package.json ships); `npm install` the
// tarball(s) into an empty folder from the npm cache (--prefer-offline); there, load a generated test
// model through `import "toolwright"` and generate a few tokens (chat() when the model has a chat
// template, else generate()), check which addon file the process mapped, `require()` every export
// from a CommonJS file, and run the `toolwright` CLI. Measures the install's time and sizes.
// Prints a JSON report; exits 1 when a step fails.
//
//   node scripts/test-install.mjs [--mode packages|prebuild|source] [--model PATH] [--no-build] [--keep] [--keep-path]
//                                 [--cpu-only]
//
//   --no-build    use lib/ as it is (default: compile it first)
//   --keep        leave the temporary folder and the build folder in the cache (paths in the report)
//   --keep-path   install with the normal PATH (Windows, where a PATH of symlinks is impractical)
//   --cpu-only    load with gpuLayers: 0 (CI machines whose GPU is virtual)
//
// The packages and prebuild modes take the prebuilt addon for this platform from prebuilds/<platform>-<arch>/
// (`npm run build:prebuild`, or CI). When there is none, this machine's own build
// (build/Release/toolwright.node) stands in for it, so the packaging and install path is still
// checked end to end (the report says which was used).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { buildLayout } from "./build-layout.mjs";
import { makePlatformPackages, withOptionalDependencies } from "./platform-packages.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PLATFORM_DIR = `${process.platform}-${process.arch}`;
/** Build tools that must not be reachable: with them gone, a source build cannot happen. */
const BUILD_TOOL = new RegExp(
  /^((x86_64|aarch64)-linux-gnu-)?/.source +
    /(cc|c\+\+|gcc|g\+\+|clang|clang\+\+|cmake|nvcc|ninja|make|ld)/.source +
    /(-\d+(\.\d+)*)?(\.exe)?$/.source,
);

function log(message) {
  process.stderr.write(`[toolwright:test-install] ${message}\n`);
}

class StepError extends Error {}

function run(cmd, args, options) {
  const r = spawnSync(cmd, args, {
    encoding: "utf8",
    maxBuffer: 64 << 20,
    shell: process.platform === "win32" && cmd === "npm",
    ...options,
  });
  if (r.error) throw new StepError(`${cmd} ${args.join(" ")}: ${r.error.message}`);
  if (r.status !== 0) {
    throw new StepError(
      `${cmd} ${args.join(" ")} exited with ` +
        `${r.status}:\n${(r.stdout + r.stderr).trim().split("\n").slice(-30).join("\n")}`,
    );
  }
  return r;
}

/** A folder of symlinks to every executable on PATH except the build tools. */
function pathWithoutBuildTools(binDir) {
  mkdirSync(binDir, { recursive: true });
  const linked = new Set();
  const excluded = new Set();
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir || !existsSync(dir)) continue;
    let names;
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (linked.has(name)) continue;
      if (BUILD_TOOL.test(name)) {
        excluded.add(name);
        continue;
      }
      try {
        if (!statSync(join(dir, name)).isFile()) continue;
        symlinkSync(join(dir, name), join(binDir, name));
        linked.add(name);
      } catch {
        // unreadable entries and dangling links are left out
      }
    }
  }
  return { linked: linked.size, excluded: [...excluded].sort() };
}

/** toolwright variables a user may set that change where a build goes, not what is installed. */
const PASSED_THROUGH = new Set(["TOOLWRIGHT_CACHE_DIR", "TOOLWRIGHT_BUILD_JOBS"]);

/** The environment for the install and the app: no npm_* from a parent `npm run`, no toolwright overrides. */
function cleanEnv(path) {
  /** @type {NodeJS.ProcessEnv} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith("npm_") || (k.startsWith("TOOLWRIGHT_") && !PASSED_THROUGH.has(k)) || k === "PATH" || k === "Path")
      continue;
    env[k] = v;
  }
  env.PATH = path;
  return env;
}

async function makeModel(dir) {
  const vocab = join(ROOT, "deps", "llama.cpp", "models", "ggml-vocab-llama-spm.gguf");
  if (!existsSync(vocab))
    throw new StepError(`no --model given and ${vocab} is missing (run node scripts/fetch-llama.mjs)`);
  const { createTestModel } = await import(pathToFileURL(join(ROOT, "lib", "runtime", "gguf", "test-model.js")).href);
  const out = join(dir, "test-model.gguf");
  await createTestModel({ vocabPath: vocab, size: "tiny", seed: 1, outPath: out });
  return out;
}

/** Repacks the tarball after `change(packageDir)` edits its unpacked contents; returns the new tarball path. */
function repack(dir, tarball, change) {
  const unpacked = join(dir, "unpacked");
  rmSync(unpacked, { recursive: true, force: true });
  mkdirSync(unpacked);
  run("tar", ["-xzf", tarball, "-C", unpacked]);
  change(join(unpacked, "package"));
  rmSync(tarball);
  const repacked = JSON.parse(
    run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: join(unpacked, "package") })
      .stdout,
  )[0];
  rmSync(unpacked, { recursive: true, force: true });
  return { tarball: join(dir, repacked.filename), bytes: repacked.size };
}

/** Source maps in the package whose sources are not in it (a map without them is useless). */
function mapsWithoutSources(dir, tarball, shipped) {
  const maps = shipped.filter((p) => p.endsWith(".map"));
  if (maps.length === 0) return [];
  const unpacked = join(dir, "maps");
  mkdirSync(unpacked);
  run("tar", ["-xzf", tarball, "-C", unpacked, ...maps.map((m) => `package/${m}`)]);
  const have = new Set(shipped);
  const missing = maps.filter((m) => {
    const { sources = [] } = JSON.parse(readFileSync(join(unpacked, "package", m), "utf8"));
    return sources.some((/** @type {string} */ s) => !have.has(join(dirname(m), s).replaceAll("\\", "/")));
  });
  rmSync(unpacked, { recursive: true, force: true });
  return missing;
}

/**
 * Packs the repository; returns the tarball path and facts about it. Prebuild mode: when the
 * repository has no prebuild for this platform, the local build is injected in its place.
 * Source mode: any prebuilds are taken out, so the install has to build.
 */
function pack(dir, mode) {
  const packed = JSON.parse(
    run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: ROOT }).stdout,
  )[0];
  let tarball = join(dir, packed.filename);
  const shipped = packed.files.map((f) => f.path);
  const prebuild = shipped.find((p) => p.startsWith(`prebuilds/${PLATFORM_DIR}/`) && p.endsWith(".node"));
  const facts = {
    tarball: packed.filename,
    tarballBytes: packed.size,
    unpackedBytes: packed.unpackedSize,
    files: shipped.length,
    sourceMaps: shipped.filter((p) => p.endsWith(".map")).length,
    sourceMapsWithoutSources: mapsWithoutSources(dir, tarball, shipped),
  };
  const needed = [
    "LICENSE",
    "lib/index.js",
    "lib/cli/main.js",
    "scripts/install.mjs",
    "scripts/build-native.mjs",
    "scripts/build-layout.mjs",
    "scripts/build-tools.mjs",
    "scripts/fetch-llama.mjs",
    "CMakeLists.txt",
    "native/addon.cc",
  ];
  for (const file of needed) {
    if (!shipped.includes(file))
      throw new StepError(`the package does not ship ${file} (check "files" in package.json)`);
  }
  if (mode === "source") {
    if (!shipped.some((p) => p.startsWith("prebuilds/")))
      return { tarball, facts: { ...facts, addonSource: "built from source by the install script" } };
    log("taking prebuilds/ out of the package: the install must build from source");
    const r = repack(dir, tarball, (pkg) => rmSync(join(pkg, "prebuilds"), { recursive: true, force: true }));
    return {
      tarball: r.tarball,
      facts: { ...facts, tarballBytes: r.bytes, addonSource: "built from source by the install script" },
    };
  }
  if (mode === "packages") return packPlatformLayout(dir, tarball, facts, prebuild);
  if (prebuild) return { tarball, facts: { ...facts, addonSource: prebuild } };

  const local = localBuild();
  log(`no prebuilds/${PLATFORM_DIR}/ in the package: putting build/Release/toolwright.node in its place`);
  const r = repack(dir, tarball, (pkg) => {
    mkdirSync(join(pkg, "prebuilds", PLATFORM_DIR), { recursive: true });
    copyFileSync(local, join(pkg, "prebuilds", PLATFORM_DIR, "toolwright.node"));
  });
  tarball = r.tarball;
  return {
    tarball,
    facts: {
      ...facts,
      tarballBytes: r.bytes,
      addonSource: "build/Release/toolwright.node (no prebuild in the repository)",
    },
  };
}

/** This machine's build, which stands in for a missing prebuild. */
function localBuild() {
  const local = join(ROOT, "build", "Release", "toolwright.node");
  if (!existsSync(local))
    throw new StepError(
      `no prebuilds/${PLATFORM_DIR}/*.node and no ${local}: run npm run build:prebuild (or build:native) first`,
    );
  return local;
}

/**
 * The published layout: the main tarball without prebuilds/ and with an optional dependency on
 * this platform's package, which scripts/platform-packages.mjs makes from prebuilds/<platform>-<arch>/
 * (or this machine's build in its place) and which is packed beside it.
 */
function packPlatformLayout(dir, tarball, facts, prebuild) {
  const prebuilds = join(dir, "platform-prebuilds");
  mkdirSync(join(prebuilds, PLATFORM_DIR), { recursive: true });
  const source = prebuild ? join(ROOT, "prebuilds", PLATFORM_DIR) : undefined;
  if (source) for (const f of readdirSync(source)) copyFileSync(join(source, f), join(prebuilds, PLATFORM_DIR, f));
  else copyFileSync(localBuild(), join(prebuilds, PLATFORM_DIR, "toolwright.node"));
  /** @type {import("./platform-packages.mjs").MadePackage[]} */
  let made = [];
  const main = repack(dir, tarball, (pkg) => {
    rmSync(join(pkg, "prebuilds"), { recursive: true, force: true });
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
    made = makePlatformPackages({ prebuilds, out: join(dir, "platform-packages"), main: manifest });
    writeFileSync(join(pkg, "package.json"), JSON.stringify(withOptionalDependencies(manifest, made), null, 2));
  });
  const packed = JSON.parse(
    run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: made[0].dir }).stdout,
  )[0];
  return {
    tarball: main.tarball,
    extraTarballs: [join(dir, packed.filename)],
    facts: {
      ...facts,
      tarballBytes: main.bytes,
      platformPackage: made[0].name,
      platformTarball: packed.filename,
      platformTarballBytes: packed.size,
      platformFiles: packed.files.map((f) => f.path).sort(),
      addonSource: prebuild ?? "build/Release/toolwright.node (no prebuild in the repository)",
    },
  };
}

/** Bytes of the files under `path` (symlinks not followed), as `du --apparent-size` counts them. */
function treeBytes(path) {
  if (!existsSync(path)) return 0;
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const entry of readdirSync(path)) total += treeBytes(join(path, entry));
  return total;
}

/** Names of the packages installed under a node_modules folder (flat and scoped; nested ones too). */
function installedPackages(nodeModules) {
  const names = [];
  const visit = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith(".")) continue;
      if (entry.startsWith("@")) {
        for (const scoped of readdirSync(join(dir, entry))) {
          names.push(`${entry}/${scoped}`);
          visit(join(dir, entry, scoped, "node_modules"));
        }
      } else {
        names.push(entry);
        visit(join(dir, entry, "node_modules"));
      }
    }
  };
  visit(nodeModules);
  return [...new Set(names)].sort();
}

// The app: chat() when the package has it and the model has a chat template, else generate().
const APP_SCRIPT = `
import { readFileSync } from "node:fs";
import * as toolwright from "toolwright";
const { loadModel } = toolwright;
const model = await loadModel(process.argv[2], process.argv[3] === "cpu-only" ? { gpuLayers: 0 } : {});
let result;
if (typeof model.chat === "function" && model.chatTemplate) {
  const r = await model.chat({ messages: [{ role: "user", content: "Hello" }], maxTokens: 8, sampling: {
    greedy: true } });
  result = { api: "chat", tokens: r.usage?.completionTokens ?? 0, text: r.message?.content ?? "" };
} else {
  const context = await model.createContext({ contextSize: 256, threads: 1 });
  result = { api: "generate", tokens: 0, text: "" };
  for await (const chunk of context.generate({ prompt: "Once upon a time", maxTokens: 8, sampling: {
    greedy: true } })) {
    result.tokens++;
    result.text += chunk.text;
  }
}
let addon = null;
try {
  addon = readFileSync("/proc/self/maps", "utf8").split("\\n").map((l) => l.split(/\\s+/).slice(5).join(" "))
    .find((p) => p.endsWith("toolwright.node")) ?? null;
} catch {}
const loaded = toolwright.loadedAddon?.();
model.dispose();
console.log(JSON.stringify({ ...result, addon, loaded: loaded && { path: loaded.path, variant: loaded.variant,
  passedOver: loaded.passedOver } }));
`;

/**
 * The temporary folder. Source mode uses the same path on every run from this checkout, so the
 * compiler sees the same source paths and ccache can answer for toolwright's own files too;
 * what a previous run left (its folder, its build folder in the cache) is removed first.
 */
function workFolder(mode) {
  if (mode !== "source") return mkdtempSync(join(tmpdir(), `toolwright-install-${mode}-`));
  const work = join(
    tmpdir(),
    `toolwright-install-source-${createHash("sha256").update(ROOT).digest("hex").slice(0, 8)}`,
  );
  const previous = join(work, "app", "node_modules", "toolwright");
  if (existsSync(join(previous, "package.json")))
    rmSync(buildLayout(previous).buildDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  return work;
}

// CommonJS users: require() every export (Node >= 20.19 / 22.12 load ES modules synchronously),
// and compare with what import() gives: the same module instances, not a second copy.
const REQUIRE_SCRIPT = `
const pkg = require("toolwright/package.json");
(async () => {
  const exports = {};
  let sameInstances = true;
  for (const key of Object.keys(pkg.exports)) {
    if (key === "./package.json") continue;
    const specifier = key === "." ? "toolwright" : "toolwright/" + key.slice(2);
    const required = require(specifier);
    const imported = await import(specifier);
    exports[specifier] = { required: Object.keys(required).sort(),
      imported: Object.keys(imported).filter((k) => k !== "default").sort() };
    for (const name of Object.keys(imported))
      if (name !== "default" && imported[name] !== required[name]) sameInstances = false;
  }
  console.log(JSON.stringify({ exports, sameInstances, loadModel: typeof require("toolwright").loadModel }));
})();
`;

/**
 * Bounds on `npm install` (a cold source build takes ~10 min on 2 cores): past them npm is killed and the step fails.
 */
const INSTALL_TIMEOUT_MS = { packages: 5 * 60_000, prebuild: 5 * 60_000, source: 40 * 60_000 };

async function main() {
  const { values } = parseArgs({
    options: {
      mode: { type: "string", default: "packages" },
      model: { type: "string" },
      "no-build": { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
      "keep-path": { type: "boolean", default: false },
      "cpu-only": { type: "boolean", default: false },
    },
  });
  const mode = values.mode;
  if (mode !== "packages" && mode !== "prebuild" && mode !== "source") {
    log(`--mode must be packages, prebuild or source, got "${mode}"`);
    process.exit(2);
  }
  const work = workFolder(mode);
  const report = { ok: false, mode, workDir: work };
  const t0 = Date.now();
  let cacheBuildDir;
  try {
    if (!values["no-build"]) {
      log("compiling lib/ (tsc -p tsconfig.build.json)");
      spawnSync(
        process.execPath,
        [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"],
        { cwd: ROOT, stdio: "inherit" },
      );
    }
    if (!existsSync(join(ROOT, "lib", "index.js")))
      throw new StepError("lib/index.js is missing: run npm run build:ts");
    const model = values.model ? resolve(values.model) : await makeModel(work);

    let t = Date.now();
    const { tarball, extraTarballs = [], facts } = pack(work, mode);
    Object.assign(report, facts, { packSeconds: (Date.now() - t) / 1000 });

    let env;
    if (values["keep-path"] || mode === "source") {
      report.buildToolsRemovedFromPath = [];
      env = cleanEnv(process.env.PATH ?? process.env.Path ?? "");
    } else {
      const bin = join(work, "bin");
      report.buildToolsRemovedFromPath = pathWithoutBuildTools(bin).excluded;
      env = cleanEnv(bin);
      for (const tool of ["cc", "c++", "gcc", "g++", "cmake", "nvcc"]) {
        const found = spawnSync("which", [tool], { env, encoding: "utf8" });
        if (found.status === 0)
          throw new StepError(`${tool} is still reachable on the stripped PATH: ${found.stdout.trim()}`);
      }
    }

    const app = join(work, "app");
    mkdirSync(app);
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({ name: "toolwright-install-check", private: true, type: "module" }, null, 2),
    );
    writeFileSync(join(app, "check.mjs"), APP_SCRIPT);
    writeFileSync(join(app, "check-require.cjs"), REQUIRE_SCRIPT);
    t = Date.now();
    const install = run(
      "npm",
      ["install", tarball, ...extraTarballs, "--prefer-offline", "--no-audit", "--no-fund", "--foreground-scripts"],
      { cwd: app, env, timeout: INSTALL_TIMEOUT_MS[mode] },
    );
    report.installSeconds = (Date.now() - t) / 1000;
    const installLog = install.stdout + install.stderr;
    const installed = join(app, "node_modules", "toolwright");
    if (mode !== "source") {
      const used = /\[toolwright:install\] using the prebuilt addon (\S+)/.exec(installLog);
      if (!used)
        throw new StepError(
          `the install script did not use a prebuilt addon:\n${installLog.trim().split("\n").slice(-20).join("\n")}`,
        );
      report.installUsed = used[1];
    } else {
      // Where the install script built: the same layout computation, for the installed copy.
      const layout = buildLayout(installed, env);
      cacheBuildDir = layout.buildDir;
      if (!existsSync(join(installed, "addon", "toolwright.node")))
        throw new StepError(
          `the source build left no addon/toolwright.node:\n${installLog.trim().split("\n").slice(-20).join("\n")}`,
        );
      report.installUsed = join(installed, "addon", "toolwright.node");
      report.buildToolsFrom =
        /\[toolwright:build-tools\] installing .* into (\S+)/.exec(installLog)?.[1] ?? "already in the cache";
      Object.assign(report, {
        cacheBuildDir,
        cacheBuildBytes: treeBytes(cacheBuildDir),
        llamaDir: layout.llamaDir,
        llamaBytes: treeBytes(layout.llamaDir),
      });
    }
    report.packageFolders = readdirSync(installed).sort();
    report.packageBytes = treeBytes(installed);
    report.nodeModulesBytes = treeBytes(join(app, "node_modules"));
    report.packages = installedPackages(join(app, "node_modules"));
    const platformDir = report.platformPackage && join(app, "node_modules", ...report.platformPackage.split("/"));
    if (platformDir) report.platformPackageBytes = treeBytes(platformDir);

    t = Date.now();
    const appArgs = ["check.mjs", model, ...(values["cpu-only"] ? ["cpu-only"] : [])];
    const result = JSON.parse(run(process.execPath, appArgs, { cwd: app, env }).stdout.trim().split("\n").pop());
    report.runSeconds = (Date.now() - t) / 1000;
    Object.assign(report, {
      api: result.api,
      tokens: result.tokens,
      text: result.text,
      addonMapped: result.addon,
      loaded: result.loaded,
    });
    if (!(result.tokens > 0)) throw new StepError(`the installed package generated no tokens with ${result.api}()`);
    const expectedAddon = {
      packages: platformDir,
      prebuild: join(installed, "prebuilds"),
      source: join(installed, "addon"),
    }[mode];
    if (result.addon !== null && !result.addon.startsWith(expectedAddon))
      throw new StepError(`the app loaded ${result.addon}, not an addon under ${expectedAddon}`);

    report.commonjs = JSON.parse(
      run(process.execPath, ["check-require.cjs"], { cwd: app, env }).stdout.trim().split("\n").pop(),
    );

    const cli = join(app, "node_modules", ".bin", process.platform === "win32" ? "toolwright.cmd" : "toolwright");
    const inspected = JSON.parse(
      run(cli, ["inspect", model, "--json"], { cwd: app, env, shell: process.platform === "win32" }).stdout,
    );
    report.cliInspect = { architecture: inspected.general.architecture, vocabulary: inspected.vocabulary.size };
    report.ok = true;
  } catch (e) {
    if (!(e instanceof StepError)) throw e;
    report.error = e.message;
  } finally {
    report.totalSeconds = (Date.now() - t0) / 1000;
    if (!values.keep) {
      rmSync(work, { recursive: true, force: true });
      delete report.workDir;
      // The build folder belongs to the temporary install: the cache keeps only what other
      // installs share (llama.cpp's clone, the bundle, the build tooling).
      if (cacheBuildDir) rmSync(cacheBuildDir, { recursive: true, force: true });
    }
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  if (!report.ok) {
    log(`failed: ${report.error}`);
    process.exitCode = 1;
  }
}

await main();
