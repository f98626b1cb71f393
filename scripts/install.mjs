#!/usr/bin/env node
// npm `install` hook: use the prebuilt addon for this platform when one loads, otherwise build it
// from source (scripts/build-native.mjs).
//
//   TOOLWRIGHT_SKIP_BUILD=1   do nothing (e.g. only the TypeScript parts are needed)
//   TOOLWRIGHT_FORCE_BUILD=1  build from source even when a prebuilt binary exists
//   TOOLWRIGHT_CUDA=1 / TOOLWRIGHT_METAL=1 / TOOLWRIGHT_VULKAN=1 imply a source build
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const truthy = (v) => v !== undefined && /^(1|on|true|yes)$/i.test(v);

function log(message) {
  process.stderr.write(`[toolwright:install] ${message}\n`);
}

/** The first prebuilt binary for this platform that loads, or undefined. */
function loadablePrebuild() {
  const dir = join(ROOT, "prebuilds", `${process.platform}-${process.arch}`);
  if (!existsSync(dir)) return undefined;
  const require = createRequire(import.meta.url);
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".node")).sort()) {
    const path = join(dir, file);
    try {
      require(path);
      return path;
    } catch (err) {
      log(`prebuilt ${path} does not load here (${String(err.message).split("\n")[0]})`);
    }
  }
  return undefined;
}

function main() {
  if (truthy(process.env.TOOLWRIGHT_SKIP_BUILD)) {
    log("TOOLWRIGHT_SKIP_BUILD is set: not building the native addon (loadModel() will fail until `npm run build:native`).");
    return;
  }
  const gpu = ["TOOLWRIGHT_CUDA", "TOOLWRIGHT_METAL", "TOOLWRIGHT_VULKAN"].find((v) => truthy(process.env[v]));
  if (!truthy(process.env.TOOLWRIGHT_FORCE_BUILD) && !gpu) {
    const prebuilt = loadablePrebuild();
    if (prebuilt) {
      log(`using the prebuilt addon ${prebuilt}`);
      return;
    }
    log(`no prebuilt addon for ${process.platform}-${process.arch}: building from source (this takes several minutes)`);
  } else {
    log(`building from source (${gpu ? `${gpu} is set` : "TOOLWRIGHT_FORCE_BUILD is set"})`);
  }
  const result = spawnSync(process.execPath, [join(ROOT, "scripts", "build-native.mjs")], { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) {
    log(
      "the native addon could not be built, so toolwright cannot run models. Fix the error above and run " +
        "`npm rebuild toolwright` (or `npm run build:native` in a clone), or set TOOLWRIGHT_SKIP_BUILD=1 to install without it.",
    );
    process.exit(result.status ?? 1);
  }
}

main();
