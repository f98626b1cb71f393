#!/usr/bin/env node
// npm run bench:runtime — toolwright's runtime against llama.cpp's own C++ loop.
//
// For each model (tiny and a ~0.5B Qwen2.5-shaped model, random weights, real tokenizer) and each
// sampling mode, both engines run the same file, the same prompt token ids, threads, batch size and
// sampler, and the table shows prompt-eval and generation tokens/s side by side with the ratio
// toolwright / llama.cpp (1.00 = as fast as llama.cpp driven directly from C++).
//
// Needs: `npm run build:ts`, the native addon (`npm run build:native`) and the reference driver:
//   flock /tmp/toolwright-build.lock cmake --build build --target toolwright-llama-loop -j 2
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { benchModel, ROOT } from "./bench-model.mjs";
import { benchFail, parseBenchArgs } from "./bench-args.mjs";

/** The reference driver: TOOLWRIGHT_LLAMA_LOOP names another build's (a GPU build's, scripts/gpu/). */
const DRIVER =
  process.env.TOOLWRIGHT_LLAMA_LOOP ??
  join(ROOT, "build", process.platform === "win32" ? "Release/toolwright-llama-loop.exe" : "toolwright-llama-loop");
const MODELS_DIR = join(process.env.TOOLWRIGHT_LLAMA_DIR ?? join(ROOT, "deps", "llama.cpp"), "models");

const HELP = `usage: npm run bench:runtime -- [options]

  --sizes LIST        models to run, test-model presets: tiny, bench, 1b, 8b (default tiny,bench)
  --vocab NAME        tokenizer of the generated models (default qwen2: 152k tokens)
  --model PATH        benchmark this GGUF instead of generated models
  --sampling LIST     greedy,temp (default both; temp = temperature 0.8, top-k 40, top-p 0.95, seed 42)
  --threads N         CPU threads for both engines (default min(4, cores))
  --batch N           prompt batch size (default 512)
  --gpu-layers N      layers offloaded to a GPU by both engines (default 0: the CPU alone)
  --prompt-tokens N   prompt length (default 256)
  --n-gen N           tokens to generate (default 64)
  --reps N            rounds per cell (one run of each engine, alternating), median reported (default 3)
  --no-toolwright     only run llama.cpp's loop
  --json              also print every measurement as a JSON line
`;

const opt = parseBenchArgs("runtime", HELP, {
  sizes: { type: "string", default: "tiny,bench" },
  vocab: { type: "string", default: "qwen2" },
  model: { type: "string" },
  sampling: { type: "string", default: "greedy,temp" },
  threads: { type: "string", default: String(Math.min(4, availableParallelism())) },
  batch: { type: "string", default: "512" },
  "gpu-layers": { type: "string", default: "0" },
  "prompt-tokens": { type: "string", default: "256" },
  "n-gen": { type: "string", default: "64" },
  reps: { type: "string", default: "3" },
  "no-toolwright": { type: "boolean", default: false },
  json: { type: "boolean", default: false },
});
const fail = (message) => benchFail("runtime", message);

function positive(name) {
  const text = opt[name];
  if (!/^\d+$/.test(text) || Number(text) < 1) fail(`--${name} must be a positive integer, got "${text}"`);
  return Number(text);
}

const threads = positive("threads");
const batch = positive("batch");
if (!/^\d+$/.test(opt["gpu-layers"])) fail(`--gpu-layers must be an integer, got "${opt["gpu-layers"]}"`);
const gpuLayers = Number(opt["gpu-layers"]);
const promptTokens = positive("prompt-tokens");
const nGen = positive("n-gen");
const reps = positive("reps");
const samplings = opt.sampling.split(",");
for (const s of samplings) if (s !== "greedy" && s !== "temp") fail(`--sampling takes greedy and/or temp, got "${s}"`);

/** The same sampler on both sides. */
const SAMPLING = {
  greedy: { driverArgs: ["--greedy"], toolwright: { greedy: true } },
  temp: {
    driverArgs: ["--temp", "0.8", "--top-k", "40", "--top-p", "0.95", "--seed", "42"],
    toolwright: { temperature: 0.8, topK: 40, topP: 0.95, minP: 0, seed: 42 },
  },
};

// ---- models ---------------------------------------------------------------------------------

async function benchModels() {
  if (opt.model) {
    if (!existsSync(opt.model)) fail(`--model ${opt.model} not found`);
    return [{ label: opt.model.split(/[\\/]/).pop(), path: resolve(opt.model) }];
  }
  const lib = join(ROOT, "lib", "runtime", "gguf", "test-model.js");
  if (!existsSync(lib)) fail(`${lib} is missing: run \`npm run build:ts\` first`);
  const { TEST_MODEL_PRESETS } = await import(pathToFileURL(lib).href);
  const vocabPath = join(MODELS_DIR, `ggml-vocab-${opt.vocab}.gguf`);
  if (!existsSync(vocabPath)) fail(`vocabulary ${vocabPath} not found (node scripts/fetch-llama.mjs)`);
  const models = [];
  for (const size of opt.sizes.split(",")) {
    if (!Object.hasOwn(TEST_MODEL_PRESETS, size))
      fail(`--sizes takes ${Object.keys(TEST_MODEL_PRESETS).join(", ")}, got "${size}"`);
    models.push({ label: `${size} (${opt.vocab})`, path: await benchModel(opt.vocab, size) });
  }
  return models;
}

// ---- llama.cpp: the reference C++ loop -------------------------------------------------------

async function runDriver(model, sampling, driverReps = reps) {
  if (!existsSync(DRIVER)) {
    return {
      error:
        `${DRIVER} not built: flock /tmp/toolwright-build.lock cmake --build build --target ` +
        `toolwright-llama-loop -j 2`,
    };
  }
  const args = [
    "--model",
    model.path,
    "--prompt-tokens",
    String(promptTokens),
    "--n-gen",
    String(nGen),
    "--threads",
    String(threads),
    "--batch",
    String(batch),
    "--gpu-layers",
    String(gpuLayers),
    "--reps",
    String(driverReps),
    "--print-text",
    ...SAMPLING[sampling].driverArgs,
  ];
  try {
    const { stdout } = await promisify(execFile)(DRIVER, args, { maxBuffer: 64 << 20 });
    return JSON.parse(stdout.trim().split("\n").pop());
  } catch (e) {
    const last = String(e.stdout ?? "")
      .trim()
      .split("\n")
      .pop();
    try {
      return JSON.parse(last);
    } catch {
      return { error: e.message };
    }
  }
}

// ---- toolwright: the Node runtime ------------------------------------------------------------

let toolwright;
async function loadToolwright() {
  if (toolwright !== undefined) return toolwright;
  try {
    toolwright = await import(pathToFileURL(join(ROOT, "lib", "index.js")).href);
  } catch (e) {
    toolwright = { error: `cannot import lib/index.js: ${e.message.split("\n")[0]} (run npm run build)` };
  }
  return toolwright;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

/**
 * Opens toolwright on a model: `once()` times generate() on the prompt ids the driver used. Prompt
 * eval = start → first token (the prompt decode plus one sample); generation = first → last token,
 * (n - 1) decode+sample steps: exactly the intervals the C++ loop times.
 */
async function openToolwright(model, sampling, promptIds) {
  const lib = await loadToolwright();
  if (lib.error) return { error: lib.error };
  let m;
  let ctx;
  try {
    const t0 = performance.now();
    m = await lib.loadModel(model.path, { gpuLayers });
    ctx = await m.createContext({
      contextSize: Math.ceil((promptIds.length + nGen + 1) / 256) * 256,
      threads,
      batchSize: batch,
    });
    const loadMs = performance.now() - t0;
    const generateOnce = async (tokens, maxTokens) => {
      const started = performance.now();
      let first = 0;
      let last = 0;
      let count = 0;
      const ids = [];
      const gen = ctx.generate({ tokens, maxTokens, sampling: SAMPLING[sampling].toolwright, reusePrefix: false });
      for await (const t of gen) {
        last = performance.now();
        if (count === 0) first = last;
        count++;
        ids.push(t.token);
      }
      return { prompt_ms: first - started, gen_ms: last - first, gen_tokens: count, ids, stop_reason: gen.stopReason };
    };
    await generateOnce(promptIds.slice(0, 8), 1); // warm-up, as the driver does
    return {
      loadMs,
      async once() {
        // The driver decodes its warm-up right before each timed run (a fresh process per run); so does this
        // session. Without it toolwright's first decode came after the driver's whole run, its pool threads (and,
        // on a virtual machine, their idle vCPUs) asleep: up to 4 ms more on a 3 ms prompt of the tiny model.
        await generateOnce(promptIds.slice(0, 8), 1);
        const r = await generateOnce(promptIds, nGen);
        // Rates use the yielded tokens, the ones the timestamps belong to.
        return {
          engine: "toolwright",
          load_ms: loadMs,
          prompt_tokens: promptIds.length,
          prompt_ms: r.prompt_ms,
          prompt_tps: (promptIds.length * 1000) / r.prompt_ms,
          gen_tokens: r.gen_tokens,
          gen_ms: r.gen_ms,
          gen_tps: r.gen_tokens > 1 ? ((r.gen_tokens - 1) * 1000) / r.gen_ms : 0,
          tokens: r.ids,
          stop_reason: r.stop_reason,
        };
      },
      close() {
        ctx.dispose();
        m.dispose();
      },
    };
  } catch (e) {
    ctx?.dispose?.();
    m?.dispose?.();
    return { error: `${e.name}: ${e.message}` };
  }
}

/** The median of each rate over the rounds, with the round-by-round ratios kept for --json. */
function summarize(runs) {
  const last = runs[runs.length - 1];
  return {
    ...last,
    prompt_ms: median(runs.map((r) => r.prompt_ms)),
    gen_ms: median(runs.map((r) => r.gen_ms)),
    prompt_tps: median(runs.map((r) => r.prompt_tps)),
    gen_tps: median(runs.map((r) => r.gen_tps)),
  };
}

/**
 * Measures one model × sampling cell. The two engines take turns, one run each per round, in
 * alternating order (ABBA...), so that slow drift of the machine (frequency, other processes) hits
 * both alike instead of whichever engine happened to run second.
 */
async function measureCell(model, sampling) {
  const probe = await runDriver(model, sampling, 1); // its prompt ids are what toolwright is given
  if (probe.error || opt["no-toolwright"]) {
    if (probe.error || reps === 1) return { ref: probe };
    const refRuns = [probe];
    for (let i = 1; i < reps; i++) refRuns.push(await runDriver(model, sampling, 1));
    const failed = refRuns.find((r) => r.error);
    return { ref: failed ?? summarize(refRuns) };
  }
  if (!probe.prompt_ids) return { ref: probe, tw: { error: "needs the driver's prompt ids" } };
  const session = await openToolwright(model, sampling, probe.prompt_ids);
  if (session.error) return { ref: probe, tw: session };
  const refRuns = [probe];
  const twRuns = [];
  try {
    for (let round = 0; round < reps; round++) {
      const driverFirst = round % 2 === 0; // round 0's driver run is the probe
      if (driverFirst && round > 0) refRuns.push(await runDriver(model, sampling, 1));
      twRuns.push(await session.once());
      if (!driverFirst) refRuns.push(await runDriver(model, sampling, 1));
    }
  } finally {
    session.close();
  }
  const failed = refRuns.find((r) => r.error);
  const ref = failed ?? summarize(refRuns);
  return { ref, tw: summarize(twRuns), rounds: twRuns.map((t, i) => ({ ref: refRuns[i], tw: t })) };
}

// ---- table -------------------------------------------------------------------------------------

const fmt = (x) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(x >= 100 ? 0 : 1) : "n/a");
const ratio = (a, b) => (typeof a === "number" && typeof b === "number" && b > 0 ? (a / b).toFixed(2) : "n/a");

const models = await benchModels();
const rows = [];
const notes = new Set();
for (const model of models) {
  for (const sampling of samplings) {
    process.stderr.write(`running ${model.label}, ${sampling} ...\n`);
    const { ref, tw, rounds } = await measureCell(model, sampling);
    if (ref.error) notes.add(`llama.cpp: ${ref.error}`);
    if (tw?.error) notes.add(`toolwright: ${tw.error}`);
    else if (tw && ref.tokens && sampling === "greedy") {
      const first = tw.tokens.findIndex((t, i) => t !== ref.tokens[i]);
      // Random weights leave near ties, and toolwright decodes generated tokens with ggml's reference CPU kernels
      // (native/reference_kernels.h) where llama.cpp's loop splits a long cache among threads for a lone token.
      const at = Math.max(first, 0);
      if (tw.tokens.length === 0 || first >= 0)
        notes.add(
          `${model.label}, greedy: toolwright's tokens differ from llama.cpp's from token ${at} ` +
            `(${tw.tokens.slice(at, at + 4)} vs ${ref.tokens.slice(at, at + 4)}): a near tie of ` +
            "random weights that kernels differing in the last bits can flip",
        );
    }
    if (opt.json && rounds) {
      const roundRatios = rounds.map((r) => (r.ref.gen_tps > 0 ? +(r.tw.gen_tps / r.ref.gen_tps).toFixed(3) : null));
      console.log(JSON.stringify({ model: model.label, sampling, gen_ratio_by_round: roundRatios }));
    }
    if (opt.json) {
      for (const r of [ref, tw])
        if (r)
          console.log(
            JSON.stringify({
              model: model.label,
              sampling,
              ...r,
              prompt_ids: undefined,
              tokens: undefined,
              text: undefined,
            }),
          );
    }
    // The median of the round-by-round ratios: each compares two runs made back to back, so it is
    // steadier than the ratio of the two medians on a machine whose speed drifts.
    const paired = (key) => {
      const ratios = (rounds ?? []).filter((r) => r.ref[key] > 0 && r.tw[key] > 0).map((r) => r.tw[key] / r.ref[key]);
      return ratios.length > 0 ? median(ratios) : undefined;
    };
    rows.push({
      model: model.label,
      sampling,
      ref,
      tw,
      promptPaired: paired("prompt_tps"),
      genPaired: paired("gen_tps"),
    });
  }
}

const header = [
  "model",
  "sampling",
  "prompt tok/s llama.cpp",
  "toolwright",
  "ratio",
  "per round",
  "gen tok/s llama.cpp",
  "toolwright",
  "ratio",
  "per round",
];
const cell = (r, key) => (r === undefined ? "skipped" : r.error ? "error" : fmt(r[key]));
const perRound = (x) => (x === undefined ? "n/a" : x.toFixed(2));
const table = rows.map(({ model, sampling, ref, tw, promptPaired, genPaired }) => [
  model,
  sampling,
  cell(ref, "prompt_tps"),
  cell(tw, "prompt_tps"),
  ratio(tw?.prompt_tps, ref.prompt_tps),
  perRound(promptPaired),
  cell(ref, "gen_tps"),
  cell(tw, "gen_tps"),
  ratio(tw?.gen_tps, ref.gen_tps),
  perRound(genPaired),
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
const line = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
console.log(
  `\nruntime: ${threads} threads, batch ${batch}, ${gpuLayers} GPU layers, ${promptTokens} prompt tokens, ` +
    `${nGen} generated, ` +
    `median of ${reps} rounds (the engines alternate)`,
);
console.log(line(header));
console.log(widths.map((w) => "-".repeat(w)).join("  "));
for (const r of table) console.log(line(r));
console.log(
  "ratio = toolwright / llama.cpp (1.00 = as fast as llama.cpp's own C++ loop; higher is faster); per " +
    "round = median of each round's ratio (two runs back to back: steadier on a machine whose speed drifts)",
);
const [load] = loadavg();
if (load > availableParallelism())
  notes.add(
    `load average ${load.toFixed(1)} on ${availableParallelism()} cores: other processes compete, timings are noisy`,
  );
for (const note of notes) console.log(`note: ${note}`);
