// The GPU machine's scripts (scripts/gpu/) and the CUDA architectures the docs and the prebuild workflow name.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/test-models.js";

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");

describe("scripts/gpu", () => {
  it("ships the packages the tests import with their dependencies, not the type definitions", () => {
    const closure = (...names: string[]) =>
      execFileSync(process.execPath, [join(REPO_ROOT, "scripts", "gpu", "module-closure.mjs"), ...names], {
        encoding: "utf8",
      })
        .trim()
        .split("\n");
    const modules = closure("vitest", "ajv");
    expect(modules).toEqual(expect.arrayContaining(["node_modules/vitest", "node_modules/vite", "node_modules/ajv"]));
    expect(modules.filter((m) => /@types\/|lightningcss/.test(m))).toEqual([]);
    // A dependency's own dependencies come along: ajv's.
    const ajv = JSON.parse(read("node_modules/ajv/package.json")) as { dependencies: Record<string, string> };
    for (const dep of Object.keys(ajv.dependencies)) expect(modules.some((m) => m.endsWith(`/${dep}`))).toBe(true);
  });

  it("fails naming a package that is not installed", () => {
    expect(() =>
      execFileSync(process.execPath, [join(REPO_ROOT, "scripts", "gpu", "module-closure.mjs"), "no-such-pkg-x"], {
        stdio: "pipe",
      }),
    ).toThrow(/no-such-pkg-x is not installed/);
  });

  it("the CUDA prebuild targets the architectures docs/gpu.md names, the measured H200's (sm_90) among them", () => {
    const workflow = read(".github/workflows/prebuild.yml").match(/--variant cuda[^\n]*--cuda-archs "([^"]+)"/);
    const docs = read("docs/gpu.md").match(/--variant cuda --cuda-archs "([^"]+)"/);
    expect(workflow?.[1]).toBeDefined();
    expect(workflow?.[1]).toBe(docs?.[1]);
    expect(workflow![1]!.split(";")).toContain("90-real");
  });
});
