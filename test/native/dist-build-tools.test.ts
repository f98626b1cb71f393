// A source build of an installed package gets its build tooling (cmake-js, node-addon-api) from
// the npm registry into the cache, not from node_modules: here with an empty cache and a package
// folder that has none of it, the way an app's node_modules/toolwright is after a prebuild-less
// install. Uses the npm cache (prefer-offline), like the install tests.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, expect, test } from "vitest";
import { REPO_ROOT } from "../helpers/test-models.js";

const work = mkdtempSync(join(tmpdir(), "toolwright-build-tools-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function obtain(root: string, cache: string) {
  const url = JSON.stringify(pathToFileURL(join(REPO_ROOT, "scripts", "build-tools.mjs")).href);
  const obtain = `m.obtainBuildTools(${JSON.stringify(root)})`;
  const script = `import(${url}).then((m) => console.log(JSON.stringify(${obtain})))`;
  const r = spawnSync(process.execPath, ["-e", script], {
    encoding: "utf8",
    env: { ...process.env, TOOLWRIGHT_CACHE_DIR: cache, npm_config_prefer_offline: "true" },
    timeout: 300_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return {
    tools: JSON.parse(r.stdout.trim().split("\n").pop()!) as {
      cmakeJs: string;
      nodeAddonApiDir: string;
      source: string;
    },
    log: r.stderr,
  };
}

test("without the tooling in node_modules, it is installed into the cache once, then reused", {
  timeout: 600_000,
}, () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  const root = join(work, "package");
  const cache = join(work, "cache");
  mkdirSync(root, { recursive: true });
  writeFileSync(
    join(root, "package.json"),
    JSON.stringify({ name: "toolwright", version: "0.0.0", devDependencies: pkg.devDependencies }),
  );

  const first = obtain(root, cache);
  expect(first.tools.source.startsWith(join(cache, "build-tools"))).toBe(true);
  expect(first.log).toContain("installing cmake-js@");
  expect(existsSync(first.tools.cmakeJs)).toBe(true);
  expect(existsSync(join(first.tools.nodeAddonApiDir, "napi.h"))).toBe(true);
  const installed = JSON.parse(
    readFileSync(join(first.tools.source, "node_modules", "cmake-js", "package.json"), "utf8"),
  ) as { version: string };
  expect(installed.version.split(".")[0]).toBe(pkg.devDependencies["cmake-js"]!.replace(/^\^/, "").split(".")[0]);
  // cmake-js runs: its own --version.
  const version = spawnSync(process.execPath, [first.tools.cmakeJs, "--version"], { encoding: "utf8" });
  expect(version.stdout.trim()).toBe(installed.version);

  const second = obtain(root, cache);
  expect(second.tools).toEqual(first.tools);
  expect(second.log).not.toContain("installing");
  // Nothing was written into the package folder.
  expect(existsSync(join(root, "node_modules"))).toBe(false);
});
