// The package as users get it, in the published layout: `npm pack` of the main package (no
// prebuilds/, an optional dependency on the platform package) and of the platform package
// @toolwright/<platform>-<arch> (scripts/platform-packages.mjs, from prebuilds/ or this machine's
// build), `npm install` of both tarballs into an empty folder with no compiler, CMake or nvcc on
// PATH, then `import "toolwright"` loads a model with a chat template and answers (chat() when the
// package has it, else generate()), a .cjs file require()s every export, and the `toolwright` CLI
// runs. scripts/test-install.mjs does the work (also `npm run test:install`); this test checks its
// report. One install serves every test here. Takes ~10-20 s (the dependencies come from the npm
// cache). dist-install-source.test.ts does the same without a prebuild.
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
  ({ report, status, stderr } = runInstallCheck("packages", model));
  console.log(installSummary(report));
}, 300_000);

const base = `${process.platform}-${process.arch}`;

test("the packed tarballs install without build tools and generate with the platform package's addon", async () => {
  expect(report.error, stderr).toBeUndefined();
  expect(report.ok).toBe(true);
  expect(status).toBe(0);

  expect(report.buildToolsRemovedFromPath).toEqual(expect.arrayContaining(["cc", "c++", "gcc", "g++", "cmake"]));
  expect(report.platformPackage).toBe(`@toolwright/${base}`);
  const packageDir = `node_modules/@toolwright/${base}/`;
  expect(report.installUsed.replaceAll("\\", "/")).toContain(packageDir);
  if (process.platform === "linux") expect(report.addonMapped?.replaceAll("\\", "/")).toContain(packageDir);
  // The loader looked in the main package's prebuilds/ first (absent in the published layout).
  expect(report.loaded.path.replaceAll("\\", "/")).toContain(packageDir);
  expect(report.loaded.variant).toBe(process.platform === "darwin" ? "metal" : "cpu");
  expect(report.loaded.passedOver.map((p) => p.path.replaceAll("\\", "/"))).toEqual([
    expect.stringContaining(`node_modules/toolwright/prebuilds/${base}/`),
  ]);
  expect(["chat", "generate"]).toContain(report.api);
  expect(report.tokens).toBeGreaterThan(0);
  const tokens = (await readGgufMetadata(model)).get("tokenizer.ggml.tokens")!.value as string[];
  expect(report.cliInspect).toEqual({ architecture: "llama", vocabulary: tokens.length });
  // The main tarball ships lib/, native/ and the build scripts, no binary and not the dev tooling.
  expect(report.tarballBytes).toBeLessThan(2 << 20);
  expect(report.platformFiles).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json"]));
  expect(report.platformFiles!.filter((f) => f.endsWith(".node"))).toHaveLength(1);
});

test("with a prebuild, only the runtime dependencies are installed: no cmake-js, nothing built", async () => {
  expect(report.error, stderr).toBeUndefined();
  expect(report.packages).toEqual([...runtimeDependencyClosure(), `@toolwright/${base}`].sort());
  expect(report.packages).not.toContain("cmake-js");
  expect(report.packages).not.toContain("node-addon-api");
  expect(report.packageFolders).not.toContain("build");
  expect(report.packageFolders).not.toContain("deps");
  expect(report.packageFolders).not.toContain("addon");
  expect(report.packageFolders).not.toContain("prebuilds");
  expect(report.packageFolders).toContain("LICENSE");
  // lib/ + native/ sources; the addon is in the platform package (6 MB stripped, ~8 MB when a local
  // unstripped build stands in).
  expect(report.packageBytes).toBeLessThan(8 << 20);
  expect(report.platformPackageBytes).toBeLessThan(20 << 20);
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
