// The window between a step settling and its token's decode-ahead ending (issue 16): dispose the
// context or the model at every token index of a short generation, with and without an abort
// first, from two paths at once, and exit the process right after the dispose. A dispose during a
// decode-ahead frees the context on the context's own thread; the process must neither crash
// there nor exit while that thread still runs llama.cpp code. Each sequence runs in a child
// process (isolated()).
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import { describeOutcome, isolated } from "../helpers/isolated.js";
import { ensureTestModel } from "../helpers/test-models.js";

let path: string;
beforeAll(async () => {
  path = await ensureTestModel({ vocab: "llama-spm" });
});

/** Token indices a dispose happens at (the step that settled just before, 1-based). */
const INDICES = [1, 2, 3, 4, 5, 6, 7, 8];
/** Indices the process exits at right after the dispose (one child each). */
const EXIT_INDICES = [1, 2, 3, 5];
const MAX_TOKENS = 10;

/**
 * `disposeAt(i, model, ctx, ac)` runs when the i-th token arrives; each variant names what it
 * disposes. The body returns, per index, whether the generation stopped early and how.
 */
const sweep = (p: string, disposeAt: string, freshModel: boolean) => `
const errorOf = async (f) => { try { await f(); return null; } catch (e) { return e?.code ?? e?.name ?? "error"; } };
let model = await lib.loadModel(${JSON.stringify(p)});
const out = [];
for (const at of ${JSON.stringify(INDICES)}) {
  if (${freshModel} && model.disposed) model = await lib.loadModel(${JSON.stringify(p)});
  const ctx = await model.createContext({ contextSize: 256, threads: 2 });
  const ac = new AbortController();
  const g = ctx.generate({ prompt: "Once", maxTokens: ${MAX_TOKENS}, sampling: { greedy: true }, signal: ac.signal });
  let n = 0;
  await errorOf(async () => { for await (const _ of g) if (++n === at) { ${disposeAt} } });
  out.push({ at, n, ctx: ctx.disposed });
  ctx.dispose();
}
return out;`;

const variants: { name: string; disposeAt: string; freshModel: boolean }[] = [
  { name: "the context", disposeAt: "ctx.dispose();", freshModel: false },
  { name: "the context after an abort", disposeAt: "ac.abort(); ctx.dispose();", freshModel: false },
  { name: "the model before the context", disposeAt: "model.dispose(); ctx.dispose();", freshModel: true },
  {
    name: "the context twice and the model, in one tick",
    disposeAt: "ctx.dispose(); model.dispose(); ctx.dispose();",
    freshModel: true,
  },
  {
    name: "the context from a timer racing the loop",
    disposeAt: "setImmediate(() => ctx.dispose()); queueMicrotask(() => ctx.dispose());",
    freshModel: false,
  },
];

describe("lifecycle: dispose at every token index", () => {
  it.each(variants)("dispose $name at each index: no crash, the loop ends there", async ({ disposeAt, freshModel }) => {
    const r = await isolated(sweep(path, disposeAt, freshModel), { timeoutMs: 120_000 });
    expect(r.kind, describeOutcome(r)).toBe("returned");
    const rows = r.value as { at: number; n: number; ctx: boolean }[];
    expect(rows.map((row) => row.at)).toEqual(INDICES);
    for (const row of rows) {
      // A generation reaching the index stops within a token of the dispose; one that ended
      // before it (an end-of-generation token) never saw the dispose.
      expect(row.n).toBeLessThanOrEqual(row.at + 1);
      expect(row.ctx).toBe(true);
    }
  });

  // A parallel context: three generations batched together, the context disposed when the first
  // reaches the index; every generation ends (an error or a stop), none hangs.
  it("dispose a parallel context mid-batch at each index: every generation ends", async () => {
    const body = `const model = await lib.loadModel(${JSON.stringify(path)});
      const out = [];
      for (const at of ${JSON.stringify(INDICES)}) {
        const ctx = await model.createContext({ contextSize: 256, threads: 2, sequences: 4 });
        const run = async (prompt, onToken) => { let n = 0; try { for await (const _ of ctx.generate({ prompt,
          maxTokens: ${MAX_TOKENS}, sampling: { greedy: true } })) onToken(++n); return "ended"; } catch {
          return "threw"; } };
        const ends = await Promise.all([run("Once", (n) => { if (n === at) ctx.dispose(); }), run("Twice", () => {}),
          run("Thrice", () => {})]);
        out.push({ at, ctx: ctx.disposed, ends: ends.length });
      }
      return out;`;
    const r = await isolated(body, { timeoutMs: 120_000 });
    expect(r.kind, describeOutcome(r)).toBe("returned");
    expect(r.value).toEqual(INDICES.map((at) => ({ at, ctx: true, ends: 3 })));
  });

  // A worker_thread running a parallel context, terminated while its generations report tokens
  // (their thread-safe functions are torn down with it), then the main thread generates.
  it("terminate a worker mid-batch at several tokens, then generate on the main thread", async () => {
    const libUrl = pathToFileURL(join(await ensureCompiledLib(), "index.js")).href;
    const body = `const { Worker } = await import("node:worker_threads");
      const { mkdtempSync, writeFileSync } = await import("node:fs");
      const { tmpdir } = await import("node:os");
      const { join } = await import("node:path");
      const file = join(mkdtempSync(join(tmpdir(), "tw-seq-")), "worker.mjs");
      writeFileSync(file, \`
        import { parentPort, workerData } from "node:worker_threads";
        const lib = await import(workerData.lib);
        const model = await lib.loadModel(workerData.model);
        const ctx = await model.createContext({ contextSize: 256, threads: 1, sequences: 3 });
        const run = async (p) => { for await (const _ of ctx.generate({ prompt: p,
          maxTokens: 200 })) parentPort.postMessage("token"); };
        await Promise.all([run("a"), run("b"), run("c")]);
        parentPort.postMessage("done");\`);
      const seen = [];
      for (const at of [1, 5, 12, 30]) {
        const w = new Worker(file, { execArgv: [], workerData: { lib: ${JSON.stringify(libUrl)},
          model: ${JSON.stringify(path)} } });
        let n = 0;
        await new Promise((resolve) => { w.on("message", (m) => { if (m === "token" && ++n === at) resolve();
          if (m === "done") resolve(); }); w.on("error", (e) => { seen.push(String(e)); resolve(); }); });
        await w.terminate();
        seen.push(n >= at);
      }
      const model = await lib.loadModel(${JSON.stringify(path)});
      const ctx = await model.createContext({ contextSize: 256, threads: 1, sequences: 2 });
      const text = await ctx.generate({ prompt: "x", maxTokens: 4 }).text();
      return { seen, text: typeof text };`;
    const r = await isolated(body, { timeoutMs: 120_000 });
    expect(r.kind, describeOutcome(r)).toBe("returned");
    expect(r.value).toEqual({ seen: [true, true, true, true], text: "string" });
  });

  // The process exits right after the dispose (isolated() reports and calls process.exit(0)),
  // while the disposed context's thread may still be decoding ahead and freeing it.
  it.each(EXIT_INDICES)("dispose the context at token %i and exit at once: exit code 0", async (at) => {
    const body = `const model = await lib.loadModel(${JSON.stringify(path)});
      const ctx = await model.createContext({ contextSize: 256, threads: 2 });
      let n = 0;
      try { for await (const _ of ctx.generate({ prompt: "Once", maxTokens: ${MAX_TOKENS}, sampling: {
        greedy: true } })) if (++n === ${at}) ctx.dispose(); } catch {}
      return ctx.disposed;`;
    const r = await isolated(body, { timeoutMs: 60_000 });
    expect(r.kind, `${r.kind} (signal ${r.signal}, exit code ${r.exitCode}): ${r.stderr}`).toBe("returned");
    expect(r.value).toBe(true);
  });
});
