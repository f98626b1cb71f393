// The addon binary works in Electron without a rebuild: it imports nothing from the host process
// but Node-API functions (ABI-stable across Node.js and Electron versions), and none of the
// external-buffer functions that Electron's V8 memory cage rejects. Checked on the addon the test
// suite loads (build/Release) with `objdump -T`, on Linux.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { REPO_ROOT } from "../helpers/test-models.js";

interface ImportCheck {
  imports: string[];
  problems: string[];
}
type Checker = {
  hostImportProblems(file: string): ImportCheck | undefined;
  hostImportProblemsInDump(text: string): ImportCheck;
};

const checker = (await import(pathToFileURL(join(REPO_ROOT, "scripts", "prebuild.mjs")).href)) as Checker;
const ADDON = join(REPO_ROOT, "build", "Release", "toolwright.node");
const hasObjdump = spawnSync("objdump", ["--version"]).status === 0;

describe.runIf(process.platform === "linux" && hasObjdump)("host imports of the addon", () => {
  test("build/Release/toolwright.node imports only Node-API from the host, none Electron forbids", () => {
    expect(existsSync(ADDON), `${ADDON} missing: run npm run build:native`).toBe(true);
    const check = checker.hostImportProblems(ADDON)!;
    expect(check.problems).toEqual([]);
    expect(check.imports).toContain("napi_define_class");
    expect(check.imports.every((name) => /^(napi_|node_api_)/.test(name))).toBe(true);
  });

  test("the check reports V8/libuv imports and Electron-forbidden external buffers", () => {
    const dump = [
      "0000000000000000      DF *UND*	0000000000000000  Base        napi_create_object",
      "0000000000000000      DF *UND*	0000000000000000  Base        _ZN2v87Isolate10GetCurrentEv",
      "0000000000000000      DF *UND*	0000000000000000  Base        uv_default_loop",
      "0000000000000000      DF *UND*	0000000000000000  Base        napi_create_external_arraybuffer",
      "0000000000000000      DF *UND*	0000000000000000 (GLIBC_2.2.5) malloc",
      "0000000000000000  w   D  *UND*	0000000000000000  Base        __gmon_start__",
    ].join("\n");
    const check = checker.hostImportProblemsInDump(dump);
    expect(check.imports).toEqual([
      "_ZN2v87Isolate10GetCurrentEv",
      "napi_create_external_arraybuffer",
      "napi_create_object",
      "uv_default_loop",
    ]);
    expect(check.problems).toHaveLength(3);
    expect(check.problems.join("\n")).toMatch(/_ZN2v87Isolate10GetCurrentEv.*not Node-API/);
    expect(check.problems.join("\n")).toMatch(/uv_default_loop.*not Node-API/);
    expect(check.problems.join("\n")).toMatch(/napi_create_external_arraybuffer.*memory cage/);
  });
});
