/**
 * `toolwright chat <model.gguf>`: an interactive chat in the terminal (or over piped stdin), with
 * optional tools whose calls are shown but not executed.
 *
 * @example
 * const code = await runChat(["model.gguf", "--tools", "tools.json"], process);
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { loadModel, type ChatModel as Model } from "../session/index.js";
import type { GpuOption } from "../runtime/devices.js";
import { ModelLoadError } from "../runtime/errors.js";
import type { ChatMessage, ToolCall, ToolChoice, ToolDefinition } from "../types.js";
import type { SamplingOptions } from "../runtime/sampling.js";
import type { CliIo } from "./analyze.js";
import { createProgressReporter, type ProgressStream } from "./progress.js";

export const CHAT_USAGE = `Usage: toolwright chat <model.gguf> [options]

Chats with a model: type a message, the answer streams back. Reads lines from
stdin (a terminal or a pipe); /exit or end of input quits. Ctrl-C while an
answer is streaming stops that answer; Ctrl-C at the prompt quits.

Reasoning is shown dimmed, tool calls as '→ name(arguments)'. Tool calls are
shown, NOT executed: the conversation goes on without their results.

  --tools FILE          JSON file with an OpenAI 'tools' array (or {"tools": [...]})
  --tool-choice MODE    auto (default), required or none
  --system TEXT         system message at the start of the conversation
  --max-tokens N        most tokens per answer (default 1024)
  --temperature T       sampling temperature (0 = greedy)
  --seed N              sampling seed, for repeatable answers
  --no-thinking         ask the template not to reason (enable_thinking=false)
  --gpu MODE            auto (default: the build's GPUs if any), cuda, metal, vulkan or off
  --gpu-layers N        layers to offload to the GPU (default: all)
  -h, --help            show this help

Exit codes: 0 ok, 1 the model or the tools file cannot be loaded, 2 usage error.
`;

/** What `runChat` reads and writes; `stdin` defaults to process.stdin. */
export interface ChatIo extends CliIo {
  stdin?: Readable & { isTTY?: boolean };
}

interface ChatArgs {
  modelPath: string;
  toolsPath?: string;
  toolChoice?: ToolChoice;
  system?: string;
  maxTokens?: number;
  sampling: SamplingOptions;
  enableThinking?: boolean;
  gpu?: GpuOption;
  gpuLayers?: number;
}

class UsageError extends Error {}

const VALUE_OPTIONS = new Set(["--tools", "--tool-choice", "--system", "--max-tokens", "--temperature", "--seed", "--gpu", "--gpu-layers"]);

function parseNumber(option: string, text: string, integer: boolean, min: number): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min) {
    throw new UsageError(`${option} must be ${integer ? "an integer" : "a number"} >= ${min}, got ${JSON.stringify(text)}`);
  }
  return n;
}

function parseArgs(argv: readonly string[]): ChatArgs | "help" {
  const paths: string[] = [];
  const args: Omit<ChatArgs, "modelPath"> = { sampling: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "-h" || arg === "--help") return "help";
    if (arg === "--no-thinking") {
      args.enableThinking = false;
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") {
      paths.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const option = eq < 0 ? arg : arg.slice(0, eq);
    if (!VALUE_OPTIONS.has(option)) throw new UsageError(`unknown option ${arg}`);
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else {
      const next = argv[++i];
      if (next === undefined) throw new UsageError(`${option} needs a value`);
      value = next;
    }
    switch (option) {
      case "--tools":
        args.toolsPath = value;
        break;
      case "--tool-choice":
        if (value !== "auto" && value !== "required" && value !== "none") {
          throw new UsageError(`--tool-choice must be auto, required or none, got ${JSON.stringify(value)}`);
        }
        args.toolChoice = value;
        break;
      case "--system":
        args.system = value;
        break;
      case "--max-tokens":
        args.maxTokens = parseNumber(option, value, true, 1);
        break;
      case "--temperature":
        args.sampling.temperature = parseNumber(option, value, false, 0);
        break;
      case "--seed":
        args.sampling.seed = parseNumber(option, value, true, 0);
        break;
      case "--gpu":
        if (value === "off") args.gpu = false;
        else if (value === "auto" || value === "cuda" || value === "metal" || value === "vulkan") args.gpu = value;
        else throw new UsageError(`--gpu must be auto, cuda, metal, vulkan or off, got ${JSON.stringify(value)}`);
        break;
      case "--gpu-layers":
        args.gpuLayers = parseNumber(option, value, true, 0);
        break;
    }
  }
  if (paths.length !== 1) throw new UsageError(`expected one model path, got ${paths.length}`);
  if (args.toolChoice === "required" && args.toolsPath === undefined) {
    throw new UsageError("--tool-choice required needs --tools");
  }
  return { modelPath: paths[0]!, ...args };
}

/** Reads and checks an OpenAI `tools` array; throws an Error naming the file and the problem. */
async function readTools(path: string): Promise<ToolDefinition[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    throw new Error(`cannot read tools file ${path}: ${(e as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`tools file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  const tools = Array.isArray(data) ? data : (data as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) throw new Error(`tools file ${path} must hold an array of tools (or {"tools": [...]})`);
  tools.forEach((tool: unknown, i) => {
    const t = tool as { type?: unknown; function?: { name?: unknown; parameters?: unknown } } | null;
    const where = `tools file ${path}: tools[${i}]`;
    if (t === null || typeof t !== "object") throw new Error(`${where} must be an object`);
    if (t.type !== "function") throw new Error(`${where}.type must be "function", got ${JSON.stringify(t.type)}`);
    if (t.function === null || typeof t.function !== "object") throw new Error(`${where}.function must be an object`);
    if (typeof t.function.name !== "string" || t.function.name === "") throw new Error(`${where}.function.name must be a non-empty string`);
    const params = t.function.parameters;
    if (params !== undefined && (params === null || typeof params !== "object" || Array.isArray(params))) {
      throw new Error(`${where}.function.parameters must be a JSON Schema object`);
    }
  });
  return tools as ToolDefinition[];
}

function formatCall(call: ToolCall): string {
  return `→ ${call.function.name}(${call.function.arguments})\n`;
}

/**
 * Runs the command; resolves to the process exit code (0 ok, 1 load failure, 2 usage error).
 *
 * @example
 * process.exitCode = await runChat(["model.gguf", "--system", "Be brief."], process);
 */
export async function runChat(argv: readonly string[], io: ChatIo): Promise<number> {
  let args: ChatArgs;
  try {
    const parsed = parseArgs(argv);
    if (parsed === "help") {
      io.stdout.write(CHAT_USAGE);
      return 0;
    }
    args = parsed;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr.write(`toolwright chat: ${e.message}\n\n${CHAT_USAGE}`);
    return 2;
  }

  let tools: ToolDefinition[] | undefined;
  if (args.toolsPath !== undefined) {
    try {
      tools = await readTools(args.toolsPath);
    } catch (e) {
      io.stderr.write(`toolwright chat: ${(e as Error).message}\n`);
      return 1;
    }
  }

  const progress = createProgressReporter(io.stderr as ProgressStream, `loading ${basename(args.modelPath)}`);
  let model: Model;
  try {
    model = await loadModel(args.modelPath, {
      onProgress: progress.update,
      ...(args.gpu === undefined ? {} : { gpu: args.gpu }),
      ...(args.gpuLayers === undefined ? {} : { gpuLayers: args.gpuLayers }),
    });
  } catch (e) {
    progress.done();
    if (!(e instanceof ModelLoadError)) throw e;
    io.stderr.write(`toolwright chat: ${e.message}\n`);
    return 1;
  }
  progress.done();
  io.stderr.write(`${describePlacement(model)}\n`);
  try {
    await converse(model, args, tools, io);
  } finally {
    model.dispose();
  }
  return 0;
}

/** "running on the CPU" or "running on CUDA0 (NVIDIA ...): 25 of 25 layers". */
function describePlacement(model: Model): string {
  const { devices, gpuLayers } = model.placement;
  if (devices.length === 0) return "running on the CPU";
  const names = devices.map((d) => (d.description ? `${d.name} (${d.description})` : d.name)).join(", ");
  return `running on ${names}: ${gpuLayers} of ${model.info.layerCount + 1} layers`;
}

/** The read-answer loop, until /exit, end of input, or Ctrl-C at the prompt. */
async function converse(model: Model, args: ChatArgs, tools: ToolDefinition[] | undefined, io: ChatIo): Promise<void> {
  const stdin = io.stdin ?? process.stdin;
  const interactive = stdin.isTTY === true;
  const stdoutTty = (io.stdout as { isTTY?: boolean }).isTTY === true;
  const color = stdoutTty && (process.env.NO_COLOR ?? "") === "";
  const dim = (text: string) => (color ? `\x1b[2m${text}\x1b[22m` : text);

  const rl = createInterface({ input: stdin, output: interactive ? (io.stdout as NodeJS.WritableStream) : undefined, terminal: interactive });
  rl.setPrompt("> ");
  let generation: AbortController | undefined;
  // Ctrl-C stops the answer being written; at the prompt it quits.
  const onInterrupt = () => {
    if (generation) generation.abort();
    else rl.close();
  };
  rl.on("SIGINT", onInterrupt);
  process.on("SIGINT", onInterrupt);

  const messages: ChatMessage[] = args.system !== undefined ? [{ role: "system", content: args.system }] : [];
  try {
    if (interactive) rl.prompt();
    for await (const raw of rl) {
      const line = raw.trim();
      if (line === "/exit" || line === "/quit") break;
      if (line !== "") {
        messages.push({ role: "user", content: raw });
        generation = new AbortController();
        try {
          const assistant = await answer(model, args, tools, messages, generation.signal, io, dim);
          messages.push(assistant);
        } catch (e) {
          // A failed turn is dropped from the history; the conversation goes on.
          messages.pop();
          io.stderr.write(`toolwright chat: ${e instanceof Error ? e.message : String(e)}\n`);
        } finally {
          generation = undefined;
        }
      }
      if (interactive) rl.prompt();
    }
  } finally {
    rl.off("SIGINT", onInterrupt);
    process.off("SIGINT", onInterrupt);
    rl.close();
  }
}

/** Streams one answer to stdout; returns the assistant message for the history. */
async function answer(
  model: Model,
  args: ChatArgs,
  tools: ToolDefinition[] | undefined,
  messages: ChatMessage[],
  signal: AbortSignal,
  io: ChatIo,
  dim: (text: string) => string,
): Promise<ChatMessage> {
  const stream = model.streamChat({
    messages: [...messages],
    ...(tools ? { tools } : {}),
    ...(args.toolChoice ? { toolChoice: args.toolChoice } : {}),
    ...(args.maxTokens !== undefined ? { maxTokens: args.maxTokens } : {}),
    ...(args.enableThinking !== undefined ? { enableThinking: args.enableThinking } : {}),
    sampling: args.sampling,
    maxSteps: 1,
    signal,
  });
  let atLineStart = true;
  const write = (text: string) => {
    if (text === "") return;
    io.stdout.write(text);
    atLineStart = text.endsWith("\n");
  };
  let inReasoning = false;
  for await (const chunk of stream) {
    const delta = chunk.choices[0].delta;
    if (delta.reasoning_content) {
      inReasoning = true;
      write(dim(delta.reasoning_content));
    }
    if (delta.content) {
      // Separate the answer from the reasoning shown before it.
      if (inReasoning && !atLineStart) write("\n");
      inReasoning = false;
      write(delta.content);
    }
  }
  const result = await stream.result;
  if (!atLineStart) write("\n");
  const calls = result.message.tool_calls ?? [];
  for (const call of calls) write(formatCall(call));
  if (result.finishReason === "abort") io.stderr.write("[answer stopped]\n");
  else if (result.finishReason === "length") io.stderr.write(`[answer cut at ${result.usage.completionTokens} tokens]\n`);
  return result.message;
}
