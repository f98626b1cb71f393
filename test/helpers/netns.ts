/**
 * Two network hosts on one machine: network namespaces joined by a veth pair (iproute2's `ip`, as root),
 * for tests of what crosses a real network link. Each test process names its namespaces after its pid
 * (`tw-rpc-<pid>-near`, `-far`), removes them when done or when it exits, and removes those that a dead
 * process left behind.
 *
 * @example
 * const reason = netnsUnavailable();
 * if (reason === undefined) {
 *   const hosts = createVethHosts();
 *   spawn("ip", ["netns", "exec", hosts.far, "node", "server.js", "--host", hosts.farAddress]);
 *   hosts.remove();
 * }
 */
import { spawnSync } from "node:child_process";
import { processAlive } from "../../src/runtime/hub/file-lock.js";

const PREFIX = "tw-rpc-";

/** Runs `ip ...args`; returns its error output when it fails, undefined when it succeeds. */
function ip(...args: string[]): string | undefined {
  const run = spawnSync("ip", args, { encoding: "utf8" });
  if (run.error) return run.error.message;
  return run.status === 0 ? undefined : run.stderr.trim() || `exit code ${run.status}`;
}

/**
 * Deletes the namespaces of this helper whose test process has exited (one killed before its cleanup ran),
 * after killing the processes it left in them (its servers, a hung client).
 */
function removeStaleNamespaces(): void {
  const list = spawnSync("ip", ["netns", "list"], { encoding: "utf8" }).stdout ?? "";
  for (const line of list.split("\n")) {
    const name = line.split(" ")[0] ?? "";
    const owner = name.startsWith(PREFIX) ? Number.parseInt(name.slice(PREFIX.length), 10) : Number.NaN;
    if (!Number.isInteger(owner) || owner === process.pid || processAlive(owner)) continue;
    const pids = spawnSync("ip", ["netns", "pids", name], { encoding: "utf8" }).stdout ?? "";
    for (const pid of pids.split("\n").filter(Boolean))
      if (processAlive(Number(pid))) process.kill(Number(pid), "SIGKILL");
    ip("netns", "del", name);
  }
}

/**
 * Why this process cannot make network namespaces (no `ip`, not root, no CAP_NET_ADMIN), or undefined when
 * it can: it makes one and deletes it.
 */
export function netnsUnavailable(): string | undefined {
  if (process.platform !== "linux") return `network namespaces are Linux's (this is ${process.platform})`;
  const version = spawnSync("ip", ["-V"], { encoding: "utf8" });
  if (version.error) return `iproute2's "ip" is not available (${version.error.message})`;
  const probe = `${PREFIX}${process.pid}-probe`;
  const failed = ip("netns", "add", probe);
  if (failed !== undefined) return `"ip netns add" failed (root with CAP_NET_ADMIN needed): ${failed}`;
  ip("netns", "del", probe);
  return undefined;
}

/** Two namespaces joined by a veth pair, each end up with an address of one /30. */
export interface VethHosts {
  /** The namespaces' names. */
  near: string;
  far: string;
  /** The veth ends' names (each inside its namespace) and addresses. */
  nearLink: string;
  farLink: string;
  nearAddress: string;
  farAddress: string;
  /** The command prefix that runs a command inside a namespace: `["ip", "netns", "exec", name]`. */
  exec(namespace: string): string[];
  /** Sets a veth end down or up (`ip -n NS link set LINK down`). */
  setLink(namespace: string, link: string, state: "up" | "down"): void;
  /**
   * Sets a sysctl of one namespace's network stack (`/proc/sys/net/...` is per namespace), e.g.
   * `setSysctl(near, "net/ipv4/tcp_retries2", "3")`.
   */
  setSysctl(namespace: string, key: string, value: string): void;
  /** The TCP connections of one namespace from or to `port` (iproute2's `ss`), with their queues and timer. */
  connections(namespace: string, port: number): TcpConnection[];
  /** Deletes both namespaces (and so the veth pair); idempotent. */
  remove(): void;
}

/** One TCP connection as `ss -tno` shows it. */
export interface TcpConnection {
  state: string;
  /** Bytes received that its process has not read yet, and bytes sent that the peer has not acknowledged. */
  recvQueue: number;
  sendQueue: number;
  local: string;
  peer: string;
  /** The pending timer, e.g. `timer:(keepalive,9.7sec,0)`; "" when none. */
  timer: string;
}

/** The connections from or to `port` in `namespace` (`ss -tnoH` prints one a line: state, queues, ends, timer). */
function connectionsOf(namespace: string, port: number): TcpConnection[] {
  const filter = `( dport = :${port} or sport = :${port} )`;
  const run = spawnSync("ip", ["netns", "exec", namespace, "ss", "-tnoH", filter], { encoding: "utf8" });
  if (run.error || run.status !== 0) throw new Error(`ss in ${namespace}: ${run.error?.message ?? run.stderr}`);
  return run.stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [state = "", recv = "", send = "", local = "", peer = "", ...rest] = line.trim().split(/\s+/);
      return { state, recvQueue: Number(recv), sendQueue: Number(send), local, peer, timer: rest.join(" ") };
    });
}

/**
 * Creates the near and far namespaces with a veth pair between them (10.77.0.1/30 near, 10.77.0.2/30 far;
 * the namespaces are private, so the addresses meet no one else's), loopback up in both.
 * Throws with `ip`'s message when a step fails, after removing what it made.
 */
export function createVethHosts(): VethHosts {
  removeStaleNamespaces();
  const near = `${PREFIX}${process.pid}-near`;
  const far = `${PREFIX}${process.pid}-far`;
  const [nearLink, farLink] = ["tw-near", "tw-far"];
  const [nearAddress, farAddress] = ["10.77.0.1", "10.77.0.2"];
  const remove = () => {
    ip("netns", "del", near);
    ip("netns", "del", far);
    process.removeListener("exit", remove);
  };
  process.once("exit", remove);
  const steps = [
    ["netns", "add", near],
    ["netns", "add", far],
    // Made inside the namespaces: the names meet no other process's links.
    ["link", "add", nearLink, "netns", near, "type", "veth", "peer", "name", farLink, "netns", far],
    ["-n", near, "addr", "add", `${nearAddress}/30`, "dev", nearLink],
    ["-n", far, "addr", "add", `${farAddress}/30`, "dev", farLink],
    ["-n", near, "link", "set", nearLink, "up"],
    ["-n", far, "link", "set", farLink, "up"],
    ["-n", near, "link", "set", "lo", "up"],
    ["-n", far, "link", "set", "lo", "up"],
  ];
  for (const step of steps) {
    const failed = ip(...step);
    if (failed === undefined) continue;
    remove();
    throw new Error(`ip ${step.join(" ")}: ${failed}`);
  }
  return {
    near,
    far,
    nearLink,
    farLink,
    nearAddress,
    farAddress,
    exec: (namespace) => ["ip", "netns", "exec", namespace],
    setLink: (namespace, link, state) => {
      const failed = ip("-n", namespace, "link", "set", link, state);
      if (failed !== undefined) throw new Error(`ip -n ${namespace} link set ${link} ${state}: ${failed}`);
    },
    setSysctl: (namespace, key, value) => {
      const failed = ip("netns", "exec", namespace, "sh", "-c", 'echo "$1" > "/proc/sys/$2"', "sh", value, key);
      if (failed !== undefined) throw new Error(`sysctl ${key}=${value} in ${namespace}: ${failed}`);
    },
    connections: connectionsOf,
    remove,
  };
}
