#!/usr/bin/env node
// Event-loop delay while a model loads and generates (perf_hooks.monitorEventLoopDelay): in an
// Electron main process a blocked loop freezes every window. A wall-clock measure, so a benchmark
// and not a test (test/native/electron-event-loop.test.ts checks, load-independently, that the
// work runs off the JS thread). Run `npm run build:ts` first.
//
//   node scripts/bench/event-loop.mjs [model.gguf]   (default: the qwen2 random-weight test model the
//   native tests generate into .cache/test-models)
import { readdirSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { loadModel } from "../../lib/index.js";

const RESOLUTION_MS = 5;

async function measure(work) {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  histogram.disable();
  return {
    result,
    p50: histogram.percentile(50) / 1e6,
    p99: histogram.percentile(99) / 1e6,
    max: histogram.max / 1e6,
    samples: histogram.count,
    ms,
  };
}

const cache = new URL("../../.cache/test-models/", import.meta.url);
const cached = () => readdirSync(cache).find((f) => f.startsWith("qwen2-notemplate-tiny-"));
const path = process.argv[2] ?? (cached() ? new URL(cached(), cache).pathname : undefined);
if (!path)
  throw new Error("event-loop: give a model path (or run the native tests once to generate the qwen2 test model)");
const load = await measure(async () => {
  const m = await loadModel(path, { onProgress: () => undefined });
  return { m, context: await m.createContext({ contextSize: 512, threads: 1 }) };
});
const generation = await measure(async () => {
  let tokens = 0;
  for await (const _ of load.result.context.generate({
    prompt: "Once upon a time",
    maxTokens: 128,
    sampling: { temperature: 1, seed: 3 },
  }))
    tokens++;
  return tokens;
});
const row = (name, r) =>
  `| ${name} | ${r.ms.toFixed(0)} | ${r.samples} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(1)} |`;
console.log(
  "| phase | ms | samples | p50 delay ms | p99 delay ms | max delay ms |\n| --- | --- | --- | --- | --- | --- |",
);
console.log(row("load", load));
console.log(row(`generate ${generation.result} tokens`, generation));
load.result.context.dispose();
load.result.m.dispose();
