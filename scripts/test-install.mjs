#!/usr/bin/env node
// Installs the package the way a user gets it, on a machine without build tools, and runs it:
//   1. `npm pack` this repository (what `files` in package.json ships),
//   2. `npm install` the tarball into an empty folder with no C/C++ compiler, CMake or nvcc on
//      PATH (a PATH of symlinks to everything else), from the npm cache (--prefer-offline),
//   3. there, loads a generated test model through `import "toolwright"`, generates a few tokens
//      (with chat() when the model has a chat template, else generate()), checks which addon file
//      the process mapped, and runs the `toolwright` CLI.
// Prints a JSON report; exits 1 when a step fails.
//
//   node scripts/test-install.mjs [--model PATH] [--no-build] [--keep] [--keep-path] [--cpu-only]
//
//   --no-build    use lib/ as it is (default: compile it first)
//   --keep        leave the temporary folder (its path is in the report)
//   --keep-path   install with the normal PATH (Windows, where a PATH of symlinks is impractical)
//   --cpu-only    load with gpuLayers: 0 (CI machines whose GPU is virtual)
//
// The package must ship a prebuilt addon for this platform: prebuilds/<platform>-<arch>/ from
// `npm run build:prebuild` (or CI). When there is none, this machine's own build
// (build/Release/toolwright.node) is put into the tarball in its place, so the packaging and
// install path is still checked end to end (the report says which was used).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PLATFORM_DIR = `${process.platform}-${process.arch}`;
/** Build tools that must not be reachable: with them gone, a source build cannot happen. */
const BUILD_TOOL = /^((x86_64|aarch64)-linux-gnu-)?(cc|c\+\+|gcc|g\+\+|clang|clang\+\+|cmake|nvcc|ninja|make|ld)(-\d+(\.\d+)*)?(\.exe)?$/;

function log(message) {
  process.stderr.write(`[toolwright:test-install] ${message}\n`);
}

class StepError extends Error {}

function run(cmd, args, options) {
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 64 << 20, shell: process.platform === "win32" && cmd === "npm", ...options });
  if (r.error) throw new StepError(`${cmd} ${args.join(" ")}: ${r.error.message}`);
  if (r.status !== 0) {
    throw new StepError(`${cmd} ${args.join(" ")} exited with ${r.status}:\n${(r.stdout + r.stderr).trim().split("\n").slice(-30).join("\n")}`);
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

/** The environment for the install and the app: no npm_* from a parent `npm run`, no toolwright overrides. */
function cleanEnv(path) {
  /** @type {NodeJS.ProcessEnv} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith("npm_") || k.startsWith("TOOLWRIGHT_") || k === "PATH" || k === "Path") continue;
    env[k] = v;
  }
  env.PATH = path;
  return env;
}

async function makeModel(dir) {
  const vocab = join(ROOT, "deps", "llama.cpp", "models", "ggml-vocab-llama-spm.gguf");
  if (!existsSync(vocab)) throw new StepError(`no --model given and ${vocab} is missing (run node scripts/fetch-llama.mjs)`);
  const { createTestModel } = await import(pathToFileURL(join(ROOT, "lib", "runtime", "gguf", "test-model.js")).href);
  const out = join(dir, "test-model.gguf");
  await createTestModel({ vocabPath: vocab, size: "tiny", seed: 1, outPath: out });
  return out;
}

/** Packs the repository; returns the tarball path and whether a prebuild had to be injected. */
function pack(dir) {
  const packed = JSON.parse(run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: ROOT }).stdout)[0];
  let tarball = join(dir, packed.filename);
  const shipped = packed.files.map((f) => f.path);
  const prebuild = shipped.find((p) => p.startsWith(`prebuilds/${PLATFORM_DIR}/`) && p.endsWith(".node"));
  const facts = { tarball: packed.filename, tarballBytes: packed.size, unpackedBytes: packed.unpackedSize, files: shipped.length };
  for (const needed of ["lib/index.js", "lib/cli/main.js", "scripts/install.mjs", "scripts/build-native.mjs", "CMakeLists.txt", "native/addon.cc"]) {
    if (!shipped.includes(needed)) throw new StepError(`the package does not ship ${needed} (check "files" in package.json)`);
  }
  if (prebuild) return { tarball, facts: { ...facts, addonSource: prebuild } };

  const local = join(ROOT, "build", "Release", "toolwright.node");
  if (!existsSync(local)) throw new StepError(`no prebuilds/${PLATFORM_DIR}/*.node and no ${local}: run npm run build:prebuild (or build:native) first`);
  log(`no prebuilds/${PLATFORM_DIR}/ in the package: putting build/Release/toolwright.node in its place`);
  const unpacked = join(dir, "unpacked");
  mkdirSync(unpacked);
  run("tar", ["-xzf", tarball, "-C", unpacked]);
  mkdirSync(join(unpacked, "package", "prebuilds", PLATFORM_DIR), { recursive: true });
  copyFileSync(local, join(unpacked, "package", "prebuilds", PLATFORM_DIR, "toolwright.node"));
  rmSync(tarball);
  const repacked = JSON.parse(run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: join(unpacked, "package") }).stdout)[0];
  tarball = join(dir, repacked.filename);
  return { tarball, facts: { ...facts, tarballBytes: repacked.size, addonSource: "build/Release/toolwright.node (no prebuild in the repository)" } };
}

// The app: chat() when the package has it and the model has a chat template, else generate().
const APP_SCRIPT = `
import { readFileSync } from "node:fs";
import { loadModel } from "toolwright";
const model = await loadModel(process.argv[2], process.argv[3] === "cpu-only" ? { gpuLayers: 0 } : {});
let result;
if (typeof model.chat === "function" && model.chatTemplate) {
  const r = await model.chat({ messages: [{ role: "user", content: "Hello" }], maxTokens: 8, sampling: { greedy: true } });
  result = { api: "chat", tokens: r.usage?.completionTokens ?? 0, text: r.message?.content ?? "" };
} else {
  const context = await model.createContext({ contextSize: 256, threads: 1 });
  result = { api: "generate", tokens: 0, text: "" };
  for await (const chunk of context.generate({ prompt: "Once upon a time", maxTokens: 8, sampling: { greedy: true } })) {
    result.tokens++;
    result.text += chunk.text;
  }
}
let addon = null;
try {
  addon = readFileSync("/proc/self/maps", "utf8").split("\\n").map((l) => l.split(/\\s+/).slice(5).join(" ")).find((p) => p.endsWith("toolwright.node")) ?? null;
} catch {}
model.dispose();
console.log(JSON.stringify({ ...result, addon }));
`;

async function main() {
  const { values } = parseArgs({
    options: {
      model: { type: "string" },
      "no-build": { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
      "keep-path": { type: "boolean", default: false },
      "cpu-only": { type: "boolean", default: false },
    },
  });
  const work = mkdtempSync(join(tmpdir(), "toolwright-install-"));
  const report = { ok: false, workDir: work };
  const t0 = Date.now();
  try {
    if (!values["no-build"]) {
      log("compiling lib/ (tsc -p tsconfig.build.json)");
      spawnSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });
    }
    if (!existsSync(join(ROOT, "lib", "index.js"))) throw new StepError("lib/index.js is missing: run npm run build:ts");
    const model = values.model ? resolve(values.model) : await makeModel(work);

    let t = Date.now();
    const { tarball, facts } = pack(work);
    Object.assign(report, facts, { packSeconds: (Date.now() - t) / 1000 });

    let env;
    if (values["keep-path"]) {
      report.buildToolsRemovedFromPath = [];
      env = cleanEnv(process.env.PATH ?? process.env.Path ?? "");
    } else {
      const bin = join(work, "bin");
      report.buildToolsRemovedFromPath = pathWithoutBuildTools(bin).excluded;
      env = cleanEnv(bin);
      for (const tool of ["cc", "c++", "gcc", "g++", "cmake", "nvcc"]) {
        const found = spawnSync("which", [tool], { env, encoding: "utf8" });
        if (found.status === 0) throw new StepError(`${tool} is still reachable on the stripped PATH: ${found.stdout.trim()}`);
      }
    }

    const app = join(work, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "toolwright-install-check", private: true, type: "module" }, null, 2));
    writeFileSync(join(app, "check.mjs"), APP_SCRIPT);
    t = Date.now();
    const install = run("npm", ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund", "--foreground-scripts"], { cwd: app, env });
    report.installSeconds = (Date.now() - t) / 1000;
    const installLog = install.stdout + install.stderr;
    const used = /\[toolwright:install\] using the prebuilt addon (\S+)/.exec(installLog);
    if (!used) throw new StepError(`the install script did not use a prebuilt addon:\n${installLog.trim().split("\n").slice(-20).join("\n")}`);
    report.installUsed = used[1];
    if (existsSync(join(app, "node_modules", "toolwright", "build"))) throw new StepError("the install created node_modules/toolwright/build: something was built");

    t = Date.now();
    const appArgs = ["check.mjs", model, ...(values["cpu-only"] ? ["cpu-only"] : [])];
    const result = JSON.parse(run(process.execPath, appArgs, { cwd: app, env }).stdout.trim().split("\n").pop());
    report.runSeconds = (Date.now() - t) / 1000;
    Object.assign(report, { api: result.api, tokens: result.tokens, text: result.text, addonMapped: result.addon });
    if (!(result.tokens > 0)) throw new StepError(`the installed package generated no tokens with ${result.api}()`);
    const expectedDir = join(app, "node_modules", "toolwright", "prebuilds");
    if (result.addon !== null && !result.addon.startsWith(expectedDir)) throw new StepError(`the app loaded ${result.addon}, not a prebuild under ${expectedDir}`);

    const cli = join(app, "node_modules", ".bin", process.platform === "win32" ? "toolwright.cmd" : "toolwright");
    const inspected = JSON.parse(run(cli, ["inspect", model, "--json"], { cwd: app, env, shell: process.platform === "win32" }).stdout);
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
    }
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  if (!report.ok) {
    log(`failed: ${report.error}`);
    process.exitCode = 1;
  }
}

await main();
