#!/usr/bin/env node
// bench:analysis: time to analyse each of llama.cpp's 70 test chat templates from source
// (template parse + capability probes + every analysis phase), cache bypassed, side by side
// with llama.cpp's own analyser when the oracle is built (scripts/oracle/, build-oracle/).
// Runs over compiled lib/: `npm run build:ts` first.
//
//   npm run bench:analysis [-- --rounds N]
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const libEntry = new URL("../../lib/chat/index.js", import.meta.url);
const templatesDir = `${root}deps/llama.cpp/models/templates/`;
const oracle = `${root}build-oracle/analysis-oracle`;
const GOAL_P50_MS = 10;
const GOAL_MAX_MS = 100;

if (!existsSync(fileURLToPath(libEntry))) {
  console.error("lib/analysis/index.js not found: run `npm run build:ts` first");
  process.exit(1);
}
if (!existsSync(templatesDir)) {
  console.error(`${templatesDir} not found: run \`node scripts/fetch-llama.mjs\` first`);
  process.exit(1);
}
const roundsArg = process.argv.indexOf("--rounds");
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 1;
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error(`--rounds must be a positive integer, got ${process.argv[roundsArg + 1]}`);
  process.exit(2);
}

const { analyzeChatTemplate: analyzeTemplate } = await import(libEntry.href);
const names = readdirSync(templatesDir)
  .filter((f) => f.endsWith(".jinja"))
  .sort();
const sources = new Map(names.map((n) => [n, readFileSync(templatesDir + n, "utf8")]));

// JIT warm-up on a few templates (not measured): the figures are per template, not per process.
for (const n of names.slice(0, 3)) analyzeTemplate(sources.get(n), { cache: false });

/** Best of `rounds` cold analyses (each one re-parses the template and bypasses the cache). */
const ours = new Map();
for (const n of names) {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    try {
      analyzeTemplate(sources.get(n), { cache: false });
    } catch {
      // a failing template still costs its time
    }
    best = Math.min(best, performance.now() - t0);
  }
  ours.set(n, best);
}

const reference = new Map();
if (existsSync(oracle)) {
  const out = execFileSync(oracle, ["--time", ...names.map((n) => templatesDir + n)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    maxBuffer: 1 << 24,
  });
  for (const line of out.trim().split("\n")) {
    const r = JSON.parse(line);
    if (r.analysis_ms !== undefined) reference.set(r.file.slice(templatesDir.length), r.parse_ms + r.analysis_ms);
  }
}

const fmt = (ms) => (ms === undefined ? "—" : ms.toFixed(1));
const width = Math.max(...names.map((n) => n.length));
console.log(`${"template".padEnd(width)}  toolwright ms  llama.cpp ms`);
for (const n of names)
  console.log(`${n.padEnd(width)}  ${fmt(ours.get(n)).padStart(13)}  ${fmt(reference.get(n)).padStart(12)}`);

function stats(values) {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const at = (q) => v[Math.min(v.length - 1, Math.floor(q * v.length))];
  return { p50: at(0.5), p90: at(0.9), max: v[v.length - 1], total: v.reduce((a, b) => a + b, 0) };
}
const s = stats(ours.values());
const ref = stats(reference.values());
console.log("");
console.log(`${"".padEnd(10)}  toolwright  llama.cpp  goal`);
for (const key of ["p50", "p90", "max", "total"]) {
  const goal = key === "p50" ? `<= ${GOAL_P50_MS}` : key === "max" ? `<= ${GOAL_MAX_MS}` : "";
  console.log(`${key.padEnd(10)}  ${fmt(s[key]).padStart(10)}  ${fmt(ref?.[key]).padStart(9)}  ${goal}`);
}
const ok = s.p50 <= GOAL_P50_MS && s.max <= GOAL_MAX_MS;
console.log(`\n${names.length} templates, best of ${rounds} cold run(s) each; goal ${ok ? "met" : "NOT met"}`);
if (!existsSync(oracle)) console.log("(llama.cpp column empty: build the oracle, see scripts/oracle/CMakeLists.txt)");
