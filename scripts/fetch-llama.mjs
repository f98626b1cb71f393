#!/usr/bin/env node
// Gets llama.cpp's source from the npm registry (node-llama-cpp ships it as a git bundle),
// checks it against the pin in llama-source.json, and clones it: into deps/llama.cpp in a
// development checkout, into the user's cache for an installed package (build-layout.mjs).
// Later runs reuse the clone, and the downloaded bundle is cached outside the repo so a
// clean clone (CI) does not download it again.
//
// TOOLWRIGHT_LLAMA_DIR=/path/to/llama.cpp uses a local checkout instead.
// TOOLWRIGHT_CACHE_DIR overrides the cache folder (default $XDG_CACHE_HOME/toolwright or ~/.cache/toolwright).
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildLayout, cacheRoot } from "./build-layout.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pin = JSON.parse(fs.readFileSync(path.join(root, "llama-source.json"), "utf8"));
const SOURCE_MARKER = ".toolwright-source.json";

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

/** Returns the llama.cpp source folder (TOOLWRIGHT_LLAMA_DIR, else this layout's clone), without fetching it. */
export function llamaSourceDir() {
  const override = process.env.TOOLWRIGHT_LLAMA_DIR;
  if (override) {
    const dir = path.resolve(override);
    if (!fs.existsSync(path.join(dir, "include", "llama.h"))) {
      fail(`TOOLWRIGHT_LLAMA_DIR=${override} does not look like a llama.cpp checkout (no include/llama.h)`);
    }
    return dir;
  }
  return buildLayout(root).llamaDir;
}

function cachedBundle() {
  const dir = path.join(cacheRoot(), `${pin.package}-${pin.version}`);
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

/**
 * Returns the llama.cpp source folder to build against, cloning the pinned commit into
 * `targetDir` (default: this layout's, see build-layout.mjs) unless it is already there.
 * Concurrent fetches into one folder are safe: each clones aside and the first rename wins.
 */
export function fetchLlama(targetDir = buildLayout(root).llamaDir) {
  if (process.env.TOOLWRIGHT_LLAMA_DIR) {
    const dir = llamaSourceDir();
    log(`using local llama.cpp at ${dir} (TOOLWRIGHT_LLAMA_DIR)`);
    return dir;
  }
  const marker = path.join(targetDir, SOURCE_MARKER);
  const ready = () => fs.existsSync(marker) && JSON.parse(fs.readFileSync(marker, "utf8")).commit === pin.commit;
  if (ready()) return targetDir;
  if (fs.existsSync(marker)) log(`${targetDir} is at another commit than the pinned ${pin.commit}: replacing it`);
  const bundle = cachedBundle();
  const tmpClone = `${targetDir}.tmp-${process.pid}`;
  fs.rmSync(tmpClone, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(targetDir), { recursive: true });
  log(`cloning into ${targetDir}…`);
  run("git", ["clone", "--quiet", "--no-checkout", bundle, tmpClone]);
  run("git", ["-C", tmpClone, "-c", "advice.detachedHead=false", "checkout", "--quiet", pin.commit]);
  const head = run("git", ["-C", tmpClone, "rev-parse", "HEAD"]).trim();
  if (head !== pin.commit) fail(`cloned commit ${head} is not the pinned ${pin.commit}`);
  fs.writeFileSync(
    path.join(tmpClone, SOURCE_MARKER),
    JSON.stringify({ package: pin.package, version: pin.version, commit: head }, null, 2),
  );
  if (ready()) {
    // Another process finished the same clone meanwhile.
    fs.rmSync(tmpClone, { recursive: true, force: true });
    return targetDir;
  }
  fs.rmSync(targetDir, { recursive: true, force: true });
  try {
    fs.renameSync(tmpClone, targetDir);
  } catch (err) {
    fs.rmSync(tmpClone, { recursive: true, force: true });
    if (!ready()) fail(`could not move the clone into ${targetDir}: ${err.message}`);
  }
  log(`llama.cpp ${head.slice(0, 12)} ready in ${targetDir}`);
  return targetDir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = fetchLlama();
  process.stdout.write(`${dir}\n`);
}
