/**
 * `toolwright rpc-server` children and RPC clients in child processes, for the RPC tests on loopback
 * (test/native/rpc.test.ts) and across network namespaces (rpc-netns.test.ts). A `prefix` runs a
 * process elsewhere, e.g. `["ip", "netns", "exec", name]`: both ends are the compiled package (lib/).
 *
 * A client that loses a server runs in its own process, since after a loss RPC cannot be used again in
 * that process (the addon parks ggml-rpc's aborting thread; see native/rpc.cc).
 */
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { join } from "node:path";
import { expect } from "vitest";
import { loadModel } from "../../src/index.js";
import { REPO_ROOT } from "./test-models.js";

export const CLI = join(REPO_ROOT, "lib", "cli", "main.js");
const LIB_INDEX = join(REPO_ROOT, "lib", "index.js");

/** How a child process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Resolves once the child has exited (at once when it already has). */
export function exitOf(child: ChildProcess): Promise<Exit> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

// Every child these helpers started that has not exited yet (killAll's).
const running = new Set<ChildProcess>();

/** Runs `node ...argv` behind `prefix` (`ip netns exec NAME` execs it: the child's pid is node's). */
function spawnNode(prefix: readonly string[], argv: readonly string[], options: SpawnOptions): ChildProcess {
  const command = [...prefix, process.execPath, ...argv];
  const child = spawn(command[0]!, command.slice(1), options);
  if (running.size === 0) process.once("exit", killAll);
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
}

/** Kills (SIGKILL) every server and client these helpers started that still runs: a hung client too. */
export function killAll(): void {
  for (const child of running) child.kill("SIGKILL");
}

/** A running `toolwright rpc-server` child. */
export interface Served {
  child: ChildProcess;
  endpoint: string;
  stderr: () => string;
}

/**
 * Starts `toolwright rpc-server --host H --port N --threads 1` (behind `prefix`) and resolves once it says it
 * serves. ggml's server thread listens a moment later: a client waits until it accepts (`untilAccepting`).
 */
export async function spawnRpcServer(host: string, port: number, prefix: string[] = []): Promise<Served> {
  const argv = [CLI, "rpc-server", "--host", host, "--port", String(port), "--threads", "1"];
  const child = spawnNode(prefix, argv, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  const serving = new Promise<void>((resolve, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes("serving on")) resolve();
    });
    child.once("exit", (code, signal) => reject(new Error(`rpc-server exited (${code ?? signal}): ${stderr}`)));
    child.once("error", reject);
  });
  await serving;
  return { child, endpoint: `${host}:${port}`, stderr: () => stderr };
}

/**
 * Greedy tokens of `prompt` (24 of them) from a model loaded in this process, and where its layers went.
 *
 * @example
 * const { tokens } = await greedyTokens(path, { gpu: false, rpcServers: ["127.0.0.1:50052"] }, "Hello");
 */
export async function greedyTokens(
  path: string,
  options: Parameters<typeof loadModel>[1],
  prompt: string,
): Promise<{ tokens: number[]; placement: unknown }> {
  await using model = await loadModel(path, options);
  await using context = await model.createContext({ contextSize: 256, threads: 1 });
  const tokens: number[] = [];
  for await (const t of context.generate({ prompt, maxTokens: 24, sampling: { greedy: true } })) tokens.push(t.token);
  return { tokens, placement: model.placement };
}

// The start of every client script: the package, and a wait until each endpoint accepts connections
// (a probe connection that closes at once; the server then serves the next client).
const CLIENT_PRELUDE = `
  import { connect } from "node:net";
  import { loadModel, ToolwrightError } from ${JSON.stringify(LIB_INDEX)};
  const accepts = (endpoint) => new Promise((resolve) => {
    const [host, port] = endpoint.split(":");
    const socket = connect(Number(port), host, () => { socket.destroy(); resolve(true); });
    socket.once("error", () => resolve(false));
  });
  const untilAccepting = async (endpoints) => {
    for (const endpoint of endpoints) while (!(await accepts(endpoint))) await new Promise((r) => setTimeout(r, 50));
  };
  const classOf = (e) => (e instanceof ToolwrightError ? e.name : "not a ToolwrightError: " + e?.name) + " " + e?.code;
  const [path, ...endpoints] = process.argv.slice(1);
  await untilAccepting(endpoints);
`;

// Greedy tokens with every layer on the servers, as greedyTokens does in process.
const GREEDY_CLIENT = `${CLIENT_PRELUDE}
  const model = await loadModel(path, { gpu: false, rpcServers: endpoints });
  const context = await model.createContext({ contextSize: 256, threads: 1 });
  const tokens = [];
  for await (const t of context.generate({ prompt: process.env.PROMPT, maxTokens: 24, sampling: { greedy: true } }))
    tokens.push(t.token);
  const devices = model.placement.devices.map((d) => [d.backend, d.description]);
  await context[Symbol.asyncDispose]();
  await model[Symbol.asyncDispose]();
  process.send(JSON.stringify({ tokens, devices }));
`;

// Generates until its 4th token, asks the parent to cut a server off ("cut"), waits for "done", and goes on:
// the next token needs that server. With CUT=between it cuts after a 4-token generation has ended, so no
// request is on the way, and the next generation needs the server. Then it tries the context, a new context,
// a new RPC load and a local one.
const CUT_CLIENT = `${CLIENT_PRELUDE}
  const [keep] = endpoints;
  const model = await loadModel(path, { gpu: false, rpcServers: endpoints });
  const context = await model.createContext({ contextSize: 512, threads: 1 });
  const sampling = { greedy: true };
  const cut = () => new Promise((done) => { process.once("message", done); process.send("cut"); });
  const between = process.env.CUT === "between";
  const out = { tokens: 0 };
  try {
    if (between) {
      for await (const t of context.generate({ prompt: "Hello", maxTokens: 4, sampling })) out.tokens++;
      await cut();
    }
    for await (const t of context.generate({ prompt: "Once upon a time", maxTokens: 400, sampling }))
      if (++out.tokens === 4 && !between) await cut();
  } catch (e) {
    out.failedAt = Date.now();
    out.error = { code: e.code, message: e.message, class: classOf(e), causeCode: e.cause?.code };
  }
  try { await context.generate({ prompt: "again", maxTokens: 2 }).text(); } catch (e) { out.again = classOf(e); }
  try { await model.createContext({ contextSize: 256 }); } catch (e) { out.newContext = classOf(e); }
  try { await loadModel(path, { rpcServers: [keep] }); } catch (e) { out.reload = classOf(e); }
  await context[Symbol.asyncDispose]();
  await model[Symbol.asyncDispose]();
  out.local = (await loadModel(path, { gpu: false })).info.layerCount;
  process.send(JSON.stringify(out));
`;

/** A client child process: how it ended, what it reported (JSON through IPC) and its stderr. */
export interface ClientRun<Report> {
  exit: Exit;
  report: Report | undefined;
  stderr: string;
}

/** Runs a client script in a child (behind `prefix`); `onMessage` gets its other IPC messages with a reply. */
async function runClient<Report>(
  script: string,
  args: string[],
  options: { prefix?: string[]; env?: Record<string, string>; onMessage?: (m: unknown, child: ChildProcess) => void },
): Promise<ClientRun<Report>> {
  const argv = ["--input-type=module", "-e", script, ...args];
  const child = spawnNode(options.prefix ?? [], argv, {
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    env: { ...process.env, ...options.env },
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  let report: Report | undefined;
  child.on("message", (m) => {
    if (typeof m === "string" && m.startsWith("{")) report = JSON.parse(m) as Report;
    else options.onMessage?.(m, child);
  });
  const exit = await exitOf(child);
  return { exit, report, stderr };
}

/** Greedy tokens of `prompt` from a client child with every layer on `endpoints`, and its devices. */
export function greedyTokensInChild(
  modelPath: string,
  endpoints: string[],
  prompt: string,
  prefix: string[] = [],
): Promise<ClientRun<{ tokens: number[]; devices: [string, string][] }>> {
  return runClient(GREEDY_CLIENT, [modelPath, ...endpoints], { prefix, env: { PROMPT: prompt } });
}

/** What the cut client saw: the generation's error, and each later attempt's error class and code. */
export interface CutReport {
  tokens: number;
  error?: { code: string; message: string; class: string; causeCode: string };
  /** When the generation failed (Date.now() in the client: the same clock as this process's). */
  failedAt?: number;
  again?: string;
  newContext?: string;
  reload?: string;
  local?: number;
}

/**
 * Runs a client on `[keep, victim]` that generates 400 tokens and, after its 4th, has `cut` cut the victim off
 * (kill it, take the link down); it goes on once `cut` resolves. `when: "between"` cuts after a generation of
 * 4 tokens has ended instead, when no request is on the way.
 */
export function generateThroughCut(
  modelPath: string,
  keep: string,
  victim: string,
  cut: () => Promise<void>,
  options: { prefix?: string[]; when?: "mid-generation" | "between" } = {},
): Promise<ClientRun<CutReport>> {
  return runClient<CutReport>(CUT_CLIENT, [modelPath, keep, victim], {
    prefix: options.prefix,
    env: options.when === "between" ? { CUT: "between" } : {},
    onMessage: (m, child) => {
      if (m === "cut") void cut().then(() => child.send("done"));
    },
  });
}

/**
 * Asserts that a cut client's generation ended with TOOLWRIGHT_RPC_LOST (not a crash, not a hang) and that
 * the process went on: its context, new contexts and new RPC loads say the same; local models still load.
 */
export function expectRpcLost(run: ClientRun<CutReport>): void {
  const { exit, report, stderr } = run;
  expect(exit, stderr).toEqual({ code: 0, signal: null });
  expect(report, stderr).toBeDefined();
  const error = report!.error;
  expect(error?.code, stderr).toBe("TOOLWRIGHT_RPC_LOST");
  expect(error!.message).toMatch(/RPC server/);
  // The addon's error, mapped to toolwright's class at the runtime boundary (kept as the cause).
  expect(error!.class).toBe("ToolwrightError TOOLWRIGHT_RPC_LOST");
  expect(error!.causeCode).toBe("TOOLWRIGHT_RPC_LOST");
  expect(report!.tokens).toBeGreaterThanOrEqual(4);
  expect(report!.tokens).toBeLessThan(400);
  expect(report!.again).toBe("ToolwrightError TOOLWRIGHT_RPC_LOST");
  expect(report!.newContext).toBe("ToolwrightError TOOLWRIGHT_RPC_LOST");
  expect(report!.reload).toBe("ModelLoadError TOOLWRIGHT_RPC_LOST");
  expect(report!.local).toBe(2);
}
