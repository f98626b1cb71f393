// Where a source build of the addon puts things. Two layouts:
//
// - a development checkout (the repository: src/ is there): llama.cpp in deps/llama.cpp, the
//   build in build/, the addon at build/Release/toolwright.node, as contributors expect;
// - an installed package (node_modules/toolwright, which ships no src/): llama.cpp's clone and
//   the object files go to the user's cache, and only the addon is copied into the package
//   (addon/toolwright.node), so node_modules holds the addon and the JS, nothing else.
//
// The cache is TOOLWRIGHT_CACHE_DIR, else $XDG_CACHE_HOME/toolwright, else ~/.cache/toolwright:
//   <cache>/node-llama-cpp-<version>/gitRelease.bundle   the downloaded llama.cpp git bundle
//   <cache>/llama.cpp-<commit>/                          its clone, shared by every install
//   <cache>/builds/toolwright-<version>-<platform>-<arch>-<hash of the package folder>/
//                                                        one build folder per installed copy
//   <cache>/build-tools/<hash of the versions>/          cmake-js and node-addon-api (build-tools.mjs)
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Same name as PREFERRED_BUILD_MARKER in src/runtime/binding.ts. */
export const PREFERRED_MARKER = "toolwright.preferred";

/**
 * The cache folder: TOOLWRIGHT_CACHE_DIR, else $XDG_CACHE_HOME/toolwright (when absolute, as the
 * XDG spec asks), else ~/.cache/toolwright.
 * @param {NodeJS.ProcessEnv} [env]
 */
export function cacheRoot(env = process.env) {
  if (env.TOOLWRIGHT_CACHE_DIR) return resolve(env.TOOLWRIGHT_CACHE_DIR);
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, "toolwright");
  return join(homedir(), ".cache", "toolwright");
}

/** Whether `root` is a development checkout (it has the TypeScript sources, which the package does not ship). */
export function isCheckout(root = PACKAGE_ROOT) {
  return existsSync(join(root, "src", "index.ts"));
}

/**
 * The folders of a source build for the package at `root`.
 * @param {string} [root]
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {{ kind: "checkout" | "installed", cache: string, llamaDir: string, buildDir: string, addonDir: string }}
 *   `addonDir`: where toolwright.node (and its preferred-build marker) ends up.
 */
export function buildLayout(root = PACKAGE_ROOT, env = process.env) {
  const cache = cacheRoot(env);
  if (isCheckout(root)) {
    const buildDir = join(root, "build");
    return {
      kind: "checkout",
      cache,
      llamaDir: join(root, "deps", "llama.cpp"),
      buildDir,
      addonDir: join(buildDir, "Release"),
    };
  }
  const pin = JSON.parse(readFileSync(join(root, "llama-source.json"), "utf8"));
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  // One build folder per installed copy: CMake ties a build folder to one source folder. The
  // version is in the name too, because npm gives every extracted file the same old mtime, so
  // make could not tell an upgraded package's sources from the old ones.
  const folderHash = createHash("sha256").update(realpathSync(root)).digest("hex").slice(0, 12);
  return {
    kind: "installed",
    cache,
    llamaDir: join(cache, `llama.cpp-${pin.commit.slice(0, 12)}`),
    buildDir: join(cache, "builds", `toolwright-${version}-${process.platform}-${process.arch}-${folderHash}`),
    addonDir: join(root, "addon"),
  };
}
