// Event-loop delay while a model loads and generates, measured with
// perf_hooks.monitorEventLoopDelay: in an Electron main process a blocked loop freezes every
// window, so the heavy work must stay on other threads.
//
// Bound (docs/electron.md): p99 event-loop delay < 50 ms during load and during generation, on a
// 2-core machine shared with another test file. A blocking call would show as delays of the
// call's length: loading this 150k-token vocabulary takes ~1 s, decoding a token several ms.
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { afterAll, expect, test } from "vitest";
import { loadModel, type Model } from "../../src/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

const P99_BOUND_MS = 50;
/** Sampling period of the monitor: fine enough that a stall of the bound's length cannot hide. */
const RESOLUTION_MS = 5;

let model: Model | undefined;
afterAll(() => model?.dispose());

async function measure<T>(work: () => Promise<T>): Promise<{ result: T; p99: number; max: number; samples: number; ms: number }> {
  const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  histogram.disable();
  return { result, p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6, samples: histogram.count, ms };
}

test(`event-loop delay p99 < ${P99_BOUND_MS} ms while loading a model and while generating`, async () => {
  const path = await ensureTestModel({ vocab: "qwen2" });

  const load = await measure(async () => {
    const m = await loadModel(path, { onProgress: () => undefined });
    return { m, context: await m.createContext({ contextSize: 512, threads: 1 }) };
  });
  model = load.result.m;
  // The load must have been long enough for the monitor to see a blocked loop.
  expect(load.samples).toBeGreaterThan(5);
  expect(load.p99, `load: p99 ${load.p99.toFixed(1)} ms, max ${load.max.toFixed(1)} ms over ${load.ms.toFixed(0)} ms`).toBeLessThan(P99_BOUND_MS);

  const generation = await measure(async () => {
    let tokens = 0;
    const stream = load.result.context.generate({ prompt: "Once upon a time", maxTokens: 128, sampling: { temperature: 1, seed: 3 } });
    for await (const _ of stream) tokens++;
    return tokens;
  });
  expect(generation.result).toBeGreaterThan(16);
  expect(generation.samples).toBeGreaterThan(5);
  expect(generation.p99, `generation: p99 ${generation.p99.toFixed(1)} ms, max ${generation.max.toFixed(1)} ms over ${generation.ms.toFixed(0)} ms`).toBeLessThan(P99_BOUND_MS);
});
