// Worker threads terminated in the middle of a long model.embed() call, and models disposed
// during one: the process must neither crash nor hang (Node lets the thread pool's work finish
// before it tears a worker down, so embed() works in native calls of about one batch), and the
// main thread must still embed afterwards. Each sequence runs in a child process (isolated()).
import { beforeAll, describe, expect, it } from "vitest";
import { describeOutcome, isolated } from "../helpers/isolated.js";
import { workerTestSetup, writeWorkerFile } from "../helpers/worker-script.js";

let libUrl: string;
let path: string;
beforeAll(async () => {
  // Every batch of the 150k-token vocabulary computes 150k logits per token, so a call of
  // thousands of texts runs for minutes if nothing cuts it short.
  ({ libUrl, path } = await workerTestSetup());
});

const starter = (lib: string, model: string) => `
${writeWorkerFile(`(async () => {
  const { loadModel } = await import(workerData.lib);
  const model = await loadModel(workerData.model, { gpu: false });
  await model.embed("warm up");
  parentPort.postMessage("embedding");
  await model.embed(Array.from({ length: 5000 }, (_, i) => "text " + i + " " + "word ".repeat(30)));
  parentPort.postMessage("done");
})();`)}
const cut = () => new Promise((resolve, reject) => {
  const w = new Worker(file, { execArgv: [], workerData: { lib: ${JSON.stringify(lib)},
    model: ${JSON.stringify(model)} } });
  w.on("error", reject);
  w.on("message", (m) => { if (m === "embedding") setTimeout(() => w.terminate().then(resolve), 20);
    if (m === "done") reject(new Error("the embedding finished before the cut")); });
});
const check = async () => {
  const model = await lib.loadModel(${JSON.stringify(model)}, { gpu: false });
  const v = await model.embed("still works");
  model.dispose();
  return v.length;
};
`;

describe("lifecycle: embeddings cut short", () => {
  it("workers terminated mid-embed, three times, then the main thread embeds", async () => {
    const r = await isolated(
      `${starter(libUrl, path)}\nfor (let i = 0; i < 3; i++) await cut();\nreturn await check();`,
      { timeoutMs: 180_000 },
    );
    expect(r.kind, describeOutcome(r)).toBe("returned");
    expect(r.value).toBe(64);
  });

  it("a model disposed mid-embed, one garbage-collected with its embedding context, then main embeds", async () => {
    const body = `
const model = await lib.loadModel(${JSON.stringify(path)}, { gpu: false });
const running = model.embed(Array.from({ length: 2000 }, (_, i) => "text " + i + " " + "word ".repeat(30)));
setTimeout(() => model.dispose(), 20);
const outcome = await running.then(() => "finished", (e) => e.message);
if (!/disposed/.test(outcome)) throw new Error("unexpected: " + outcome);
{ const dropped = await lib.loadModel(${JSON.stringify(path)}, { gpu: false }); await dropped.embed("x"); }
if (globalThis.gc) globalThis.gc();
const again = await lib.loadModel(${JSON.stringify(path)}, { gpu: false });
const v = await again.embed("still works");
again.dispose();
return v.length;`;
    const r = await isolated(body, { timeoutMs: 180_000 });
    expect(r.kind, describeOutcome(r)).toBe("returned");
    expect(r.value).toBe(64);
  });
});
