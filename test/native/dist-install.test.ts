// The package as users get it: `npm pack`, `npm install` of the tarball into an empty folder with
// no compiler, CMake or nvcc on PATH, then `import "toolwright"` loads a model with a chat template
// and answers (chat() when the package has it, else generate()), and the `toolwright` CLI runs. scripts/test-install.mjs does the work (also `npm run test:install`);
// this test checks its report. Takes ~10-20 s (the dependencies come from the npm cache).
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, test } from "vitest";
import { readGgufMetadata } from "../../src/runtime/gguf/index.js";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import { ensureTestModel, REPO_ROOT } from "../helpers/test-models.js";

interface InstallReport {
  ok: boolean;
  error?: string;
  addonSource: string;
  installUsed: string;
  addonMapped: string | null;
  buildToolsRemovedFromPath: string[];
  api: string;
  tokens: number;
  cliInspect: { architecture: string; vocabulary: number };
  tarballBytes: number;
  installSeconds: number;
}

test("the packed tarball installs without build tools and generates with the prebuilt addon", { timeout: 300_000 }, async () => {
  await ensureCompiledLib();
  const model = await ensureTestModel({ vocab: "qwen2", template: "Qwen-Qwen3-0.6B" });
  const r = spawnSync(process.execPath, [join(REPO_ROOT, "scripts", "test-install.mjs"), "--no-build", "--model", model], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  const report = JSON.parse(r.stdout) as InstallReport;
  expect(report.error, r.stderr).toBeUndefined();
  expect(report.ok).toBe(true);
  expect(r.status).toBe(0);

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
