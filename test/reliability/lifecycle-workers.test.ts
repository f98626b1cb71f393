// Worker threads terminated in the middle of loading a model (an Electron renderer reloading, a
// pool shrinking): the process must neither crash nor hang, and the main thread must still load
// and generate afterwards. Each sequence runs in a child process (isolated()).
import { beforeAll, describe, expect, it } from "vitest";
import { describeOutcome, isolated } from "../helpers/isolated.js";
import { workerTestSetup, writeWorkerFile } from "../helpers/worker-script.js";

let libUrl: string;
let path: string;
beforeAll(async () => {
  ({ libUrl, path } = await workerTestSetup());
});

/** Starts a worker that loads the model (and generates when `generate`), reporting progress. */
const starter = (lib: string, model: string) => `
${writeWorkerFile(`(async () => {
  const { loadModel } = await import(workerData.lib);
  parentPort.postMessage("importing-done");
  const model = await loadModel(workerData.model, { onProgress: (p) => parentPort.postMessage("progress") });
  parentPort.postMessage("loaded");
  if (workerData.generate) {
    const ctx = await model.createContext({ contextSize: 256, threads: 1 });
    for await (const _ of ctx.generate({ prompt: "Once", maxTokens: 200 })) parentPort.postMessage("token");
  }
  parentPort.postMessage("done");
})();`)}
const start = (generate = false) => new Worker(file, { execArgv: [], workerData: { lib: ${JSON.stringify(lib)},
  model: ${JSON.stringify(model)}, generate } });
/** Terminates the worker at the first message \`when\` (or at once); returns what it had sent. */
const cut = (when, generate = false) => new Promise((resolve) => {
  const w = start(generate);
  const seen = new Set();
  let ended = false;
  const end = () => { if (!ended) { ended = true; w.terminate().then((code) => resolve({ code, seen: [...seen] })); } };
  if (when === "at-once") end();
  w.on("message", (m) => { seen.add(m); if (m === when) end(); });
  w.on("error", (e) => { seen.add("error:" + e.message); end(); });
  w.on("exit", () => { if (!ended) { ended = true; resolve({ code: null, seen: [...seen] }); } });
});
const check = async () => {
  const model = await lib.loadModel(${JSON.stringify(model)});
  const ctx = await model.createContext({ contextSize: 256, threads: 1 });
  const text = await ctx.generate({ prompt: "Once", maxTokens: 8 }).text();
  model.dispose();
  return typeof text;
};
`;

// Each cut must have happened where it says: the worker sent that message and no error.
const cuts = (when: string, times: number, generate = false) =>
  `for (let i = 0; i < ${times}; i++) { const r = await cut(${JSON.stringify(when)}, ${generate}); if ` +
  `(${JSON.stringify(when)} !== "at-once" && !r.seen.includes(${JSON.stringify(when)}) ` +
  `|| r.seen.some((m) => m.startsWith("error:"))) throw new Error("cut ${when}: saw " ` +
  `+ r.seen.join(", ")); }`;
const sequences: { name: string; body: string }[] = [
  { name: "terminated before it starts", body: cuts("at-once", 4) },
  { name: "terminated once the package is imported (load about to start)", body: cuts("importing-done", 4) },
  { name: "terminated at the first load progress", body: cuts("progress", 4) },
  { name: "terminated once loaded", body: cuts("loaded", 3) },
  { name: "terminated mid-generation", body: cuts("token", 3, true) },
  {
    name: "terminated after a delay, several at once",
    body:
      `const delays = [1, 5, 20, 50, 100, 200]; await Promise.all(delays.map((ms) => new Promise((resolve) ` +
      `=> { const w = start(); w.on("error", () => undefined); setTimeout(() => ` +
      `w.terminate().then(resolve), ms); })));`,
  },
];

describe("lifecycle: workers terminated mid-load", () => {
  it.each(sequences)("$name, then the main thread loads and generates", async ({ body }) => {
    const r = await isolated(`${starter(libUrl, path)}\n${body}\nreturn await check();`, { timeoutMs: 180_000 });
    expect(r.kind, describeOutcome(r)).toBe("returned");
    expect(r.value).toBe("string");
  });
});
