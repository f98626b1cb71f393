/**
 * `toolwright serve <model.gguf | hf:…>`: the OpenAI-compatible HTTP server (`toolwright/server`)
 * on a model loaded from the command line, until SIGINT or SIGTERM drains it.
 *
 * @example
 * // $ toolwright serve model.gguf --port 8080 --api-key secret
 */
import { resolve } from "node:path";
import { createServer as createNetServer } from "node:net";
import type { GpuOption } from "../runtime/devices.js";
import { ModelLoadError } from "../runtime/errors.js";
import { ChatSession, DEFAULT_MAX_TOKENS, loadModel } from "../session/index.js";
import { corsOrigins } from "../server/cors.js";
import { createServer } from "../server/index.js";
import {
  type CliIo,
  commandArgs,
  formatOptions,
  type OptionTable,
  parseCommandArgs,
  parseNumberOption,
  stringValue,
  stringValues,
  UsageError,
} from "./args.js";
import {
  contextOverflowOf,
  CONTEXT_OVERFLOW_OPTION,
  LORA_OPTION,
  loadLoraFlags,
  loraFlagsOf,
  PROJECTOR_OPTION,
} from "./chat-flags.js";
import { ModelDownloadError } from "../runtime/hub/errors.js";
import { MediaError } from "../runtime/projector.js";
import { resolveModelArg } from "./model-arg.js";
import { loadSpeculative, SPECULATIVE_OPTIONS, speculativeFlagsOf } from "./speculative-flags.js";
import { FLASH_ATTENTION_OPTION, flashAttentionOf } from "./flash-attention-flag.js";
import { createProgressReporter, type ProgressStream } from "./progress.js";

/** Requests decoded together by default: as many as `model.chat()` runs at once. */
const DEFAULT_PARALLEL = 4;
/** llama.cpp's limit on the sequences of one context. */
const MAX_PARALLEL = 256;

const SERVE_OPTIONS: OptionTable = {
  host: { type: "string", value: "HOST", help: "address to listen on (default 127.0.0.1: this machine only)" },
  port: { type: "string", value: "N", help: "port (default 8080; 0 picks a free one)" },
  "api-key": {
    type: "string",
    value: "KEY",
    help: "require 'Authorization: Bearer KEY' (default: $TOOLWRIGHT_API_KEY, else none)",
  },
  alias: {
    type: "string",
    value: "NAME",
    multiple: true,
    help:
      "a name clients may give as 'model' (repeatable; the first is the id responses carry;\n" +
      "the file name without .gguf is always accepted; another name is a 404)",
  },
  cors: {
    type: "string",
    value: "ORIGINS",
    multiple: true,
    help: "allow browsers on these origins: '*' or https://a.example,https://b.example\n(default: off)",
  },
  "max-tokens": {
    type: "string",
    value: "N",
    help:
      `most tokens a request may ask for, and what one that sets none gets\n(default: no limit but the ` +
      `context's; a request that sets none gets ${DEFAULT_MAX_TOKENS})`,
  },
  "context-overflow": CONTEXT_OVERFLOW_OPTION,
  lora: LORA_OPTION,
  ...SPECULATIVE_OPTIONS,
  projector: PROJECTOR_OPTION,
  "slot-save-path": {
    type: "string",
    value: "DIR",
    help: "POST /slots/ID?action=save|restore {filename} saves a slot's cache to DIR or\nrestores it (llama-server's)",
  },
  quiet: { type: "boolean", short: "q", help: "no access log (one line per request on stderr)" },
  "max-body": { type: "string", value: "BYTES", help: "largest request body (default 8388608)" },
  parallel: {
    type: "string",
    value: "N",
    help:
      `requests decoded together, one sequence of the context each, in one batch per token\n(default ` +
      `${DEFAULT_PARALLEL}, at most ${MAX_PARALLEL}); more wait for a free sequence ` +
      `(llama-server's --parallel)`,
  },
  "context-size": {
    type: "string",
    value: "N",
    help: "tokens of context of each sequence (default: automatic, up to 8192)",
  },
  threads: { type: "string", value: "N", help: "CPU threads for generation (default: the cores, at most 8)" },
  "threads-batch": { type: "string", value: "N", help: "CPU threads for prompt evaluation (default: --threads)" },
  "batch-size": {
    type: "string",
    value: "N",
    help: "most tokens decoded in one batch: the sequences' next tokens and prompt chunks\n(default 512)",
  },
  ...FLASH_ATTENTION_OPTION,
  gpu: { type: "string", value: "MODE", help: "auto (default), cuda, metal, vulkan or off" },
  "gpu-layers": { type: "string", value: "N", help: "layers to offload to the GPU (default: all)" },
};

export const SERVE_USAGE = `Usage: toolwright serve <model.gguf | hf:OWNER/REPO/FILE.gguf> [options]

Serves the model over HTTP with OpenAI's chat-completions API:
  POST /v1/chat/completions   (stream: true for server-sent events; image_url parts
                               with --projector)
  POST /v1/embeddings
  POST /v1/rerank             (a reranker model: llama-server's rerank API)
  GET  /v1/models, GET /health
Point an OpenAI client at http://HOST:PORT/v1. A request's 'model' is the model
id or an --alias (another name is a 404); a request without one gets the loaded
model. An hf: model is downloaded first (see 'toolwright help pull'), or taken
from the cache. SIGINT or SIGTERM stops taking requests and exits once those in
flight end (a second signal aborts them).
Up to --parallel requests run at once, decoded together (continuous batching:
a new request joins the running batch, a finished one leaves it).

${formatOptions(SERVE_OPTIONS)}
Exit codes: 0 stopped by a signal, 1 the model cannot be downloaded or loaded or the port
is taken (checked before the model loads), 2 usage error.
`;

/** What `runServe` reads and writes. `stop`, when given, stops the server instead of signals (tests). */
export interface ServeIo extends CliIo {
  stderr: ProgressStream;
  stop?: AbortSignal;
}

function gpuOf(text: string | undefined): GpuOption | undefined {
  if (text === undefined) return undefined;
  if (text === "off") return false;
  if (text === "auto" || text === "cuda" || text === "metal" || text === "vulkan") return text;
  throw new UsageError(`--gpu must be auto, cuda, metal, vulkan or off, got ${JSON.stringify(text)}`);
}

/** The serve command's arguments (throws a {@link UsageError}). */
export function parseServeArgs(argv: readonly string[]) {
  const { values, positionals } = parseCommandArgs(argv, SERVE_OPTIONS);
  if (values.help) return "help" as const;
  if (positionals.length !== 1) throw new UsageError(`expected one model path, got ${positionals.length}`);
  const text = (name: string) => stringValue(values, name);
  const integer = (name: string, min: number, max?: number) => {
    const value = text(name);
    return value === undefined ? undefined : parseNumberOption(name, value, true, min, max);
  };
  const apiKey = text("api-key") ?? process.env.TOOLWRIGHT_API_KEY;
  if (apiKey === "") throw new UsageError("--api-key must not be empty");
  if (text("host") === "") throw new UsageError("--host must not be empty");
  const aliases = stringValues(values, "alias");
  if (aliases.includes("")) throw new UsageError("--alias must not be empty");
  const cors = stringValues(values, "cors").flatMap((v) => v.split(",").map((o) => o.trim()));
  return {
    modelPath: positionals[0]!,
    host: text("host") ?? "127.0.0.1",
    port: integer("port", 0, 65535) ?? 8080,
    apiKey,
    aliases,
    cors: cors.length > 0 ? corsOf(cors) : undefined,
    contextOverflow: contextOverflowOf(text("context-overflow")),
    quiet: values.quiet === true,
    maxTokens: integer("max-tokens", 1),
    maxBodyBytes: integer("max-body", 1),
    slotSavePath: slotFolderOf(text("slot-save-path")),
    parallel: integer("parallel", 1, MAX_PARALLEL) ?? DEFAULT_PARALLEL,
    contextSize: integer("context-size", 1, 1 << 24),
    threads: integer("threads", 1, 1024),
    threadsBatch: integer("threads-batch", 1, 1024),
    batchSize: integer("batch-size", 1, 1 << 20),
    flashAttention: flashAttentionOf(text("flash-attention")),
    gpu: gpuOf(text("gpu")),
    gpuLayers: integer("gpu-layers", 0),
    loras: loraFlagsOf(stringValues(values, "lora")),
    speculative: speculativeFlagsOf(values),
    projector: text("projector"),
  };
}

/** The --slot-save-path folder, made absolute (a usage error when empty). */
function slotFolderOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (text === "") throw new UsageError("--slot-save-path must name a folder");
  return resolve(text);
}

/** The --cors origins, checked as the server checks them (a mistake is a usage error). */
function corsOf(origins: string[]): string[] {
  try {
    return [...corsOrigins(origins, "--cors")];
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/**
 * Whether host:port can be listened on, found before the model loads (minutes, for a large one):
 * a taken port fails at once. Resolves to the error, or undefined when it is free.
 */
function portProblem(host: string, port: number): Promise<Error | undefined> {
  if (port === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const probe = createNetServer();
    probe.once("error", (e) => resolve(e));
    probe.listen(port, host, () => probe.close(() => resolve(undefined)));
  });
}

/** Resolves when the first of SIGINT / SIGTERM (or `stop`) arrives; `again` runs on the next one. */
function stopRequested(stop: AbortSignal | undefined, again: () => void): Promise<void> {
  if (stop)
    return stop.aborted
      ? Promise.resolve()
      : new Promise((resolve) => stop.addEventListener("abort", () => resolve(), { once: true }));
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
  const args = commandArgs("serve", SERVE_USAGE, io, () => parseServeArgs(argv));
  if (typeof args === "number") return args;
  const portError = await portProblem(args.host, args.port);
  if (portError) {
    io.stderr.write(`toolwright serve: cannot listen on ${args.host}:${args.port}: ${portError.message}\n`);
    return 1;
  }
  const path = await resolveModelArg(args.modelPath, { command: "serve", usage: SERVE_USAGE }, io);
  if (typeof path === "number") return path;
  const progress = createProgressReporter(io.stderr, `loading ${path}`);
  let model: Awaited<ReturnType<typeof loadModel>>;
  try {
    model = await loadModel(path, {
      onProgress: progress.update,
      ...(args.gpu !== undefined ? { gpu: args.gpu } : {}),
      ...(args.gpuLayers !== undefined ? { gpuLayers: args.gpuLayers } : {}),
      ...(args.projector !== undefined ? { projector: args.projector } : {}),
    });
    progress.done();
  } catch (e) {
    progress.done();
    if (!(e instanceof ModelLoadError || e instanceof MediaError || e instanceof ModelDownloadError)) throw e;
    io.stderr.write(`toolwright serve: ${e instanceof MediaError ? "--projector: " : ""}${e.message}\n`);
    return 1;
  }
  let draft: { dispose(): void } | undefined;
  try {
    const train = model.info.trainContextSize;
    if (args.contextSize !== undefined && train > 0 && args.contextSize > train) {
      io.stderr.write(
        `toolwright serve: --context-size ${args.contextSize} exceeds the model's training context (${train} ` +
          `tokens)\n\n${SERVE_USAGE}`,
      );
      return 2;
    }
    const loras = await loadLoraFlags(model, args.loras);
    if (typeof loras === "string") {
      io.stderr.write(`toolwright serve: ${loras}\n`);
      return 1;
    }
    const speculative = await loadSpeculative(args.speculative, model, {
      ...(args.gpu !== undefined ? { gpu: args.gpu } : {}),
      ...(args.gpuLayers !== undefined ? { gpuLayers: args.gpuLayers } : {}),
    });
    if (typeof speculative === "string") {
      io.stderr.write(`toolwright serve: ${speculative}\n`);
      return 1;
    }
    draft = speculative.draft;
    // The requests share one context of --parallel sequences (not model.chat()'s own session).
    const session = new ChatSession(model, {
      ...(args.contextOverflow !== undefined ? { contextOverflow: args.contextOverflow } : {}),
      context: {
        sequences: args.parallel,
        warmUp: true,
        ...(args.contextSize !== undefined ? { contextSize: args.contextSize } : {}),
        ...(args.threads !== undefined ? { threads: args.threads } : {}),
        ...(args.threadsBatch !== undefined ? { threadsBatch: args.threadsBatch } : {}),
        ...(args.batchSize !== undefined ? { batchSize: args.batchSize } : {}),
        ...(args.flashAttention !== undefined ? { flashAttention: args.flashAttention } : {}),
        ...(loras.length > 0 ? { loras } : {}),
        ...(speculative.options ? { speculative: speculative.options } : {}),
      },
    });
    // The context before the server listens: the first request does not wait for it, and one that does not fit
    // fails here.
    try {
      await session.prepare();
    } catch (e) {
      io.stderr.write(`toolwright serve: cannot create the context: ${(e as Error).message}\n`);
      return 1;
    }
    const backend = {
      path: model.path,
      info: model.info,
      chat: session.chat.bind(session),
      streamChat: session.streamChat.bind(session),
      embed: (texts: readonly string[], options?: { signal?: AbortSignal }) => model.embed(texts, options),
      tokenize: (text: string) => model.tokenize(text),
      detokenize: (tokens: ArrayLike<number>) => model.detokenize(tokens),
      rank: (query: string, documents: readonly string[], options?: { signal?: AbortSignal }) =>
        model.rank(query, documents, options),
      rankTokens: (query: string, document: string) => model.rankTokens(query, document),
      slots: args.parallel,
      saveSlot: async (slot: number, path: string) => ({
        tokens: (await session.save(path, { sequence: slot })).tokens.length,
      }),
      restoreSlot: async (slot: number, path: string) => ({
        tokens: (await session.restore(path, { sequence: slot })).tokens.length,
      }),
    };
    const [alias, ...aliases] = args.aliases;
    const server = createServer(backend, {
      ...(args.quiet ? {} : { log: (line: string) => io.stderr.write(`${line}\n`) }),
      ...(args.apiKey !== undefined ? { apiKey: args.apiKey } : {}),
      ...(alias !== undefined ? { modelId: alias, aliases } : {}),
      ...(args.cors !== undefined ? { cors: args.cors } : {}),
      ...(args.maxTokens !== undefined ? { maxTokens: args.maxTokens } : {}),
      ...(args.maxBodyBytes !== undefined ? { maxBodyBytes: args.maxBodyBytes } : {}),
      ...(args.slotSavePath !== undefined ? { slotSavePath: args.slotSavePath } : {}),
    });
    let url: string;
    try {
      ({ url } = await server.listen({ host: args.host, port: args.port }));
    } catch (e) {
      io.stderr.write(`toolwright serve: cannot listen on ${args.host}:${args.port}: ${(e as Error).message}\n`);
      return 1;
    }
    const key = args.apiKey !== undefined ? ", API key required" : "";
    io.stdout.write(
      `toolwright serve: ${server.modelId} at ${url}/v1 (${args.parallel} parallel ` +
        `sequence${args.parallel === 1 ? "" : "s"}${key})\n`,
    );
    await stopRequested(io.stop, () => void server.close({ timeoutMs: 0 }));
    io.stderr.write(`toolwright serve: stopping (${server.inFlight} request(s) in flight)\n`);
    await server.close();
    io.stderr.write("toolwright serve: stopped\n");
    session.dispose();
    return 0;
  } finally {
    model.dispose();
    draft?.dispose();
  }
}
