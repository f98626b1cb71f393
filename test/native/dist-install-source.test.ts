// The package as users get it where no prebuild fits: the tarball without prebuilds/ is installed
// into an empty folder and the install script builds the addon from source. llama.cpp's clone,
// the object files and cmake-js stay in the user's cache (TOOLWRIGHT_CACHE_DIR, default
// ~/.cache/toolwright); node_modules/toolwright gets only addon/toolwright.node. The report's
// installSeconds and sizes are what docs/install.md quotes.
//
// Bounded: ccache (CCACHE_DIR, default ~/.cache/ccache) and the cached llama.cpp bundle and clone
// make a repeated run a few minutes on 2 cores; a cold one (empty ccache) compiles llama.cpp, ~10
// minutes on 2 cores. test-install.mjs stops the install after 40 minutes.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, test } from "vitest";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import {
  type InstallReport,
  installSummary,
  runInstallCheck,
  runtimeDependencyClosure,
} from "../helpers/install-check.js";
import { ensureTestModel } from "../helpers/test-models.js";

let report: InstallReport;
let status: number | null;
let stderr: string;

beforeAll(async () => {
  await ensureCompiledLib();
  const model = await ensureTestModel({ vocab: "qwen2", template: "Qwen-Qwen3-0.6B" });
  const env = { ...process.env, CCACHE_DIR: process.env.CCACHE_DIR ?? join(homedir(), ".cache", "ccache") };
  ({ report, status, stderr } = runInstallCheck("source", model, env));
  console.log(installSummary(report));
}, 45 * 60_000);

test("without a prebuild, the install builds the addon from source and the app generates with it", () => {
  expect(report.error, stderr.split("\n").slice(-40).join("\n")).toBeUndefined();
  expect(report.ok).toBe(true);
  expect(status).toBe(0);
  expect(report.packageFolders).not.toContain("prebuilds");
  const addon = "node_modules/toolwright/addon/toolwright.node";
  expect(report.installUsed.replaceAll("\\", "/")).toContain(addon);
  if (process.platform === "linux") expect(report.addonMapped?.replaceAll("\\", "/")).toContain(addon);
  expect(report.tokens).toBeGreaterThan(0);
  expect(report.cliInspect.architecture).toBe("llama");
});

test("the llama.cpp clone and the object files stay in the cache; the package holds the addon and the JS", () => {
  expect(report.error).toBeUndefined();
  expect(report.packageFolders).not.toContain("build");
  expect(report.packageFolders).not.toContain("deps");
  expect(report.packageFolders).toContain("addon");
  // lib/, native/ sources and one addon built for this machine: no 200 MB llama.cpp clone.
  expect(report.packageBytes).toBeLessThan(30 << 20);
  // The build folder was in the cache (test-install.mjs removes it afterwards) and so is the clone.
  expect(report.cacheBuildBytes).toBeGreaterThan(1 << 20);
  expect(existsSync(join(report.llamaDir!, "include", "llama.h"))).toBe(true);
  expect(report.llamaBytes).toBeGreaterThan(report.packageBytes);
});

test("the build tooling comes from the cache, not node_modules: the app gets the runtime dependencies only", () => {
  expect(report.error).toBeUndefined();
  expect(report.packages).toEqual(runtimeDependencyClosure());
  expect(report.packages).not.toContain("cmake-js");
  expect(report.packages).not.toContain("node-addon-api");
});
