// The GPU machine's scripts (scripts/gpu/) and the CUDA architectures the docs and the prebuild workflow name.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/test-models.js";
import { gpuTables, machine, testSummary } from "../../scripts/gpu/tables.mjs";

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

describe("scripts/gpu/tables.mjs: run.sh's output as docs/gpu.md's tables", () => {
  // Real output of run.sh's steps (a dry run with the CPU build and tiny models: the formats are the same).
  const tables = gpuTables(join(REPO_ROOT, "test", "fixtures", "gpu-out"));
  const section = (name: string) => tables.split("\n### ").find((s) => s.startsWith(name)) ?? "";
  const rows = (text: string) => text.split("\n").filter((l) => /^\| (?!---)/.test(l));

  it("bench:runtime: the header and a row per model, toolwright beside llama.cpp", () => {
    const [header, ...body] = rows(section("runtime (cpu)"));
    expect(header).toMatch(/^\| model \| sampling \| prompt tok\/s llama\.cpp \| toolwright \| ratio/);
    expect(body).toHaveLength(1);
    expect(body[0]!.split("|").map((c) => c.trim())).toEqual(
      expect.arrayContaining(["tiny (qwen2)", "greedy", "1744", "1649", "0.95"]),
    );
  });

  it("bench:chat: every mode and engine, with the model size as a column", () => {
    const body = rows(section("chat (cpu)")).slice(1);
    expect(
      body.map((r) =>
        r
          .split("|")
          .slice(1, 4)
          .map((c) => c.trim()),
      ),
    ).toEqual([
      ["tiny", "auto", "llama"],
      ["tiny", "auto", "toolwright"],
      ["tiny", "required", "llama"],
      ["tiny", "required", "toolwright"],
      ["tiny", "json", "llama"],
      ["tiny", "json", "toolwright"],
    ]);
    for (const r of body) expect(r.split("|").filter((c) => c.trim() !== "")).toHaveLength(10);
  });

  it("bench:serve: each level with both servers and the ratio, and the scaling from 1 to 8", () => {
    const [header, ...body] = rows(section("serve (cpu)"));
    expect(header).toContain("| toolwright req/s |");
    expect(body.map((r) => r.split("|")[1]!.trim())).toEqual(["1", "8"]);
    expect(body[0]).toContain("| 268.4 |");
    expect(body[0]).toContain("| 290.5 |");
    expect(body[0]).toMatch(/\| 0\.92 \| 0\.92 \|$/);
    expect(section("serve (cpu)")).toContain("Concurrency 8 against 1: toolwright 1.68×, llama-server 1.68×");
  });

  it("tests: the counts, and each failed test named; a run cut off by its time limit says so", () => {
    expect(section("test (cpu)")).toContain("23 passed, 0 failed, 0 skipped");
    const failing = [
      " FAIL  |native| test/native/runtime-tokenize.test.ts > vocabulary qwen2 > matches the test vectors",
      " FAIL  |e2e| test/e2e/e2e-chat.test.ts > closes reasoning",
      "Tests: 20 passed, 2 failed, 1 skipped",
    ].join("\n");
    expect(testSummary(failing)).toEqual({
      finished: true,
      passed: 20,
      failed: 2,
      skipped: 1,
      failures: [
        "test/native/runtime-tokenize.test.ts > vocabulary qwen2 > matches the test vectors",
        "test/e2e/e2e-chat.test.ts > closes reasoning",
      ],
    });
    expect(testSummary(" ✓ |native| a.test.ts (3 tests)\n   ✓ one\n").finished).toBe(false);
  });

  it("one section from the folders of several calls, each with its own env.txt", () => {
    const fixture = join(REPO_ROOT, "test", "fixtures", "gpu-out");
    const calls = [mkdtempSync(join(tmpdir(), "gpu-call1-")), mkdtempSync(join(tmpdir(), "gpu-call2-"))];
    try {
      for (const file of readdirSync(fixture)) {
        const into = file === "env.txt" || file.startsWith("test-") ? [calls[0]!] : [calls[1]!];
        if (file === "env.txt") into.push(calls[1]!);
        for (const dir of into) copyFileSync(join(fixture, file), join(dir, file));
      }
      expect(gpuTables(...calls)).toBe(tables);
      expect(gpuTables(calls[1]!)).not.toContain("### test (cpu)");
    } finally {
      for (const dir of calls) rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the machine: card and driver from nvidia-smi's CSV, the CUDA version, the date and the cores", () => {
    const env = [
      "Fri Dec  4 19:03:29 UTC 2026",
      "name, driver_version, memory.total [MiB], clocks.max.sm [MHz]",
      "NVIDIA H200, 580.159.04, 143771 MiB, 1980 MHz",
      "| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |",
      "cores 16; LD_LIBRARY_PATH=/usr/local/nvidia/lib64",
    ].join("\n");
    expect(machine(env)).toEqual({
      card: "NVIDIA H200, 580.159.04, 143771 MiB, 1980 MHz",
      cuda: "13.0",
      date: "Fri Dec  4 19:03:29 UTC 2026",
      cores: "16",
    });
  });
});
