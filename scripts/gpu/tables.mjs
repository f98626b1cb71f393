#!/usr/bin/env node
// Turns what scripts/gpu/run.sh wrote to $OUT (env.txt, test-*.txt, runtime-*.txt, chat-*.txt, serve-*.txt)
// into the Markdown tables of docs/gpu.md: the machine, each variant's test counts and failures, and the
// benchmarks with toolwright beside llama.cpp.
//
//   node scripts/gpu/tables.mjs DIR... > tables.md    (one DIR per call: the files each call brought back)
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** A Markdown table. */
export function markdownTable(header, rows) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** Cells of a table line aligned with spaces: two or more spaces part them. */
const cells = (line) => line.trim().split(/\s{2,}/);

/** The card, driver and CUDA version nvidia-smi reported, the date and the cores. */
export function machine(env) {
  const lines = env.split("\n");
  const csv = lines.findIndex((l) => l.startsWith("name, driver_version"));
  const card = csv >= 0 ? lines[csv + 1]?.trim() : undefined;
  const cuda = env.match(/CUDA Version:\s*([\d.]+)/)?.[1];
  const date = lines.find((l) => /^\w{3} \w{3} +\d+ [\d:]+ UTC \d{4}$/.test(l.trim()));
  const cores = env.match(/^cores (\d+)/m)?.[1];
  return { card, cuda, date, cores };
}

/** Counts of a vitest run (the summary reporter's line) and the tests that failed. */
export function testSummary(text) {
  const m = text.match(/^Tests: (\d+) passed, (\d+) failed, (\d+) skipped/m);
  const failed = [...text.matchAll(/^ FAIL {2}\|\w+\| (.+)$/gm)].map((f) => f[1].trim());
  return {
    finished: m !== null,
    passed: m ? Number(m[1]) : [...text.matchAll(/^\s+✓ /gm)].length,
    failed: m ? Number(m[2]) : failed.length,
    skipped: m ? Number(m[3]) : 0,
    failures: [...new Set(failed)],
  };
}

/** bench:runtime's table: the line above a line of dashes is the header; rows follow until a blank line. */
export function runtimeTable(text) {
  const lines = text.split("\n");
  const rule = lines.findIndex((l) => /^-+( +-+)+$/.test(l));
  if (rule < 1) return undefined;
  const rows = [];
  for (const l of lines.slice(rule + 1)) {
    if (!l.trim() || l.startsWith("ratio =")) break;
    rows.push(cells(l));
  }
  const setup = lines.find((l) => l.startsWith("runtime:"));
  return { setup, header: cells(lines[rule - 1]), rows };
}

/** bench:chat's runs (one per model): each "model ..." line, then its header and rows. */
export function chatTables(text) {
  const runs = [];
  let run;
  for (const l of text.split("\n")) {
    if (l.startsWith("model ")) {
      const size = l.match(/qwen2-(\w+)-s\d/)?.[1] ?? l.split(" ")[1];
      run = { size, setup: l, header: undefined, rows: [] };
      runs.push(run);
    } else if (run && /^\s*mode\s+engine/.test(l)) run.header = cells(l);
    else if (run?.header && /^\s*\w+\s+\w+(\s+[\d.-]+){7}\s*$/.test(l)) run.rows.push(cells(l));
  }
  return runs.filter((r) => r.header);
}

/** bench:serve's levels: toolwright's and llama-server's req/s, tok/s, p50 and p99, and their ratio. */
export function serveRows(text) {
  const rows = [];
  const num = String.raw`\s*([\d.]+|-)`;
  const side = `${num}${num}${num}${num}`;
  const re = new RegExp(String.raw`^\s*(\d+)\s+(\d+) \|${side} \|${side} \| (\S+)\s+(\S+)`);
  for (const l of text.split("\n")) {
    const m = l.match(re);
    if (m) rows.push(m.slice(1, 13));
  }
  const scaling = [...text.matchAll(/^(\S+): throughput at concurrency 8 = ([\d.]+)x concurrency 1/gm)].map(
    (m) => `${m[1]} ${m[2]}×`,
  );
  return { rows, scaling };
}

/**
 * The Markdown section for the results folders of one session's calls (each call's $OUT): every call writes its
 * own env.txt, the other files come from the call that ran their step (a later folder's copy wins).
 */
export function gpuTables(...dirs) {
  const found = new Map();
  for (const dir of dirs) for (const file of readdirSync(dir)) found.set(file, join(dir, file));
  const read = (name) => (found.has(name) ? readFileSync(found.get(name), "utf8") : undefined);
  const out = [];
  const env = dirs
    .map((dir) => join(dir, "env.txt"))
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path, "utf8"))
    .join("\n");
  if (env) {
    const m = machine(env);
    out.push(
      `Machine: ${m.card ?? "(no nvidia-smi)"}, CUDA ${m.cuda ?? "?"}, ${m.cores ?? "?"} cores; ${m.date ?? ""}`,
    );
  }
  const files = [...found.keys()].sort();
  for (const file of files) {
    const variant = file.match(/^(test|runtime|chat|serve)-(\w+)\.txt$/);
    if (!variant) continue;
    const [, kind, name] = variant;
    const text = read(file);
    out.push("", `### ${kind} (${name})`, "");
    if (kind === "test") {
      const t = testSummary(text);
      out.push(`${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped${t.finished ? "" : " (cut off)"}`);
      for (const f of t.failures) out.push(`- failed: ${f}`);
    } else if (kind === "runtime") {
      const t = runtimeTable(text);
      if (!t) out.push("(no table)");
      else out.push(t.setup ?? "", "", markdownTable(t.header, t.rows));
    } else if (kind === "chat") {
      const runs = chatTables(text);
      if (runs.length === 0) out.push("(no table)");
      else
        out.push(
          markdownTable(
            ["model", ...runs[0].header],
            runs.flatMap((r) => r.rows.map((c) => [r.size, ...c])),
          ),
        );
    } else {
      const s = serveRows(text);
      const side = (who) => [`${who} req/s`, "tok/s", "p50 ms", "p99 ms"];
      const header = ["conc", "req", ...side("toolwright"), ...side("llama-server"), "ratio", "per trial"];
      out.push(s.rows.length ? markdownTable(header, s.rows) : "(no table)");
      if (s.scaling.length) out.push("", `Concurrency 8 against 1: ${s.scaling.join(", ")}`);
    }
  }
  return `${out.join("\n")}\n`;
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0 || !dirs.every((dir) => existsSync(dir))) {
    process.stderr.write("usage: node scripts/gpu/tables.mjs DIR... (each call's files that run.sh wrote to $OUT)\n");
    process.exit(2);
  }
  process.stdout.write(gpuTables(...dirs));
}
