// Where a source build goes (scripts/build-layout.mjs) and how its tooling is found
// (scripts/build-tools.mjs): the cache folder's precedence, the two layouts, the version check of
// cmake-js/node-addon-api, and the npm configuration a nested install keeps.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { buildLayout, cacheRoot, isCheckout } from "../../scripts/build-layout.mjs";
import {
  BUILD_TOOLS,
  nestedNpmEnv,
  resolveBuildTools,
  satisfiesRange,
  wantedBuildTools,
} from "../../scripts/build-tools.mjs";
import { REPO_ROOT } from "../helpers/test-models.js";

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

describe("cacheRoot", () => {
  test.each([
    [{ TOOLWRIGHT_CACHE_DIR: "/a/b", XDG_CACHE_HOME: "/x" }, "/a/b"],
    [{ XDG_CACHE_HOME: "/x" }, join("/x", "toolwright")],
    // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
    [{ XDG_CACHE_HOME: "relative/dir" }, join(homedir(), ".cache", "toolwright")],
    [{}, join(homedir(), ".cache", "toolwright")],
  ])("%j -> %s", (env, expected) => {
    expect(cacheRoot(env)).toBe(expected);
  });
});

describe("buildLayout", () => {
  test("the repository is a checkout: deps/ and build/ stay in it", () => {
    expect(isCheckout(REPO_ROOT)).toBe(true);
    const layout = buildLayout(REPO_ROOT, { TOOLWRIGHT_CACHE_DIR: "/cache" });
    expect(layout).toEqual({
      kind: "checkout",
      cache: "/cache",
      llamaDir: join(REPO_ROOT, "deps", "llama.cpp"),
      buildDir: join(REPO_ROOT, "build"),
      addonDir: join(REPO_ROOT, "build", "Release"),
    });
  });

  test("an installed package builds in the cache and keeps only the addon", () => {
    const root = mkdtempSync(join(tmpdir(), "toolwright-layout-"));
    temps.push(root);
    writeFileSync(join(root, "package.json"), JSON.stringify({ name: "toolwright", version: "9.8.7" }));
    writeFileSync(join(root, "llama-source.json"), JSON.stringify({ commit: "0123456789abcdef0123" }));
    const layout = buildLayout(root, { TOOLWRIGHT_CACHE_DIR: "/cache" });
    expect(layout.kind).toBe("installed");
    expect(layout.llamaDir).toBe(join("/cache", "llama.cpp-0123456789ab"));
    expect(layout.buildDir).toMatch(
      new RegExp(`^/cache/builds/toolwright-9\\.8\\.7-${process.platform}-${process.arch}-[0-9a-f]{12}$`),
    );
    expect(layout.addonDir).toBe(join(root, "addon"));
    // Another installed copy gets its own build folder (CMake ties one to one source folder).
    const other = mkdtempSync(join(tmpdir(), "toolwright-layout-"));
    temps.push(other);
    writeFileSync(join(other, "package.json"), JSON.stringify({ name: "toolwright", version: "9.8.7" }));
    writeFileSync(join(other, "llama-source.json"), JSON.stringify({ commit: "0123456789abcdef0123" }));
    const otherLayout = buildLayout(other, { TOOLWRIGHT_CACHE_DIR: "/cache" });
    expect(otherLayout.buildDir).not.toBe(layout.buildDir);
    expect(otherLayout.llamaDir).toBe(layout.llamaDir);
  });
});

describe("satisfiesRange", () => {
  test.each([
    ["8.0.0", "^8.0.0", true],
    ["8.3.1", "^8.0.0", true],
    ["9.0.0", "^8.0.0", false],
    ["7.9.9", "^8.0.0", false],
    ["8.9.1", "^8.9.2", false],
    ["8.10.0", "^8.9.2", true],
    ["0.4.9", "^0.4.2", true],
    ["0.5.0", "^0.4.2", false],
    ["1.2.3", "1.2.3", true],
    ["1.2.4", "1.2.3", false],
    ["8.0.0-beta.1", "^8.0.0", false],
    ["8.0.0", ">=8", false],
  ])("%s in %s: %s", (version, range, expected) => {
    expect(satisfiesRange(version, range)).toBe(expected);
  });
});

test("a nested npm install keeps where packages come from, not what the outer install does", () => {
  const env = nestedNpmEnv({
    PATH: "/bin",
    HOME: "/home/u",
    npm_config_registry: "http://127.0.0.1:4873/",
    npm_config_cache: "/home/u/.npm",
    npm_config_prefer_offline: "true",
    "npm_config_@acme:registry": "http://acme/",
    npm_config_userconfig: "/home/u/.npmrc",
    npm_config_global: "true",
    npm_config_prefix: "/usr/local",
    npm_config_omit: "dev",
    npm_config_save: "true",
    npm_lifecycle_event: "install",
    npm_package_name: "app",
  });
  expect(env).toEqual({
    PATH: "/bin",
    HOME: "/home/u",
    npm_config_registry: "http://127.0.0.1:4873/",
    npm_config_cache: "/home/u/.npm",
    npm_config_prefer_offline: "true",
    "npm_config_@acme:registry": "http://acme/",
    npm_config_userconfig: "/home/u/.npmrc",
  });
});

describe("build tooling", () => {
  test("the versions come from devDependencies, and the build tooling is not a dependency", async () => {
    const { default: pkg } = await import("../../package.json", { with: { type: "json" } });
    const wanted = wantedBuildTools(REPO_ROOT);
    expect(Object.keys(wanted)).toEqual(BUILD_TOOLS);
    for (const name of BUILD_TOOLS) {
      expect(wanted[name]).toBe((pkg.devDependencies as Record<string, string>)[name]);
      expect(Object.keys(pkg.dependencies)).not.toContain(name);
    }
  });

  test("the checkout's node_modules has fitting versions; a folder without them has none", () => {
    const wanted = wantedBuildTools(REPO_ROOT);
    const found = resolveBuildTools(REPO_ROOT, wanted);
    expect(found?.cmakeJs).toMatch(/cmake-js[\\/]bin[\\/]cmake-js$/);
    expect(found?.nodeAddonApiDir).toMatch(/node-addon-api$/);
    expect(isAbsolute(found!.nodeAddonApiDir)).toBe(true);
    expect(existsSync(join(found!.nodeAddonApiDir, "napi.h"))).toBe(true);
    expect(resolveBuildTools(REPO_ROOT, { ...wanted, "cmake-js": "^999.0.0" })).toBeUndefined();
    const empty = realpathSync(mkdtempSync(join(tmpdir(), "toolwright-tools-")));
    temps.push(empty);
    mkdirSync(join(empty, "node_modules"));
    expect(resolveBuildTools(empty, wanted)).toBeUndefined();
  });
});
