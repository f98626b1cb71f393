// The tooling of a source build: cmake-js (drives CMake) and node-addon-api (C++ headers).
//
// Neither is needed at run time, so neither is a dependency: an install that uses a prebuild
// never downloads them. They are devDependencies, so a development checkout has them after
// `npm ci`. An installed package that builds from source uses them from its node_modules tree
// when a fitting version is there, else installs the versions that package.json's
// devDependencies name into <cache>/build-tools/ with npm, from the same registry and npm cache
// as the install itself (so it works wherever installing toolwright works); later source builds
// reuse them.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { cacheRoot, PACKAGE_ROOT } from "./build-layout.mjs";

/** The packages a source build needs that an install with a prebuild does not. */
export const BUILD_TOOLS = ["cmake-js", "node-addon-api"];

function log(message) {
  process.stderr.write(`[toolwright:build-tools] ${message}\n`);
}

/**
 * Whether `version` satisfies `range`, for the two forms package.json uses here: "^X.Y.Z" (same
 * major, or same minor when the major is 0, and not older) and an exact "X.Y.Z". Anything else
 * does not match, so the named range gets installed.
 * @param {string} version
 * @param {string} range
 */
export function satisfiesRange(version, range) {
  const parse = (/** @type {string} */ v) => /^(\d+)\.(\d+)\.(\d+)$/.exec(v)?.slice(1).map(Number);
  const have = parse(version);
  const caret = range.startsWith("^");
  const want = parse(caret ? range.slice(1) : range);
  if (!have || !want) return false;
  if (!caret) return have.every((n, i) => n === want[i]);
  if (have[0] !== want[0] || (want[0] === 0 && have[1] !== want[1])) return false;
  for (let i = 0; i < 3; i++) if (have[i] !== want[i]) return have[i] > want[i];
  return true;
}

/**
 * The environment for a nested `npm install`. npm passes its configuration to install scripts as
 * npm_config_* variables; most of it is about the outer install (`--global`, `--prefix`,
 * `--omit`, `--save`...) and would misdirect this one, so only where packages come from is kept:
 * registry, cache, offline switches, proxies, certificates, config files.
 * @param {NodeJS.ProcessEnv} env
 */
export function nestedNpmEnv(env) {
  const keep = new RegExp(
    "^npm_config_(registry|cache|userconfig|globalconfig|offline|prefer_offline|prefer_online|proxy|" +
      String.raw`https_proxy|noproxy|strict_ssl|cafile|ca|fetch_\w+|maxsockets|loglevel|@[^:]+:registry)$`,
    "i",
  );
  /** @type {NodeJS.ProcessEnv} */
  const out = {};
  for (const [key, value] of Object.entries(env)) {
    if (/^npm_/i.test(key) && !keep.test(key)) continue;
    out[key] = value;
  }
  return out;
}

/** The version ranges to use: the devDependencies of the package at `root`. */
export function wantedBuildTools(root = PACKAGE_ROOT) {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  /** @type {Record<string, string>} */
  const wanted = {};
  for (const name of BUILD_TOOLS) {
    const range = pkg.devDependencies?.[name];
    if (typeof range !== "string") throw new Error(`package.json has no devDependencies["${name}"]`);
    wanted[name] = range;
  }
  return wanted;
}

/**
 * cmake-js's command and node-addon-api's include folder, resolved from `from` (a folder whose
 * node_modules tree is searched), or undefined when either is missing or of another version.
 * @param {string} from
 * @param {Record<string, string>} wanted
 */
export function resolveBuildTools(from, wanted) {
  const require = createRequire(join(from, "package.json"));
  try {
    for (const name of BUILD_TOOLS) {
      const { version } = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), "utf8"));
      if (!satisfiesRange(version, wanted[name])) return undefined;
    }
    // Its headers (napi.h) sit at the package's root; its own `include_dir` is relative to the cwd.
    const nodeAddonApiDir = dirname(require.resolve("node-addon-api/package.json"));
    if (!existsSync(join(nodeAddonApiDir, "napi.h"))) return undefined;
    return { cmakeJs: require.resolve("cmake-js/bin/cmake-js"), nodeAddonApiDir };
  } catch {
    return undefined;
  }
}

/** How to run npm: the npm that runs this install script when there is one, else npm on PATH. */
function npmCommand() {
  const cli = process.env.npm_execpath;
  if (cli && /\.c?js$/.test(cli) && existsSync(cli)) return { cmd: process.execPath, prefix: [cli], shell: false };
  return { cmd: "npm", prefix: [], shell: process.platform === "win32" };
}

/**
 * The build tooling: from the package's own node_modules tree when it fits, else from the cache,
 * installing it there first when needed. Throws with npm's output when that install fails.
 * @param {string} [root]
 */
export function obtainBuildTools(root = PACKAGE_ROOT) {
  const wanted = wantedBuildTools(root);
  const local = resolveBuildTools(root, wanted);
  if (local) return { ...local, source: "node_modules" };
  const key = createHash("sha256").update(JSON.stringify(wanted)).digest("hex").slice(0, 12);
  const dir = join(cacheRoot(), "build-tools", key);
  const cached = resolveBuildTools(dir, wanted);
  if (cached) return { ...cached, source: dir };

  const specs = Object.entries(wanted).map(([n, r]) => `${n}@${r}`);
  log(`installing ${specs.join(", ")} into ${dir} (needed only to build from source)`);
  // Installed aside and renamed: a concurrent build of another project may be doing the same.
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(
    join(tmp, "package.json"),
    `${JSON.stringify({ name: "toolwright-build-tools", private: true, dependencies: wanted }, null, 2)}\n`,
  );
  const npm = npmCommand();
  const result = spawnSync(
    npm.cmd,
    [...npm.prefix, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--omit=dev"],
    {
      cwd: tmp,
      env: nestedNpmEnv(process.env),
      encoding: "utf8",
      shell: npm.shell,
      timeout: 10 * 60_000,
    },
  );
  if (result.error || result.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim().split("\n").slice(-20).join("\n");
    throw new Error(
      `npm install ${specs.join(" ")} failed (${result.error?.message ?? `exit code ${result.status}`}):\n${output}`,
    );
  }
  if (!resolveBuildTools(dir, wanted)) {
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(tmp, dir);
    } catch {
      // another process's copy landed first
    }
  }
  rmSync(tmp, { recursive: true, force: true });
  const installed = resolveBuildTools(dir, wanted);
  if (!installed) throw new Error(`installed ${specs.join(", ")} into ${dir}, but they do not resolve from there`);
  return { ...installed, source: dir };
}
