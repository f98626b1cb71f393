/**
 * `toolwright rpc-server [--host H] [--port N] [--threads N]`: serves this machine's devices (its
 * GPUs, else its CPU) to other machines' `loadModel(path, { rpcServers: ["H:N"] })`, with
 * llama.cpp's RPC backend. Runs until SIGINT or SIGTERM.
 *
 * @example
 * const code = await runRpcServer(["--port", "50052"], { stdout: process.stdout, stderr: process.stderr });
 */
import { ToolwrightError } from "../errors.js";
import { serveRpc } from "../runtime/rpc.js";
import {
  type CliIo,
  commandArgs,
  formatOptions,
  type OptionTable,
  parseCommandArgs,
  stringValue,
  UsageError,
} from "./args.js";

const RPC_SERVER_OPTIONS: OptionTable = {
  host: { type: "string", value: "H", help: "address to listen on (default 127.0.0.1)" },
  port: { type: "string", value: "N", help: "TCP port (default 50052)" },
  threads: { type: "string", value: "N", help: "CPU threads for the served CPU backend (default: all cores)" },
};

export const RPC_SERVER_USAGE = `Usage: toolwright rpc-server [--host 127.0.0.1] [--port 50052] [--threads N]

Serves this machine's devices (its GPUs, else its CPU) to other processes and
machines, which place model layers here with loadModel(path, { rpcServers:
["host:port"] }) (llama.cpp's RPC backend; the same toolwright version on both
sides). Runs until interrupted (Ctrl-C, SIGTERM).

SECURITY: the RPC protocol has no authentication and no encryption; anyone who
can connect can run computations here and read what clients uploaded. Listen on
loopback (the default) or on a private network of hosts you trust, never on a
public address.

${formatOptions(RPC_SERVER_OPTIONS)}
Exit codes: 0 stopped by a signal, 1 the server could not start or stopped by
itself, 2 usage error.
`;

/**
 * Runs the command; resolves to the exit code once the server is stopped (SIGINT/SIGTERM) or fails.
 *
 * @example
 * process.exitCode = await runRpcServer(["--host", "127.0.0.1", "--port", "50052"], process);
 */
export async function runRpcServer(argv: readonly string[], io: CliIo): Promise<number> {
  const values = commandArgs("rpc-server", RPC_SERVER_USAGE, io, () => {
    const args = parseCommandArgs(argv, RPC_SERVER_OPTIONS);
    if (args.values.help) return "help";
    if (args.positionals.length > 0)
      throw new UsageError(`takes no positional arguments, got ${JSON.stringify(args.positionals[0])}`);
    return args.values;
  });
  if (typeof values === "number") return values;
  // Ranges (the port's, the threads') are serveRpc's to check; here only that each is a number.
  const number = (name: string): number | undefined | null => {
    const text = stringValue(values, name);
    if (text === undefined) return undefined;
    if (/^\d+$/.test(text)) return Number(text);
    io.stderr.write(`toolwright rpc-server: --${name} must be a positive integer, got ${JSON.stringify(text)}\n`);
    return null;
  };
  const port = number("port");
  const threads = number("threads");
  if (port === null || threads === null) return 2;
  const host = stringValue(values, "host");
  // Signals are caught before the server listens: a client may connect, and a supervisor signal, at once.
  let signalled: (signal: NodeJS.Signals) => void = () => {};
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    signalled = resolve;
  });
  process.once("SIGINT", signalled);
  process.once("SIGTERM", signalled);
  const unlisten = () => {
    process.removeListener("SIGINT", signalled);
    process.removeListener("SIGTERM", signalled);
  };
  let server: ReturnType<typeof serveRpc>;
  try {
    server = serveRpc({ host, port, threads });
  } catch (err) {
    unlisten();
    if (err instanceof RangeError || err instanceof TypeError) {
      io.stderr.write(`toolwright rpc-server: ${err.message}\n`);
      return 2;
    }
    const code = err instanceof ToolwrightError ? ` (${err.code})` : "";
    io.stderr.write(`toolwright rpc-server: ${(err as Error).message}${code}\n`);
    return 1;
  }
  io.stderr.write(
    `toolwright rpc-server: serving on ${server.endpoint} (no authentication: loopback or a trusted private ` +
      `network only)\n`,
  );
  // The native server thread does not keep the process alive; this does, until a signal.
  const alive = setInterval(() => {}, 1 << 30);
  const code = await Promise.race([
    signal.then((name) => {
      io.stderr.write(`toolwright rpc-server: ${name}, stopping\n`);
      return 0;
    }),
    server.stopped.then((message) => {
      io.stderr.write(`toolwright rpc-server: ${message}\n`);
      return 1;
    }),
  ]);
  unlisten();
  clearInterval(alive);
  return code;
}
