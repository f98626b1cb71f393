// The package as users get it, with a prebuild: `npm pack`, `npm install` of the tarball into an
// empty folder with no compiler, CMake or nvcc on PATH, then `import "toolwright"` loads a model
// with a chat template and answers (chat() when the package has it, else generate()), a .cjs file
// require()s every export, and the `toolwright` CLI runs. scripts/test-install.mjs does the work
// (also `npm run test:install`); this test checks its report. Takes ~10-20 s (the dependencies
// come from the npm cache). dist-install-source.test.ts does the same without a prebuild.
import { beforeAll, expect, test } from "vitest";
import { readGgufMetadata } from "../../src/runtime/gguf/index.js";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import {
  type InstallReport,
  installSummary,
  runInstallCheck,
  runtimeDependencyClosure,
} from "../helpers/install-check.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: string;
let report: InstallReport;
let status: number | null;
let stderr: string;

beforeAll(async () => {
  await ensureCompiledLib();
  model = await ensureTestModel({ vocab: "qwen2", template: "Qwen-Qwen3-0.6B" });
  ({ report, status, stderr } = runInstallCheck("prebuild", model));
  console.log(installSummary(report));
}, 300_000);

test("the packed tarball installs without build tools and generates with the prebuilt addon", async () => {
  expect(report.error, stderr).toBeUndefined();
  expect(report.ok).toBe(true);
  expect(status).toBe(0);

  expect(report.buildToolsRemovedFromPath).toEqual(expect.arrayContaining(["cc", "c++", "gcc", "g++", "cmake"]));
  const prebuildDir = `node_modules/toolwright/prebuilds/${process.platform}-${process.arch}/`;
  expect(report.installUsed.replaceAll("\\", "/")).toContain(prebuildDir);
  if (process.platform === "linux") expect(report.addonMapped?.replaceAll("\\", "/")).toContain(prebuildDir);
  expect(["chat", "generate"]).toContain(report.api);
  expect(report.tokens).toBeGreaterThan(0);
  const tokens = (await readGgufMetadata(model)).get("tokenizer.ggml.tokens")!.value as string[];
  expect(report.cliInspect).toEqual({ architecture: "llama", vocabulary: tokens.length });
  // The tarball ships lib/, native/ and the build scripts, not the dev tooling: a few MB with the addon.
  expect(report.tarballBytes).toBeLessThan(40 << 20);
});

test("with a prebuild, only the runtime dependencies are installed: no cmake-js, nothing built", async () => {
  expect(report.error, stderr).toBeUndefined();
  expect(report.packages).toEqual(runtimeDependencyClosure());
  expect(report.packages).not.toContain("cmake-js");
  expect(report.packages).not.toContain("node-addon-api");
  expect(report.packageFolders).not.toContain("build");
  expect(report.packageFolders).not.toContain("deps");
  expect(report.packageFolders).not.toContain("addon");
  expect(report.packageFolders).toContain("LICENSE");
  // lib/ + native/ sources + one addon (6 MB stripped, ~8 MB when a local unstripped build stands in).
  expect(report.packageBytes).toBeLessThan(20 << 20);
  expect(report.nodeModulesBytes).toBeLessThan(30 << 20);
  // Source maps are not shipped; one that was would need its sources beside it.
  expect(report.sourceMaps).toBe(0);
  expect(report.sourceMapsWithoutSources).toEqual([]);
});

test("CommonJS: require() gives every export, the same instances as import()", async () => {
  expect(report.error, stderr).toBeUndefined();
  const { default: pkg } = await import("../../package.json", { with: { type: "json" } });
  const specifiers = Object.keys(pkg.exports)
    .filter((k) => k !== "./package.json")
    .map((k) => (k === "." ? "toolwright" : `toolwright/${k.slice(2)}`));
  expect(Object.keys(report.commonjs.exports)).toEqual(specifiers);
  for (const [specifier, { required, imported }] of Object.entries(report.commonjs.exports)) {
    expect(required, specifier).toEqual(imported);
    expect(required.length, specifier).toBeGreaterThan(0);
  }
  expect(report.commonjs.sameInstances).toBe(true);
  expect(report.commonjs.loadModel).toBe("function");
});
