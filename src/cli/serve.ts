/**
 * `toolwright serve <model.gguf>`: the OpenAI-compatible HTTP server (`toolwright/server`) on
 * a model loaded from the command line, until SIGINT or SIGTERM drains it.
 *
 * @example
 * // $ toolwright serve model.gguf --port 8080 --api-key secret
 */
import { parseArgs } from "node:util";
import type { GpuOption } from "../runtime/devices.js";
import { ModelLoadError } from "../runtime/errors.js";
import { loadModel } from "../session/index.js";
import { createServer } from "../server/index.js";
import type { CliIo } from "./analyze.js";
import { createProgressReporter, type ProgressStream } from "./progress.js";

export const SERVE_USAGE = `Usage: toolwright serve <model.gguf> [options]

Serves the model over HTTP with OpenAI's chat-completions API:
  POST /v1/chat/completions   (stream: true for server-sent events)
  GET  /v1/models, GET /health
Point an OpenAI client at http://HOST:PORT/v1. SIGINT or SIGTERM stops taking
requests and exits once those in flight end (a second signal aborts them).

  --host HOST           address to listen on (default 127.0.0.1: this machine only)
  --port N              port (default 8080; 0 picks a free one)
  --api-key KEY         require 'Authorization: Bearer KEY' (default: $TOOLWRIGHT_API_KEY, else none)
  --alias NAME          the model id clients see (default: the file name without .gguf)
  --max-tokens N        most tokens a request may generate, and the default (default 4096)
  --max-body BYTES      largest request body (default 8388608)
  --gpu MODE            auto (default), cuda, metal, vulkan or off
  --gpu-layers N        layers to offload to the GPU (default: all)
  -h, --help            show this help

Exit codes: 0 stopped by a signal, 1 the model cannot be loaded or the port is taken, 2 usage error.
`;

/** What `runServe` reads and writes. `stop`, when given, stops the server instead of signals (tests). */
export interface ServeIo extends CliIo {
  stderr: ProgressStream;
  stop?: AbortSignal;
}

class UsageError extends Error {}

function integer(option: string, text: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === "" || !Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${option} must be an integer in [${min}, ${max}], got ${JSON.stringify(text)}`);
  return n;
}

function gpuOf(text: string | undefined): GpuOption | undefined {
  if (text === undefined) return undefined;
  if (text === "off") return false;
  if (text === "auto" || text === "cuda" || text === "metal" || text === "vulkan") return text;
  throw new UsageError(`--gpu must be auto, cuda, metal, vulkan or off, got ${JSON.stringify(text)}`);
}

function parse(argv: readonly string[]) {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return "help" as const;
  if (positionals.length !== 1) throw new UsageError(`expected one model path, got ${positionals.length}`);
  const apiKey = values["api-key"] ?? process.env.TOOLWRIGHT_API_KEY;
  if (apiKey === "") throw new UsageError("--api-key must not be empty");
  if (values.host === "") throw new UsageError("--host must not be empty");
  return {
    modelPath: positionals[0]!,
    host: values.host ?? "127.0.0.1",
    port: integer("port", values.port, 0, 65535) ?? 8080,
    apiKey,
    alias: values.alias,
    maxTokens: integer("max-tokens", values["max-tokens"], 1),
    maxBodyBytes: integer("max-body", values["max-body"], 1),
    gpu: gpuOf(values.gpu),
    gpuLayers: integer("gpu-layers", values["gpu-layers"], 0),
  };
}

function parseOptions(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      host: { type: "string" },
      port: { type: "string" },
      "api-key": { type: "string" },
      alias: { type: "string" },
      "max-tokens": { type: "string" },
      "max-body": { type: "string" },
      gpu: { type: "string" },
      "gpu-layers": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/** Resolves when the first of SIGINT / SIGTERM (or `stop`) arrives; `again` runs on the next one. */
function stopRequested(stop: AbortSignal | undefined, again: () => void): Promise<void> {
  if (stop) return stop.aborted ? Promise.resolve() : new Promise((resolve) => stop.addEventListener("abort", () => resolve(), { once: true }));
  return new Promise((resolve) => {
    let seen = false;
    const onSignal = () => {
      if (seen) {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
        again();
        return;
      }
      seen = true;
      resolve();
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}

/**
 * Runs the command; resolves to the exit code once the server has stopped.
 *
 * @example
 * process.exitCode = await runServe(["model.gguf", "--port", "8080"], process);
 */
export async function runServe(argv: readonly string[], io: ServeIo): Promise<number> {
  let args: Exclude<ReturnType<typeof parse>, "help">;
  try {
    const parsed = parse(argv);
    if (parsed === "help") {
      io.stdout.write(SERVE_USAGE);
      return 0;
    }
    args = parsed;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr.write(`toolwright serve: ${e.message}\n\n${SERVE_USAGE}`);
    return 2;
  }
  const progress = createProgressReporter(io.stderr, `loading ${args.modelPath}`);
  let model: Awaited<ReturnType<typeof loadModel>>;
  try {
    model = await loadModel(args.modelPath, {
      onProgress: progress.update,
      ...(args.gpu !== undefined ? { gpu: args.gpu } : {}),
      ...(args.gpuLayers !== undefined ? { gpuLayers: args.gpuLayers } : {}),
    });
    progress.done();
  } catch (e) {
    progress.done();
    if (!(e instanceof ModelLoadError)) throw e;
    io.stderr.write(`toolwright serve: ${e.message}\n`);
    return 1;
  }
  try {
    const server = createServer(model, {
      log: (line) => io.stderr.write(`${line}\n`),
      ...(args.apiKey !== undefined ? { apiKey: args.apiKey } : {}),
      ...(args.alias !== undefined ? { modelId: args.alias } : {}),
      ...(args.maxTokens !== undefined ? { maxTokens: args.maxTokens } : {}),
      ...(args.maxBodyBytes !== undefined ? { maxBodyBytes: args.maxBodyBytes } : {}),
    });
    let url: string;
    try {
      ({ url } = await server.listen({ host: args.host, port: args.port }));
    } catch (e) {
      io.stderr.write(`toolwright serve: cannot listen on ${args.host}:${args.port}: ${(e as Error).message}\n`);
      return 1;
    }
    io.stdout.write(`toolwright serve: ${server.modelId} at ${url}/v1${args.apiKey !== undefined ? " (API key required)" : ""}\n`);
    await stopRequested(io.stop, () => void server.close({ timeoutMs: 0 }));
    io.stderr.write(`toolwright serve: stopping (${server.inFlight} request(s) in flight)\n`);
    await server.close();
    io.stderr.write("toolwright serve: stopped\n");
    return 0;
  } finally {
    model.dispose();
  }
}
