/**
 * One model across two network hosts: network namespaces joined by a veth pair (test/helpers/netns.ts),
 * made by the test when it runs as root and skipped with the reason otherwise. The client runs in the near
 * namespace, next to an rpc-server on its loopback, and reaches the far namespace's rpc-servers over the
 * veth link: its greedy tokens equal the local run's, and a far server killed mid-generation gives
 * TOOLWRIGHT_RPC_LOST, not a hang (test/native/rpc.test.ts has the same on loopback). So does the link going
 * down, once TCP gives up on the next request; a reply cut off on its way is the one case that still hangs.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadNative } from "../../src/runtime/binding.js";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import { createVethHosts, netnsUnavailable, type VethHosts } from "../helpers/netns.js";
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

  // No RST crosses a link that is down: the client notices when TCP gives up retransmitting its next request
  // (ggml-rpc's recv then fails and it aborts, which the addon turns into TOOLWRIGHT_RPC_LOST). That takes
  // net.ipv4.tcp_retries2 retries, about 15 minutes at Linux's default of 15; the client's namespace has 3
  // here (about 3 s), so the test is cheap and checks the same path. The link goes down between two
  // generations, when no request is on the way (see the todo below for one that is).
  test.each([
    { end: "far", what: "the far end", port: 50054 },
    { end: "near", what: "the near end", port: 50055 },
  ] as const)(
    "$what of the link going down: the next generation gives TOOLWRIGHT_RPC_LOST once TCP gives up",
    async ({ end, port }) => {
      const victim = await spawnRpcServer(hosts.farAddress, port, hosts.exec(hosts.far));
      const [namespace, link] = end === "far" ? [hosts.far, hosts.farLink] : [hosts.near, hosts.nearLink];
      hosts.setSysctl(hosts.near, "net/ipv4/tcp_retries2", "3");
      const down = async () => hosts.setLink(namespace, link, "down");
      try {
        const options = { prefix: hosts.exec(hosts.near), when: "between" } as const;
        expectRpcLost(await generateThroughCut(modelPath, near.endpoint, victim.endpoint, down, options));
      } finally {
        hosts.setLink(namespace, link, "up");
      }
    },
  );

  // Found here: when the link goes down while a reply is on its way (the request was acknowledged), the client
  // has nothing to retransmit and ggml-rpc's socket has no keepalive, so it waits in recv() until the link
  // comes back (the server's retransmitted reply then arrives and generation goes on), or forever. A far
  // server stopped (SIGSTOP) before the link goes down shows it every time. Detecting it needs TCP keepalive
  // or TCP_USER_TIMEOUT on that socket, which ggml-rpc makes and keeps to itself.
  test.todo("the link going down while a reply is on its way gives TOOLWRIGHT_RPC_LOST (it hangs today)");
});
