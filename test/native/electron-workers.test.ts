// The addon in several JavaScript environments of one process, as Electron apps use it (main
// process + worker threads, or a renderer reload): it must be context-aware (per-environment
// N-API instance data, no shared mutable JS state), load in two workers AT ONCE, generate in
// both concurrently, give the same tokens as the main thread, and survive a worker that is
// terminated in the middle of a generation.
//
// Workers run the compiled package (lib/), as an installed app would.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, expect, test } from "vitest";
import { loadModel, type Model } from "../../src/index.js";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import { ensureTestModel } from "../helpers/test-models.js";

const PROMPT = "The quick brown fox";
const MAX_TOKENS = 48;
const CONTEXT = { contextSize: 256, threads: 1 } as const;

/** Worker body (CommonJS, eval'd): load, wait at the barrier, generate greedily, report. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
(async () => {
  const { loadModel } = await import(workerData.libUrl);
  const model = await loadModel(workerData.modelPath);
  const context = await model.createContext(workerData.context);
  // Barrier: every worker has loaded before any generates, so the generations overlap.
  const barrier = new Int32Array(workerData.barrier);
  Atomics.add(barrier, 0, 1);
  Atomics.notify(barrier, 0);
  while (Atomics.load(barrier, 0) < workerData.parties) Atomics.wait(barrier, 0, Atomics.load(barrier, 0), 50);
  const started = performance.timeOrigin + performance.now();
  const tokens = [];
  for await (const chunk of context.generate({ prompt: workerData.prompt, maxTokens: workerData.maxTokens, sampling: {
    greedy: true } })) {
    tokens.push(chunk.token);
    if (workerData.announceFirstToken && tokens.length === 1) parentPort.postMessage({ type: "first-token" });
  }
  const finished = performance.timeOrigin + performance.now();
  model.dispose();
  parentPort.postMessage({ type: "done", tokens, started, finished });
})().catch((e) => parentPort.postMessage({ type: "error", message: String(e && e.stack || e) }));
`;

interface WorkerResult {
  tokens: number[];
  started: number;
  finished: number;
}

let libUrl: string;
let modelPath: string;
let model: Model;
let expected: number[];

beforeAll(async () => {
  libUrl = pathToFileURL(join(await ensureCompiledLib(), "index.js")).href;
  modelPath = await ensureTestModel({ vocab: "llama-spm" });
  model = await loadModel(modelPath);
  const context = await model.createContext(CONTEXT);
  expected = [];
  for await (const chunk of context.generate({ prompt: PROMPT, maxTokens: MAX_TOKENS, sampling: { greedy: true } }))
    expected.push(chunk.token);
});
afterAll(() => model?.dispose());

function startWorker(
  barrier: SharedArrayBuffer,
  parties: number,
  announceFirstToken = false,
): { worker: Worker; done: Promise<WorkerResult>; firstToken: Promise<void> } {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      libUrl,
      modelPath,
      context: CONTEXT,
      prompt: PROMPT,
      maxTokens: MAX_TOKENS,
      barrier,
      parties,
      announceFirstToken,
    },
  });
  let onFirst!: () => void;
  const firstToken = new Promise<void>((r) => (onFirst = r));
  const done = new Promise<WorkerResult>((resolve, reject) => {
    worker.on("message", (m: { type: string; message?: string } & WorkerResult) => {
      if (m.type === "first-token") onFirst();
      else if (m.type === "done") resolve(m);
      else if (m.type === "error") reject(new Error(`worker failed: ${m.message}`));
    });
    worker.on("error", reject);
    worker.on("exit", (code) => reject(new Error(`worker exited with code ${code} before finishing`)));
  });
  return { worker, done, firstToken };
}

test("two worker threads load the addon and generate at the same time, matching the main thread", async () => {
  expect(expected.length).toBeGreaterThan(0);
  const barrier = new SharedArrayBuffer(4);
  const a = startWorker(barrier, 2);
  const b = startWorker(barrier, 2);
  try {
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect(ra.tokens).toEqual(expected);
    expect(rb.tokens).toEqual(expected);
    // The two generations overlapped in time: each started before the other finished.
    expect(ra.started).toBeLessThan(rb.finished);
    expect(rb.started).toBeLessThan(ra.finished);
  } finally {
    await Promise.all([a.worker.terminate(), b.worker.terminate()]);
  }
});

test("terminating a worker mid-generation leaves the process and the main thread's model working", async () => {
  const barrier = new SharedArrayBuffer(4);
  const w = startWorker(barrier, 1, true);
  w.done.catch(() => undefined); // it is terminated before it finishes
  await w.firstToken;
  const exitCode = await w.worker.terminate();
  expect(exitCode).toBe(1); // terminate() reports 1 for a thread stopped from outside

  // A new worker still loads the addon, and the main thread still generates.
  const again = startWorker(new SharedArrayBuffer(4), 1);
  try {
    expect((await again.done).tokens).toEqual(expected);
  } finally {
    await again.worker.terminate();
  }
  const context = await model.createContext(CONTEXT);
  const tokens: number[] = [];
  for await (const chunk of context.generate({ prompt: PROMPT, maxTokens: MAX_TOKENS, sampling: { greedy: true } }))
    tokens.push(chunk.token);
  expect(tokens).toEqual(expected);
  context.dispose();
});

test("terminating workers while they load the addon and a model does not abort the process", async () => {
  // Loads with a progress callback (a thread-safe function) and a big (150k-token) vocabulary,
  // so the termination lands in module init, in the load, or in its completion.
  const big = await ensureTestModel({ vocab: "qwen2" });
  const source = `
    const { parentPort, workerData } = require("node:worker_threads");
    (async () => {
      const { loadModel } = await import(workerData.libUrl);
      parentPort.postMessage("imported");
      const model = await loadModel(workerData.modelPath, { onProgress: () => {} });
      await model.createContext(workerData.context);
      parentPort.postMessage("loaded");
    })();
  `;
  for (const delayMs of [0, 5, 30, 120]) {
    const worker = new Worker(source, { eval: true, workerData: { libUrl, modelPath: big, context: CONTEXT } });
    await new Promise<void>((resolve, reject) => {
      worker.on("message", (m) => m === "imported" && resolve());
      worker.on("error", reject);
    });
    await new Promise((r) => setTimeout(r, delayMs));
    await worker.terminate();
  }
  // Still alive, and the addon still works here.
  const context = await model.createContext(CONTEXT);
  const first = await context.generate({ prompt: PROMPT, maxTokens: 4, sampling: { greedy: true } }).text();
  expect(typeof first).toBe("string");
  context.dispose();
});

// A context's own thread must end with the worker's environment, even when the worker is
// terminated while that thread decodes a token ahead: after the environment is gone the addon's
// code may be unloaded, so no thread of it may still run.
test.runIf(existsSync("/proc/self/task"))(
  "terminating a worker mid-generation leaves none of its threads behind",
  async () => {
    // Thread ids, not a count: other threads of the process may end meanwhile.
    const threads = () => new Set(readdirSync("/proc/self/task"));
    for (let i = 0; i < 3; i++) {
      const before = threads();
      const w = startWorker(new SharedArrayBuffer(4), 1, true);
      w.done.catch(() => undefined);
      await w.firstToken;
      expect([...threads()].filter((t) => !before.has(t)).length).toBeGreaterThan(0); // the worker's own
      await w.worker.terminate();
      // terminate() resolves once the worker's thread has exited, so its environment's cleanup ran.
      expect(await threadsStillRunning(before)).toEqual([]);
    }
  },
);

/** `/proc/self/task/ID/status` as a map, or undefined once the thread is gone. */
function threadStatus(id: string): Map<string, string> | undefined {
  try {
    const text = readFileSync(`/proc/self/task/${id}/status`, "utf8");
    return new Map(
      text.split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()]),
    );
  } catch {
    return undefined;
  }
}

/**
 * Threads started since `before` that can still run user code, as "id name state". A joined thread
 * is still listed for a moment while the kernel finishes its exit, and under load that moment is
 * long: one that has let go of the address space (no VmSize line) runs no code of ours again, and
 * the others get a few turns to finish exiting before they count as left behind.
 */
async function threadsStillRunning(before: Set<string>): Promise<string[]> {
  let left: string[] = [];
  for (let turn = 0; turn < 100; turn++) {
    left = [];
    for (const id of readdirSync("/proc/self/task")) {
      const status = before.has(id) ? undefined : threadStatus(id);
      if (status?.has("VmSize")) left.push(`${id} ${status.get("Name")} ${status.get("State")}`);
    }
    if (left.length === 0) return left;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return left;
}
