// The heavy work of loading and generating runs off the JS thread: in an Electron main process
// a blocked loop freezes every window. Checked without wall-clock bounds (they fail on a loaded
// machine): by construction, and by CPU time, which a busy machine does not inflate.
//
// - Loading and each generation step are asynchronous at the binding (a task or a promise): the
//   JS thread is free while they run, whatever their length.
// - CPU time per thread (Linux /proc): the JS thread's CPU time while a model loads and while it
//   generates is a small part of the process's. A blocking load or decode would put nearly all
//   of it on the JS thread. Latency itself is measured by `node scripts/bench/event-loop.mjs`.
import { existsSync, readFileSync } from "node:fs";
import { afterAll, expect, test } from "vitest";
import { loadModel, type Model } from "../../src/index.js";
import { loadNative } from "../../src/runtime/binding.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: Model | undefined;
afterAll(() => model?.dispose());

/** utime + stime, in clock ticks, of a /proc stat file. */
function cpuTicks(file: string): number {
  const stat = readFileSync(file, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}
const perThread = existsSync("/proc/thread-self/stat");

async function cpuOf<T>(work: () => Promise<T>): Promise<{ result: T; jsThread: number; process: number }> {
  const t0 = perThread ? cpuTicks("/proc/thread-self/stat") : 0;
  const p0 = perThread ? cpuTicks("/proc/self/stat") : 0;
  const result = await work();
  if (!perThread) return { result, jsThread: 0, process: 0 };
  return { result, jsThread: cpuTicks("/proc/thread-self/stat") - t0, process: cpuTicks("/proc/self/stat") - p0 };
}

test("loading is a task the JS thread does not wait on", async () => {
  const path = await ensureTestModel({ vocab: "qwen2" });
  const task = loadNative().Model.load(path, { vocabOnly: false, gpuLayers: 0 }, undefined);
  expect(task.promise).toBeInstanceOf(Promise);
  let settled = false;
  void task.promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  // The call returned before the load finished: a turn of the event loop runs first.
  await new Promise((r) => setImmediate(r));
  expect(settled).toBe(false);
  (await task.promise).dispose();
});

test("the JS thread spends little CPU while a model loads and while it generates", async () => {
  const path = await ensureTestModel({ vocab: "qwen2" });
  const load = await cpuOf(async () => {
    const m = await loadModel(path, { onProgress: () => undefined });
    return { m, context: await m.createContext({ contextSize: 512, threads: 1 }) };
  });
  model = load.result.m;
  const context = load.result.context;
  const generation = await cpuOf(async () => {
    let tokens = 0;
    for await (const _ of context.generate({
      prompt: "Once upon a time",
      maxTokens: 128,
      sampling: { temperature: 1, seed: 3 },
    }))
      tokens++;
    return tokens;
  });
  expect(generation.result).toBe(128);
  // Decoding ran on the context's own thread, ahead of JS, for every step.
  const stats = context.native.stats();
  expect(stats.decodeThreads).toBe(1);
  expect(stats.sampledTokens).toBe(128);
  if (!perThread) return; // no per-thread CPU accounting on this OS
  // Enough work to see where it ran (a tick is 10 ms; this 150k-token vocabulary takes ~300 ms).
  expect(load.process).toBeGreaterThanOrEqual(8);
  expect(load.jsThread * 4, `load: JS thread ${load.jsThread} of ${load.process} ticks`).toBeLessThanOrEqual(
    load.process,
  );
  expect(generation.process).toBeGreaterThanOrEqual(4);
  expect(
    generation.jsThread * 2,
    `generation: JS thread ${generation.jsThread} of ${generation.process} ticks`,
  ).toBeLessThanOrEqual(generation.process);
});
