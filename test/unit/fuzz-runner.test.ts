// `npm run fuzz` without clang: its command line, its target table (every harness and module it
// names exists), and how it reads libFuzzer's output into the summary table.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseFuzzArgs } from "../../scripts/fuzz/args.mjs";
import { formatTable, parseLibFuzzerOutput } from "../../scripts/fuzz/stats.mjs";
import { TARGETS } from "../../scripts/fuzz/targets.mjs";

const ROOT = join(import.meta.dirname, "../..");
const ALL = TARGETS.map((t) => t.name);

describe("fuzz runner arguments", () => {
  it.each([
    { argv: [], minutes: 1, targets: ALL },
    { argv: ["--minutes", "10"], minutes: 10, targets: ALL },
    { argv: ["--minutes", "0.5", "--target", "template"], minutes: 0.5, targets: ["template"] },
    { argv: ["--target", "gbnf-parse", "--target", "chat-stream"], minutes: 1, targets: ["gbnf-parse", "chat-stream"] },
  ])("$argv", ({ argv, minutes, targets }) => {
    const args = parseFuzzArgs(argv);
    expect(args.minutes).toBe(minutes);
    expect(args.targets).toEqual(targets);
  });

  it.each([
    { argv: ["--minutes", "0"], error: "--minutes must be a positive number" },
    { argv: ["--minutes"], error: "--minutes needs a value" },
    { argv: ["--target", "nope"], error: 'unknown target "nope"' },
    { argv: ["--jobs", "2"], error: 'unknown argument "--jobs"' },
    { argv: ["--repro", "crash-1"], error: "--repro needs exactly one --target" },
  ])("refuses $argv", ({ argv, error }) => {
    expect(() => parseFuzzArgs(argv)).toThrow(error);
  });

  it("--list and --repro", () => {
    expect(parseFuzzArgs(["--list"]).list).toBe(true);
    expect(parseFuzzArgs(["--repro", "f", "--target", "template"]).repro).toBe("f");
  });
});

describe("fuzz targets", () => {
  it("names are unique; native and TypeScript targets both exist", () => {
    expect(new Set(ALL).size).toBe(ALL.length);
    expect(TARGETS.some((t) => t.kind === "native")).toBe(true);
    expect(TARGETS.some((t) => t.kind === "js")).toBe(true);
  });

  it.each(TARGETS)("$name: its files exist", (t) => {
    const files = t.kind === "native" ? [t.harness, ...t.sources] : [t.module];
    for (const f of files) expect(existsSync(join(ROOT, f)), f).toBe(true);
  });
});

// Lines as libFuzzer 14 prints them (a native harness; Jazzer.js prints the same).
const OUTPUT = `INFO: Seed: 1234
#2\tINITED cov: 310 ft: 311 corp: 1/1b exec/s: 0 rss: 30Mb
#1024\tNEW    cov: 352 ft: 420 corp: 9/80b lim: 4 exec/s: 512 rss: 31Mb L: 3/4 MS: 1 ChangeBit-
#65536\tpulse  cov: 360 ft: 455 corp: 12/99b lim: 652 exec/s: 4096 rss: 40Mb
==77== ERROR: libFuzzer: deadly signal
MS: 2 InsertByte-CopyPart-; base unit: 0000
artifact_prefix='/r/f/'; Test unit written to /r/f/crash-ab12
stat::number_of_executed_units: 70001
stat::average_exec_per_sec:     4117
`;

describe("libFuzzer output", () => {
  it("executions, coverage, features and findings", () => {
    const s = parseLibFuzzerOutput(OUTPUT);
    expect(s).toEqual({
      execs: 70001,
      cov: 360,
      ft: 455,
      crashes: ["/r/f/crash-ab12"],
      timeouts: [],
      ooms: [],
    });
  });

  it.each([
    { line: "Test unit written to ./timeout-1f", kind: "timeouts" },
    { line: "Test unit written to ./oom-2e", kind: "ooms" },
    { line: "Test unit written to ./leak-3d", kind: "crashes" },
    { line: "Test unit written to ./slow-unit-4c", kind: null },
  ])("$line", ({ line, kind }) => {
    const s = parseLibFuzzerOutput(line);
    const found = (["crashes", "timeouts", "ooms"] as const).filter((k) => s[k].length > 0);
    expect(found).toEqual(kind === null ? [] : [kind]);
  });

  it("formats one row per target", () => {
    const table = formatTable([{ name: "gbnf-parse", minutes: 10, runs: 2, stats: parseLibFuzzerOutput(OUTPUT) }]);
    expect(table.split("\n")).toHaveLength(3);
    expect(table).toContain("| gbnf-parse | 10.0    | 2    | 70001      | 360 | 455 | 1       | 0        | 0    |");
  });
});
