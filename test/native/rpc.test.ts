/**
 * One model across processes with llama.cpp's RPC backend: two `toolwright rpc-server` child
 * processes on 127.0.0.1 hold the layers of a test model; its greedy tokens equal the local
 * run's. A server killed mid-generation gives TOOLWRIGHT_RPC_LOST, not a crash or a hang (in a
 * child process, since a lost server leaves that process unable to use RPC again).
 */
import { spawn } from "node:child_process";
import { createServer, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadModel, ModelLoadError, serveRpc } from "../../src/index.js";
import { loadNative } from "../../src/runtime/binding.js";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import {
  CLI,
  exitOf,
  expectRpcLost,
  generateThroughCut,
  greedyTokens,
  killAll,
  type Served,
  spawnRpcServer,
} from "../helpers/rpc-servers.js";
import { ensureTestModel } from "../helpers/test-models.js";

const hasRpc = Boolean(loadNative().systemInfo().rpc);
let modelPath: string;

/** A TCP port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something accepts connections on the port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.connect(port, "127.0.0.1");
  });
}

/** Starts `toolwright rpc-server` on a free port and waits until it accepts connections. */
async function startServer(): Promise<Served> {
  const served = await spawnRpcServer("127.0.0.1", await freePort());
  const port = Number(served.endpoint.split(":")[1]);
  while (!(await accepts(port))) {
    if (served.child.exitCode !== null) throw new Error(`rpc-server exited with ${served.child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return served;
}

beforeAll(async () => {
  await ensureCompiledLib();
  modelPath = await ensureTestModel({ vocab: "llama-spm", template: "Qwen-Qwen3-0.6B" });
}, 300_000);

afterAll(killAll);

describe.skipIf(!hasRpc)("a model split across two rpc-servers", () => {
  let a: Served;
  let b: Served;
  beforeAll(async () => {
    [a, b] = await Promise.all([startServer(), startServer()]);
  }, 120_000);

  test("places every layer on the servers, in order, and generates the local run's greedy tokens", async () => {
    const prompt = "The weather in Paris today is";
    const local = await greedyTokens(modelPath, { gpu: false }, prompt);
    const remote = await greedyTokens(modelPath, { gpu: false, rpcServers: [a.endpoint, b.endpoint] }, prompt);
    const placement = remote.placement as {
      devices: { backend: string; description: string }[];
      gpuLayers: number;
      backend: string;
    };
    expect(placement.backend).toBe("RPC");
    expect(placement.devices.map((d) => [d.backend, d.description])).toEqual([
      ["RPC", a.endpoint],
      ["RPC", b.endpoint],
    ]);
    expect(placement.gpuLayers).toBe(3); // the test model's 2 layers and its output layer
    expect(local.tokens).toHaveLength(24);
    expect(remote.tokens).toEqual(local.tokens);
  });

  test("a second model on the same servers while the first is loaded (one connection per server)", async () => {
    await using first = await loadModel(modelPath, { gpu: false, rpcServers: [a.endpoint, b.endpoint] });
    const second = await greedyTokens(modelPath, { gpu: false, rpcServers: [b.endpoint] }, "Hello");
    const local = await greedyTokens(modelPath, { gpu: false }, "Hello");
    expect(second.tokens).toEqual(local.tokens);
    expect(first.placement.devices).toHaveLength(2);
  });

  test("SIGTERM stops a server cleanly (exit code 0)", async () => {
    const extra = await startServer();
    extra.child.kill("SIGTERM");
    expect(await exitOf(extra.child)).toEqual({ code: 0, signal: null });
    expect(extra.stderr()).toContain("stopping");
  });

  test("a second server on a port in use fails with TOOLWRIGHT_RPC_SERVER_FAILED (exit code 1)", async () => {
    const port = a.endpoint.split(":")[1]!;
    const child = spawn(process.execPath, [CLI, "rpc-server", "--port", port], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    expect((await exitOf(child)).code).toBe(1);
    expect(stderr).toContain("TOOLWRIGHT_RPC_SERVER_FAILED");
    expect(stderr).toContain(`127.0.0.1:${port}`);
  });

  test("killing a server mid-generation gives TOOLWRIGHT_RPC_LOST, then the process goes on and exits", async () => {
    const victim = await startServer();
    const kill = async () => {
      victim.child.kill("SIGKILL");
      await exitOf(victim.child);
    };
    expectRpcLost(await generateThroughCut(modelPath, a.endpoint, victim.endpoint, kill));
  });
});

describe.skipIf(!hasRpc)("servers that cannot serve: a clear load error, never a crash", () => {
  test("nothing listening: TOOLWRIGHT_RPC_UNREACHABLE naming the server", async () => {
    const endpoint = `127.0.0.1:${await freePort()}`;
    const error = await loadModel(modelPath, { rpcServers: [endpoint] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelLoadError);
    expect((error as ModelLoadError).code).toBe("TOOLWRIGHT_RPC_UNREACHABLE");
    expect((error as Error).message).toContain(endpoint);
  });

  test.each([
    { name: "closes at once", reply: (s: Socket) => s.end() },
    { name: "answers with HTTP", reply: (s: Socket) => s.end("HTTP/1.1 400 Bad Request\r\n\r\n") },
  ])("a server that $name: TOOLWRIGHT_RPC_UNREACHABLE", async ({ reply }) => {
    const server = createServer((socket) => socket.once("data", () => reply(socket)));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      const error = await loadModel(modelPath, { rpcServers: [`127.0.0.1:${port}`] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelLoadError);
      expect((error as ModelLoadError).code).toBe("TOOLWRIGHT_RPC_UNREACHABLE");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

test.each([
  { rpcServers: "127.0.0.1:50052", error: TypeError, message: /options\.rpcServers must be an array/ },
  {
    rpcServers: [50052],
    error: TypeError,
    message: /options\.rpcServers\[0\] must be a "host:port" string, got 50052/,
  },
  { rpcServers: ["localhost"], error: RangeError, message: /options\.rpcServers\[0\] must be "host:port"/ },
  { rpcServers: ["[::1]:50052"], error: RangeError, message: /options\.rpcServers\[0\]/ },
  { rpcServers: ["h:0"], error: RangeError, message: /port from 1 to 65535/ },
  { rpcServers: ["h:65536"], error: RangeError, message: /port from 1 to 65535/ },
  { rpcServers: ["a:1", "a:1"], error: RangeError, message: /options\.rpcServers\[1\]: a:1 is named twice/ },
  {
    rpcServers: Array.from({ length: 17 }, (_, i) => `h:${i + 1}`),
    error: RangeError,
    message: /at most 16 servers, got 17/,
  },
])("rpcServers: $rpcServers is refused with a $error.name", async ({ rpcServers, error, message }) => {
  const result = loadModel(modelPath, { rpcServers: rpcServers as never });
  await expect(result).rejects.toBeInstanceOf(error);
  await expect(result).rejects.toThrow(message);
});

test.each([
  { options: { port: 0 }, error: RangeError, message: /serveRpc: options\.port/ },
  { options: { port: "50052" }, error: TypeError, message: /serveRpc: options\.port/ },
  {
    options: { host: "10.0.0.1:80" },
    error: RangeError,
    message: /serveRpc: options\.host must be a host name or IPv4 address/,
  },
  { options: { threads: 0 }, error: RangeError, message: /serveRpc: options\.threads/ },
  { options: { prot: 50052 }, error: TypeError, message: /unknown key "prot" \(did you mean "port"\?\)/ },
])("serveRpc($options) is refused before anything starts", ({ options, error, message }) => {
  expect(() => serveRpc(options as never)).toThrow(error);
  expect(() => serveRpc(options as never)).toThrow(message);
});

test.each([
  { args: ["--port", "abc"], stderr: /--port must be a positive integer/ },
  { args: ["--port", "70000"], stderr: /options\.port/ },
  { args: ["--host", "::1"], stderr: /options\.host/ },
  { args: ["--bogus"], stderr: /unknown option --bogus/ },
])("rpc-server $args is a usage error (exit code 2)", async ({ args, stderr }) => {
  const child = spawn(process.execPath, [CLI, "rpc-server", ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  expect((await exitOf(child)).code).toBe(2);
  expect(err).toMatch(stderr);
});
