/**
 * Backpressure on parallel contexts (native/batch_scheduler.h): a generation runs at most
 * READ_AHEAD tokens ahead of its reader. A reader that stops reading pauses its sequence (the
 * others go on), reading on resumes it with the tokens it would have given anyway, an abort or a
 * dropped iterator ends it, and a paused generation keeps no process alive.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, type Generation, loadModel, type Model } from "../../src/index.js";
import { READ_AHEAD } from "../../src/runtime/sequence-generation.js";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import { isolated } from "../helpers/isolated.js";
import { ensureTestModel } from "../helpers/test-models.js";

let model: Model;
let context: Context;
let path: string;

beforeAll(async () => {
  path = await ensureTestModel({ vocab: "llama-spm" });
  model = await loadModel(path);
  context = await model.createContext({ contextSize: 1024, threads: 1, sequences: 2 });
});

afterAll(() => model?.dispose());

const GREEDY = { greedy: true } as const;
const LONG = 300;

/** Waits (without a time bound: the test's timeout bounds a hang) until `ready` holds. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((r) => setTimeout(r, 5));
}

async function tokensOf(
  generation: Generation | AsyncIterator<{ token: number }>,
  first: number[] = [],
): Promise<number[]> {
  const out = [...first];
  const it = Symbol.asyncIterator in generation ? (generation as Generation)[Symbol.asyncIterator]() : generation;
  for (let next = await it.next(); !next.done; next = await it.next()) out.push(next.value.token);
  return out;
}

describe("a reader that stops reading", () => {
  test("pauses its sequence while another runs to the end; reading on gives the tokens it gives alone", async () => {
    const prompt = "Once upon a time";
    const alone = await tokensOf(context.generate({ prompt, maxTokens: LONG, sampling: GREEDY, reusePrefix: false }));
    expect(alone).toHaveLength(LONG);
    const sampledBefore = context.native.stats().sampledTokens;

    const slow = context.generate({ prompt, maxTokens: LONG, sampling: GREEDY, reusePrefix: false });
    const it = slow[Symbol.asyncIterator]();
    const first = await it.next();
    await until(() => context.native.stats().requestsPaused === 1);
    // The other sequence runs a whole generation meanwhile; the paused one stays where it was.
    const other = await tokensOf(
      context.generate({ prompt: "The weather today is", maxTokens: 64, sampling: GREEDY, reusePrefix: false }),
    );
    expect(other).toHaveLength(64);
    expect(context.native.stats().requestsPaused).toBe(1);
    expect(context.native.stats().sampledTokens - sampledBefore).toBe(64 + 1 + READ_AHEAD);

    expect(await tokensOf(it, [first.value!.token])).toEqual(alone);
    expect(slow.stopReason).toBe("maxTokens");
    expect(context.native.stats()).toMatchObject({ requestsRunning: 0, requestsPaused: 0 });
  });

  test("an abort ends a paused generation without another read", async () => {
    const ac = new AbortController();
    const g = context.generate({ prompt: "Dear diary,", maxTokens: LONG, sampling: GREEDY, signal: ac.signal });
    const it = g[Symbol.asyncIterator]();
    await it.next();
    await until(() => context.native.stats().requestsPaused === 1);
    ac.abort();
    await until(() => context.native.stats().requestsRunning === 0);
    // What was generated before the abort is still there to read; then it ends as aborted.
    const rest = await tokensOf(it);
    expect(rest.length).toBeLessThanOrEqual(READ_AHEAD);
    expect(g.stopReason).toBe("abort");
  });

  test("returning the iterator ends a paused generation and frees its sequence", async () => {
    const g = context.generate({ prompt: "In the beginning", maxTokens: LONG, sampling: GREEDY });
    const it = g[Symbol.asyncIterator]();
    await it.next();
    await until(() => context.native.stats().requestsPaused === 1);
    await it.return!(undefined);
    expect(context.native.stats()).toMatchObject({ requestsRunning: 0, requestsPaused: 0 });
  });
});

describe("a generation nobody reads any more", () => {
  test("ends when its dropped iterator is garbage-collected, freeing its sequence", async () => {
    const body = `const v8 = await import("node:v8");
      const vm = await import("node:vm");
      v8.setFlagsFromString("--expose-gc");
      const gc = vm.runInNewContext("gc");
      const model = await lib.loadModel(${JSON.stringify(path)});
      const ctx = await model.createContext({ contextSize: 1024, threads: 1, sequences: 2 });
      const stats = () => ctx.native.stats();
      // Both sequences taken by readers that read one token each and drop their iterators.
      await (async () => {
        for (const prompt of ["Once upon a time", "Dear diary,"]) {
          await ctx.generate({ prompt, maxTokens: ${LONG}, sampling: { greedy: true } })[Symbol.asyncIterator]().next();
        }
      })();
      while (stats().requestsPaused < 2) await new Promise((r) => setTimeout(r, 5));
      const paused = stats().requestsPaused;
      while (stats().requestsRunning > 0) { gc(); await new Promise((r) => setTimeout(r, 10)); }
      // The sequences are free: a new generation runs to the end.
      let n = 0;
      for await (const _t of ctx.generate({ prompt: "Lists:", maxTokens: 8 })) n++;
      return { paused, generated: n };`;
    const r = await isolated(body, { timeoutMs: 120_000 });
    expect(r.kind, `${r.kind}: ${JSON.stringify(r.error ?? r.value)} ${r.stderr}`).toBe("returned");
    expect(r.value).toEqual({ paused: 2, generated: 8 });
  });

  test("a paused generation keeps no process alive", async () => {
    const lib = await ensureCompiledLib();
    const script = `const lib = await import(${JSON.stringify(pathToFileURL(join(lib, "index.js")).href)});
      const model = await lib.loadModel(${JSON.stringify(path)});
      const ctx = await model.createContext({ contextSize: 1024, threads: 1, sequences: 2 });
      const it = ctx.generate({ prompt: "Once upon a time", maxTokens: ${LONG} })[Symbol.asyncIterator]();
      await it.next();
      while (ctx.native.stats().requestsPaused < 1) await new Promise((r) => setTimeout(r, 5));
      globalThis.keep = it; // still referenced: not collected, just not read
      process.on("exit", () => process.stdout.write("exited with the generation paused\\n"));`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    // A hang (the generation keeping the event loop alive) is killed, and fails below.
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    clearTimeout(timer);
    expect(out).toContain("exited with the generation paused");
    expect(code).toBe(0);
  }, 180_000);
});
