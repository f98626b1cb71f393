/**
 * For lifecycle tests of worker threads run in a child process (isolated()): the code that puts a
 * worker's module in a temporary file, and what such tests load.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ensureCompiledLib } from "./compiled-lib.js";
import { ensureTestModel } from "./test-models.js";

/**
 * Code for an isolated() body: imports `Worker`, and writes `workerSource` (an ES module run in a
 * worker thread; `parentPort` and `workerData` are imported for it) to a temporary file whose path
 * is the constant `file`.
 */
export function writeWorkerFile(workerSource: string): string {
  const module = `import { parentPort, workerData } from "node:worker_threads";\n${workerSource}`;
  return `
const { Worker } = await import("node:worker_threads");
const { mkdtempSync, writeFileSync } = await import("node:fs");
const { tmpdir } = await import("node:os");
const { join } = await import("node:path");
const file = join(mkdtempSync(join(tmpdir(), "tw-worker-")), "worker.mjs");
writeFileSync(file, ${JSON.stringify(module)});
`;
}

/**
 * The compiled package's URL (what a worker imports) and the qwen2-vocabulary test model: with
 * 150k tokens, loading it and embedding with it take long enough to be cut at many points.
 */
export async function workerTestSetup(): Promise<{ libUrl: string; path: string }> {
  const libUrl = pathToFileURL(join(await ensureCompiledLib(), "index.js")).href;
  return { libUrl, path: await ensureTestModel({ vocab: "qwen2" }) };
}
