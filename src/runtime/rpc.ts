/**
 * llama.cpp's RPC backend: a model's layers on other machines (`loadModel(path, { rpcServers })`)
 * and this machine's devices served to others ({@link serveRpc}, `toolwright rpc-server`).
 *
 * Security: the RPC protocol has no authentication and no encryption, and a server executes
 * whatever graphs its clients send and holds whatever tensors they upload. Serve only on loopback
 * or on a private network whose every host you trust; never on a public address.
 */
import { Socket } from "node:net";
import { availableParallelism } from "node:os";
import { ToolwrightError } from "../errors.js";
import { loadNative } from "./binding.js";
import { checkKeys, checkObject, checkString, describe, optInteger } from "../validate/index.js";

/** How long a server may take to accept a connection and answer the greeting. */
const GREETING_TIMEOUT_MS = 10_000;
/** ggml-rpc's command numbers and sizes used by the greeting (its protocol, version 3 on). */
const RPC_CMD_HELLO = 14;
const HELLO_REQUEST_SIZE = 24;
const HELLO_RESPONSE_SIZE = 28;

/** A parsed `host:port`. */
export interface RpcEndpoint {
  host: string;
  port: number;
}

/**
 * Checks one `host:port` of `rpcServers` (ggml splits at the first colon, so IPv6 literals are
 * not accepted).
 *
 * @example
 * parseRpcEndpoint("127.0.0.1:50052", "rpcServers[0]"); // { host: "127.0.0.1", port: 50052 }
 */
export function parseRpcEndpoint(value: unknown, what: string): RpcEndpoint {
  if (typeof value !== "string") throw new TypeError(`${what} must be a "host:port" string, got ${describe(value)}`);
  const match = /^([^:\s\0]+):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[2]) : 0;
  if (!match || port < 1 || port > 65535) {
    throw new RangeError(
      `${what} must be "host:port" (a host name or IPv4 address, and a port from 1 to 65535), got ` +
        `${JSON.stringify(value)}`,
    );
  }
  return { host: match[1]!, port };
}

/**
 * Checks the `rpcServers` option: an array of distinct `host:port` strings (at most 16, ggml's limit).
 *
 * @example
 * checkRpcServers(["10.0.0.2:50052", "10.0.0.3:50052"], "loadModel: options.rpcServers");
 */
export function checkRpcServers(value: unknown, what: string): string[] {
  if (!Array.isArray(value))
    throw new TypeError(`${what} must be an array of "host:port" strings, got ${describe(value)}`);
  if (value.length > 16) throw new RangeError(`${what} may name at most 16 servers, got ${value.length}`);
  const seen = new Set<string>();
  return value.map((entry: unknown, i) => {
    const { host, port } = parseRpcEndpoint(entry, `${what}[${i}]`);
    const endpoint = `${host}:${port}`;
    if (seen.has(endpoint)) throw new RangeError(`${what}[${i}]: ${endpoint} is named twice`);
    seen.add(endpoint);
    return endpoint;
  });
}

/**
 * Connects to an RPC server and exchanges ggml-rpc's greeting, so that a server that is down, busy
 * with another client, or of another protocol version gives a clear error here. (llama.cpp's own
 * client would end the process on any of these.)
 *
 * @throws {ToolwrightError} TOOLWRIGHT_RPC_UNREACHABLE, naming the server and what went wrong.
 * @example
 * await greetRpcServer("127.0.0.1:50052");
 */
export async function greetRpcServer(endpoint: string, timeoutMs = GREETING_TIMEOUT_MS): Promise<void> {
  const { host, port } = parseRpcEndpoint(endpoint, "endpoint");
  const protocol = loadNative().systemInfo().rpc;
  if (!protocol) {
    throw new ToolwrightError(
      "rpcServers: this build of the addon has no RPC backend (rebuild it with TOOLWRIGHT_RPC=1)",
      "TOOLWRIGHT_RPC_UNREACHABLE",
    );
  }
  const fail = (why: string) => new ToolwrightError(`RPC server ${endpoint}: ${why}`, "TOOLWRIGHT_RPC_UNREACHABLE");
  const reply = await new Promise<Buffer>((resolve, reject) => {
    const socket = new Socket();
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (error: Error | undefined, value?: Buffer) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(value!);
    };
    const timer = setTimeout(
      () => done(fail(`no answer within ${timeoutMs} ms (is it serving another client?)`)),
      timeoutMs,
    );
    socket.on("error", (err) => done(fail(`cannot connect: ${err.message}`)));
    socket.on("data", (chunk) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= 8 + HELLO_RESPONSE_SIZE) done(undefined, Buffer.concat(chunks));
    });
    socket.on("end", () =>
      done(
        fail(
          "it closed the connection without answering the greeting (not a llama.cpp RPC server, or another version)",
        ),
      ),
    );
    socket.connect(port, host, () => {
      const request = Buffer.alloc(1 + 8 + HELLO_REQUEST_SIZE);
      request.writeUInt8(RPC_CMD_HELLO, 0);
      request.writeBigUInt64LE(BigInt(HELLO_REQUEST_SIZE), 1);
      socket.write(request);
    });
  });
  const length = reply.readBigUInt64LE(0);
  if (length !== BigInt(HELLO_RESPONSE_SIZE))
    throw fail(
      `its greeting has ${length} bytes where ${HELLO_RESPONSE_SIZE} were expected (not a llama.cpp RPC ` +
        `server of this version)`,
    );
  const [major, minor, patch] = [reply[8]!, reply[9]!, reply[10]!];
  if (major !== protocol.major || minor > protocol.minor) {
    throw fail(
      `it speaks RPC protocol ${major}.${minor}.${patch}, this build ` +
        `${protocol.major}.${protocol.minor}.${protocol.patch}: run the same toolwright (or ` +
        `llama.cpp) version on both sides`,
    );
  }
}

/** Options of {@link serveRpc}. */
export interface ServeRpcOptions {
  /** Address to listen on. Default "127.0.0.1"; the protocol has no authentication (see above). */
  host?: string;
  /** TCP port. Default 50052 (llama.cpp's rpc-server default). */
  port?: number;
  /** CPU threads of the served CPU backend. Default: the machine's cores (`availableParallelism()`). */
  threads?: number;
}

/** A running RPC server (see {@link serveRpc}). */
export interface RpcServer {
  /** `host:port` it listens on. */
  endpoint: string;
  /** Settles with a message if the server stops by itself (its socket failed); never otherwise. */
  stopped: Promise<string>;
}

/**
 * Serves this machine's devices (its GPUs, else its CPU) to RPC clients, on a native thread, until
 * the process ends: ggml's server loop has no way to stop, so a process that serves RPC ends to
 * stop it (`toolwright rpc-server` exits on SIGINT/SIGTERM). One server per process.
 *
 * @throws {ToolwrightError} TOOLWRIGHT_RPC_SERVER_FAILED when the address cannot be listened on.
 * @example
 * import { serveRpc } from "toolwright";
 * const server = serveRpc({ host: "127.0.0.1", port: 50052 });
 * console.log(`serving on ${server.endpoint}`);
 */
export function serveRpc(options: ServeRpcOptions = {}): RpcServer {
  const opts = checkObject(options, "serveRpc: options");
  checkKeys(opts, ["host", "port", "threads"], "serveRpc: options");
  const host = opts.host === undefined ? "127.0.0.1" : checkString(opts.host, "serveRpc: options.host");
  if (!/^[^:\s\0]+$/.test(host))
    throw new RangeError(`serveRpc: options.host must be a host name or IPv4 address, got ${JSON.stringify(host)}`);
  const port = optInteger(opts.port, "serveRpc: options.port", 1, 65535) ?? 50052;
  const threads = optInteger(opts.threads, "serveRpc: options.threads", 1, 1024) ?? availableParallelism();
  const native = loadNative();
  if (typeof native.startRpcServer !== "function" || !native.systemInfo().rpc) {
    throw new ToolwrightError(
      "rpc-server: this build of the addon has no RPC backend (rebuild it with TOOLWRIGHT_RPC=1)",
      "TOOLWRIGHT_RPC_SERVER_FAILED",
    );
  }
  let onExit: (message: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => {
    onExit = resolve;
  });
  try {
    native.startRpcServer(host, port, { threads }, (message) => onExit(message));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ToolwrightError(message, "TOOLWRIGHT_RPC_SERVER_FAILED", { cause: err });
  }
  return { endpoint: `${host}:${port}`, stopped };
}
