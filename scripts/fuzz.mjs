#!/usr/bin/env node
// `npm run fuzz -- --minutes N [--target NAME] [--list]`: coverage-guided fuzzing of the native
// targets (libFuzzer, clang) and the TypeScript ones (Jazzer.js), one target at a time, one
// process, niced. Seeds come from the test fixtures at run time; corpora grow in
// .cache/fuzz/corpus/NAME and findings land in .cache/fuzz/findings/NAME. A finding is an input
// that crashes, breaks an invariant, throws an error the code does not document, or exceeds the
// per-input time or memory limit. Prints one table: executions, coverage, findings, minutes.
import { spawn } from "node:child_process";
import { copyFileSync, createWriteStream, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseFuzzArgs, USAGE } from "./fuzz/args.mjs";
import { bundleJs, buildNative, prepareJs, requireClang } from "./fuzz/build.mjs";
import { addStats, formatTable, parseLibFuzzerOutput } from "./fuzz/stats.mjs";
import { findTarget, TARGETS } from "./fuzz/targets.mjs";
import { sharedDir } from "./lib/shared-dir.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CACHE = join(ROOT, ".cache/fuzz");
const JAZZER = join(ROOT, "fuzz/js/node_modules/@jazzer.js/core/dist/cli.js");

/** Builds what a target needs; returns the command (without libFuzzer flags) that fuzzes it. */
async function prepare(target) {
  if (target.kind === "native") {
    requireClang();
    return { cmd: await buildNative(ROOT, CACHE, target), args: [], bundle: null, sync: true };
  }
  requireClang();
  prepareJs(ROOT);
  const bundle = await bundleJs(ROOT, CACHE, target);
  const node = ["--max-old-space-size=2048", "--enable-source-maps", JAZZER, bundle];
  return { cmd: process.execPath, args: node, bundle, sync: target.sync };
}

/** Copies the target's seeds into its corpus folder (kept between runs: the corpus only grows). */
async function seedCorpus(target, corpus) {
  mkdirSync(corpus, { recursive: true });
  let n = 0;
  if (target.kind === "native" && target.seeds.dirs) {
    for (const dir of target.seeds.dirs) {
      const abs = join(ROOT, dir);
      if (!existsSync(abs)) continue;
      for (const f of readdirSync(abs).filter((f) => f.endsWith(target.seeds.ext))) {
        copyFileSync(join(abs, f), join(corpus, `seed-${f}`));
        n++;
      }
    }
    return n;
  }
  // TypeScript targets (and native ones that share their seeds) write seeds with their own code.
  const from = target.kind === "js" ? target : findTarget(target.seeds.js);
  const bundle = await bundleJs(ROOT, CACHE, from);
  const seeds = await createRequire(import.meta.url)(bundle).seeds(ROOT, sharedDir());
  for (const [name, bytes] of seeds) {
    writeFileSync(join(corpus, `seed-${name.replace(/[^\w.+-]/g, "_")}`), bytes);
    n++;
  }
  return n;
}

function libFuzzerFlags(target, args, seconds, findings) {
  return [
    `-max_total_time=${Math.max(1, Math.round(seconds))}`,
    ...(target.kind === "native" ? [`-timeout=${args.timeout}`] : []),
    `-rss_limit_mb=${args.rssMb}`,
    `-max_len=${target.maxLen}`,
    `-artifact_prefix=${findings}/`,
    "-print_final_stats=1",
  ];
}

/** One fuzzer process; resolves with its output once it exits. */
function runOnce(command, inputs, flags, timeout, log) {
  // Jazzer.js passes its own -timeout to libFuzzer (the last one wins), so the limit goes through its option.
  const jazzer = [...(command.sync ? ["--sync"] : []), `--timeout=${timeout * 1000}`, "--"];
  const args = command.bundle === null ? [...inputs, ...flags] : [...inputs, ...jazzer, ...flags];
  return new Promise((done, fail) => {
    const child = spawn("nice", ["-n", "5", command.cmd, ...command.args, ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        ASAN_OPTIONS: "abort_on_error=1:detect_stack_use_after_return=0",
        UBSAN_OPTIONS: "print_stacktrace=1:halt_on_error=1",
      },
    });
    let text = "";
    const take = (chunk) => {
      text += chunk;
      log.write(chunk);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("error", fail);
    child.on("close", (code) => done({ text, code }));
  });
}

async function fuzzTarget(target, args) {
  const corpus = join(CACHE, "corpus", target.name);
  const findings = join(CACHE, "findings", target.name);
  mkdirSync(findings, { recursive: true });
  mkdirSync(join(CACHE, "logs"), { recursive: true });
  const seeded = await seedCorpus(target, corpus);
  const log = createWriteStream(join(CACHE, "logs", `${target.name}.log`), { flags: "a" });
  console.log(`fuzz: ${target.name} (${target.what}): ${seeded} seeds, ${args.minutes} min, log .cache/fuzz/logs/`);
  const total = { execs: 0, cov: 0, ft: 0, crashes: [], timeouts: [], ooms: [] };
  let command = await prepare(target);
  const start = Date.now();
  const budget = args.minutes * 60_000;
  let runs = 0;
  const seen = new Set();
  // A finding ends a libFuzzer process; the next run goes on with the grown corpus until time is up.
  while (Date.now() - start < budget - 1000) {
    // Built again after a finding: a fix made while the target runs is fuzzed from its next run on.
    if (runs > 0) command = await prepare(target);
    const seconds = (budget - (Date.now() - start)) / 1000;
    const flags = libFuzzerFlags(target, args, seconds, findings);
    const { text, code } = await runOnce(command, [corpus], flags, args.timeout, log);
    runs++;
    const stats = parseLibFuzzerOutput(text);
    addStats(total, stats);
    const found = [...stats.crashes, ...stats.timeouts, ...stats.ooms];
    const fresh = found.filter((f) => !seen.has(f));
    for (const f of fresh) console.log(`fuzz: ${target.name}: finding ${f}`);
    if (found.length === 0) {
      if (code !== 0) console.log(`fuzz: ${target.name}: the fuzzer exited with ${code} and no finding (see its log)`);
      break;
    }
    // The same input again: it is in the corpus now, and every run would stop on it until it is fixed.
    if (fresh.length === 0) {
      console.log(`fuzz: ${target.name}: ${found[0]} found again; stopping until it is fixed`);
      break;
    }
    for (const f of fresh) seen.add(f);
  }
  log.end();
  return { name: target.name, stats: total, minutes: (Date.now() - start) / 60_000, runs };
}

async function repro(target, file, args) {
  const command = await prepare(target);
  const flags = [`-rss_limit_mb=${args.rssMb}`, ...(command.bundle === null ? [`-timeout=${args.timeout}`] : [])];
  const { code } = await runOnce(command, [resolve(file)], flags, args.timeout, process.stdout);
  process.exitCode = code ?? 1;
}

async function main() {
  let args;
  try {
    args = parseFuzzArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`fuzz: ${e.message}\n${USAGE}`);
    process.exit(2);
  }
  if (args.help) return console.log(USAGE);
  if (args.list) {
    for (const t of TARGETS) console.log(`${t.name.padEnd(16)} ${t.kind.padEnd(7)} ${t.what}`);
    return;
  }
  if (args.repro !== null) return repro(findTarget(args.targets[0]), args.repro, args);
  const rows = [];
  for (const name of args.targets) rows.push(await fuzzTarget(findTarget(name), args));
  console.log(`\n${formatTable(rows)}`);
  for (const r of rows)
    for (const f of [...r.stats.crashes, ...r.stats.timeouts, ...r.stats.ooms]) console.log(`${r.name}: ${f}`);
}

await main();
