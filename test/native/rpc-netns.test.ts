/**
 * One model across two network hosts: network namespaces joined by a veth pair (test/helpers/netns.ts),
 * made by the test when it runs as root and skipped with the reason otherwise. The client runs in the near
 * namespace, next to an rpc-server on its loopback, and reaches the far namespace's rpc-servers over the
 * veth link: its greedy tokens equal the local run's, and a far server killed mid-generation gives
 * TOOLWRIGHT_RPC_LOST, not a hang (test/native/rpc.test.ts has the same on loopback). So does the link going
 * down, once TCP gives up on the next request, or once TCP keepalive finds the far end gone when a reply was
 * on its way (the addon sets it on ggml-rpc's sockets).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadNative } from "../../src/runtime/binding.js";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import { createVethHosts, netnsUnavailable, type TcpConnection, type VethHosts } from "../helpers/netns.js";
import {
  exitOf,
  expectRpcLost,
  generateThroughCut,
  greedyTokens,
  greedyTokensInChild,
  killAll,
  type Served,
  spawnRpcServer,
} from "../helpers/rpc-servers.js";
import { ensureTestModel } from "../helpers/test-models.js";

const hasRpc = Boolean(loadNative().systemInfo().rpc);
const unavailable = hasRpc ? netnsUnavailable() : "the addon has no RPC backend";
if (unavailable !== undefined) console.warn(`skipped: rpc-netns: ${unavailable}`);

describe.skipIf(unavailable !== undefined)("a model across two network namespaces joined by a veth pair", () => {
  let hosts: VethHosts;
  let modelPath: string;
  /** The near host's server (its loopback), and the far host's (over the veth link). */
  let near: Served;
  let far: Served;
  let farVictim: Served;

  beforeAll(async () => {
    await ensureCompiledLib();
    modelPath = await ensureTestModel({ vocab: "llama-spm", template: "Qwen-Qwen3-0.6B" });
    hosts = createVethHosts();
    const started = await Promise.all([
      spawnRpcServer("127.0.0.1", 50052, hosts.exec(hosts.near)),
      spawnRpcServer(hosts.farAddress, 50052, hosts.exec(hosts.far)),
      spawnRpcServer(hosts.farAddress, 50053, hosts.exec(hosts.far)),
    ]);
    [near, far, farVictim] = started;
  }, 300_000);

  afterAll(async () => {
    killAll();
    hosts?.remove();
  });

  test("layers on the far host and the near one generate the local run's greedy tokens", async () => {
    const prompt = "The weather in Paris today is";
    const local = await greedyTokens(modelPath, { gpu: false }, prompt);
    const run = await greedyTokensInChild(modelPath, [far.endpoint, near.endpoint], prompt, hosts.exec(hosts.near));
    expect(run.exit, run.stderr).toEqual({ code: 0, signal: null });
    expect(run.report!.devices).toEqual([
      ["RPC", `${hosts.farAddress}:50052`],
      ["RPC", "127.0.0.1:50052"],
    ]);
    expect(local.tokens).toHaveLength(24);
    expect(run.report!.tokens).toEqual(local.tokens);
  });

  test("the far server killed mid-generation gives TOOLWRIGHT_RPC_LOST, and the client goes on to exit", async () => {
    const kill = async () => {
      farVictim.child.kill("SIGKILL");
      await exitOf(farVictim.child);
    };
    const options = { prefix: hosts.exec(hosts.near) };
    expectRpcLost(await generateThroughCut(modelPath, near.endpoint, farVictim.endpoint, kill, options));
  });

  // No RST crosses a link that is down: the client notices when TCP gives up on its next request (ggml-rpc's
  // recv then fails and it aborts, which the addon turns into TOOLWRIGHT_RPC_LOST). TCP alone would retransmit
  // net.ipv4.tcp_retries2 times, about 15 minutes at Linux's default of 15; the user timeout the addon sets on
  // ggml-rpc's sockets (native/rpc_keepalive.h) ends it after 25 s unacknowledged at the latest. The link goes
  // down between two generations, when no request is on the way (see below for one that is).
  test.each([
    { end: "far", what: "the far end", port: 50054 },
    { end: "near", what: "the near end", port: 50055 },
  ] as const)(
    "$what of the link going down: the next generation gives TOOLWRIGHT_RPC_LOST once TCP gives up on it",
    async ({ end, port }) => {
      const victim = await spawnRpcServer(hosts.farAddress, port, hosts.exec(hosts.far));
      const [namespace, link] = end === "far" ? [hosts.far, hosts.farLink] : [hosts.near, hosts.nearLink];
      const down = async () => hosts.setLink(namespace, link, "down");
      try {
        const options = { prefix: hosts.exec(hosts.near), when: "between" } as const;
        expectRpcLost(await generateThroughCut(modelPath, near.endpoint, victim.endpoint, down, options));
      } finally {
        hosts.setLink(namespace, link, "up");
      }
    },
  );

  // When the link goes down while a reply is on its way (the request was acknowledged), the client has nothing to
  // retransmit and waits in recv(): only TCP keepalive, which the addon sets on ggml-rpc's sockets
  // (native/rpc_keepalive.h), finds that the server is gone (probes after 10 s of silence, given up at 25 s); it
  // hung for good before. A far server stopped (SIGSTOP) holds its reply back while its kernel still acknowledges
  // the request. The same with the link taken down before the next generation: its request is ended by the user
  // timeout. The client's namespace has Linux's default tcp_retries2 here (15, about 15 minutes).
  test.each([
    { what: "a reply on its way", when: "mid-generation", port: 50056 },
    { what: "the next request sent into it", when: "between", port: 50057 },
  ] as const)(
    "the link going down with $what gives TOOLWRIGHT_RPC_LOST through TCP keepalive",
    async ({ what, when, port }) => {
      const victim = await spawnRpcServer(hosts.farAddress, port, hosts.exec(hosts.far));
      hosts.setSysctl(hosts.near, "net/ipv4/tcp_retries2", "15");
      let downAt = 0;
      const down = () => {
        hosts.setLink(hosts.far, hosts.farLink, "down");
        downAt = Date.now();
      };
      let clientTimer = "";
      let linkDown = Promise.resolve();
      let finished = false;
      const stopAndCut = async () => {
        clientTimer = (await clientConnection(port)).timer;
        victim.child.kill("SIGSTOP");
        if (when === "between") return down();
        // Taken down behind the client's back, once its request waits at the stopped server.
        linkDown = (async () => {
          if (await untilRequestWaits(port, () => finished)) down();
        })();
      };
      try {
        const options = { prefix: hosts.exec(hosts.near), when };
        const run = await generateThroughCut(modelPath, near.endpoint, victim.endpoint, stopAndCut, options);
        expect(clientTimer, "the client's connection to the stopped server").toMatch(/^timer:\(keepalive,/);
        expectRpcLost(run);
        const seconds = ((run.report!.failedAt! - downAt) / 1000).toFixed(1);
        console.info(`rpc-netns: ${what}: TOOLWRIGHT_RPC_LOST ${seconds} s after the link went down`);
      } finally {
        finished = true;
        await linkDown;
        hosts.setLink(hosts.far, hosts.farLink, "up");
        victim.child.kill("SIGKILL");
      }
    },
  );

  /** The client's idle connection to the far server on `port` (the near namespace), once it is idle. */
  async function clientConnection(port: number): Promise<TcpConnection> {
    for (;;) {
      const found = hosts
        .connections(hosts.near, port)
        .find((c) => c.state === "ESTAB" && c.peer === `${hosts.farAddress}:${port}` && c.sendQueue === 0);
      if (found) return found;
      await sleep(50);
    }
  }

  /**
   * Resolves once the client's request waits unread at the stopped far server, acknowledged (nothing left in
   * the client's send queue), the same in two looks in a row: the client then waits in recv() for the reply.
   * Resolves false if the client ended first.
   */
  async function untilRequestWaits(port: number, ended: () => boolean): Promise<boolean> {
    let last = -1;
    while (!ended()) {
      const server = hosts.connections(hosts.far, port).find((c) => c.state === "ESTAB");
      const client = hosts.connections(hosts.near, port).find((c) => c.state === "ESTAB");
      const unread = server && client?.sendQueue === 0 ? server.recvQueue : 0;
      if (unread > 0 && unread === last) return true;
      last = unread;
      await sleep(200);
    }
    return false;
  }
});
