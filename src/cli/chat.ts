/**
 * `toolwright chat <model.gguf | hf:…>`: an interactive chat in the terminal (or over piped
 * stdin), with optional tools whose calls are shown, as they are written, but not executed.
 *
 * @example
 * const code = await runChat(["model.gguf", "--tools", "tools.json"], process);
 */
import { basename } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { type ChatModel as Model, ChatSession, DEFAULT_MAX_TOKENS, loadModel } from "../session/index.js";
import type { GpuOption } from "../runtime/devices.js";
import { ModelLoadError } from "../runtime/errors.js";
import { ModelDownloadError } from "../runtime/hub/errors.js";
import { MediaError } from "../runtime/projector.js";
import type { ChatMessage, ResponseFormat, ToolChoice, ToolDefinition, UserMessage } from "../types.js";
import type { SamplingOptions } from "../runtime/sampling.js";
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
  CHAT_FLAG_OF_OPTION,
  CONTEXT_OVERFLOW_OPTION,
  contextOverflowOf,
  flagMessage,
  LORA_OPTION,
  PROJECTOR_OPTION,
  type LoraFlag,
  loadLoraFlags,
  loraFlagsOf,
} from "./chat-flags.js";
import { readImageFile, readJsonSchemaFile, readTemplateFile, readToolsFile } from "./chat-inputs.js";
import { AnswerView } from "./chat-output.js";
import { type ResumedChat, resumeChat, saveChat } from "./chat-session-file.js";
import { resolveModelArg } from "./model-arg.js";
import {
  loadSpeculative,
  SPECULATIVE_OPTIONS,
  type SpeculativeFlags,
  speculativeFlagsOf,
} from "./speculative-flags.js";
import { createProgressReporter, type ProgressStream } from "./progress.js";
import { FLASH_ATTENTION_OPTION, flashAttentionOf } from "./flash-attention-flag.js";

const CHAT_OPTIONS: OptionTable = {
  tools: { type: "string", value: "FILE", help: "JSON file with an OpenAI 'tools' array (or {\"tools\": [...]})" },
  "tool-choice": { type: "string", value: "MODE", help: "auto (default), required or none" },
  "json-schema": { type: "string", value: "FILE", help: "JSON Schema file the answers must follow (response_format)" },
  system: { type: "string", value: "TEXT", help: "system message at the start of the conversation" },
  template: { type: "string", value: "FILE", help: "Jinja chat template to use instead of the model's own" },
  "context-size": {
    type: "string",
    value: "N",
    help: "tokens of context (default: sized automatically, up to 8192 and the model's training context)",
  },
  "context-overflow": CONTEXT_OVERFLOW_OPTION,
  "max-tokens": { type: "string", value: "N", help: `most tokens per answer (default ${DEFAULT_MAX_TOKENS})` },
  temperature: { type: "string", value: "T", help: "sampling temperature (0 = greedy)" },
  seed: { type: "string", value: "N", help: "sampling seed, for repeatable answers" },
  "no-thinking": {
    type: "boolean",
    help: "ask the template not to reason (enable_thinking=false, or the variable it switches with)",
  },
  gpu: { type: "string", value: "MODE", help: "auto (default: the build's GPUs if any), cuda, metal, vulkan or off" },
  "gpu-layers": { type: "string", value: "N", help: "layers to offload to the GPU (default: all)" },
  ...FLASH_ATTENTION_OPTION,
  lora: LORA_OPTION,
  ...SPECULATIVE_OPTIONS,
  projector: PROJECTOR_OPTION,
  session: {
    type: "string",
    value: "FILE",
    help:
      "keep the conversation in FILE (its cache in FILE.kv): resumed when FILE exists,\n" + "saved after every answer",
  },
  image: {
    type: "string",
    multiple: true,
    value: "FILE",
    help:
      "an image (PNG, JPEG, ...) for the first message; needs --projector. In the chat,\n" +
      "/image FILE adds one to the next message",
  },
};

export const CHAT_USAGE = `Usage: toolwright chat <model.gguf | hf:OWNER/REPO/FILE.gguf> [options]

Chats with a model: type a message, the answer streams back. Reads lines from
stdin (a terminal or a pipe); /exit or end of input quits. Ctrl-C while an
answer is streaming stops that answer; Ctrl-C at the prompt quits. An hf:
model is downloaded first (see 'toolwright help pull'), or taken from the cache.

Reasoning is shown dimmed, tool calls as '→ name(arguments)', the arguments
as they are generated. Tool calls are shown, NOT executed: the conversation goes
on without their results.

${formatOptions(CHAT_OPTIONS)}
Exit codes: 0 ok, 1 the model or an input file cannot be loaded, 2 usage error.
`;

/** What `runChat` reads and writes; `stdin` defaults to process.stdin. */
export interface ChatIo extends CliIo {
  stdin?: Readable & { isTTY?: boolean };
}

export interface ChatArgs {
  model: string;
  toolsPath?: string;
  toolChoice?: ToolChoice;
  jsonSchemaPath?: string;
  system?: string;
  templatePath?: string;
  contextSize?: number;
  contextOverflow?: "error" | "truncate-oldest";
  flashAttention?: boolean;
  maxTokens?: number;
  sampling: SamplingOptions;
  enableThinking?: boolean;
  gpu?: GpuOption;
  gpuLayers?: number;
  loras: LoraFlag[];
  speculative: SpeculativeFlags;
  projector?: string;
  images: string[];
  sessionFile?: string;
}

/** What the files named on the command line hold. */
interface ChatInputs {
  /** The --image files, for the first message. */
  images: Uint8Array[];
  tools?: ToolDefinition[];
  template?: string;
  responseFormat?: ResponseFormat;
}

/**
 * The chat command's arguments (throws a {@link UsageError}).
 *
 * @example
 * parseChatArgs(["model.gguf", "--context-overflow", "truncate-oldest"]); // { model, contextOverflow, ... }
 */
export function parseChatArgs(argv: readonly string[]): ChatArgs | "help" {
  const { values, positionals } = parseCommandArgs(argv, CHAT_OPTIONS);
  if (values.help) return "help";
  if (positionals.length !== 1) throw new UsageError(`expected one model path, got ${positionals.length}`);
  const text = (name: string) => stringValue(values, name);
  const args: ChatArgs = {
    model: positionals[0]!,
    sampling: {},
    loras: loraFlagsOf(stringValues(values, "lora")),
    speculative: speculativeFlagsOf(values),
    images: stringValues(values, "image"),
  };
  const number = (name: string, integer: boolean, min: number, max?: number) => {
    const value = text(name);
    return value === undefined ? undefined : parseNumberOption(name, value, integer, min, max);
  };
  const set = <K extends keyof ChatArgs>(key: K, value: ChatArgs[K] | undefined) => {
    if (value !== undefined) args[key] = value;
  };
  set("toolsPath", text("tools"));
  set("jsonSchemaPath", text("json-schema"));
  set("system", text("system"));
  set("templatePath", text("template"));
  set("projector", text("projector"));
  set("sessionFile", text("session"));
  if (args.sessionFile === "") throw new UsageError("--session must name a file");
  if (args.images.length > 0 && args.projector === undefined)
    throw new UsageError("--image needs --projector (the model's mmproj file) to read images");
  const toolChoice = text("tool-choice");
  if (toolChoice !== undefined && toolChoice !== "auto" && toolChoice !== "required" && toolChoice !== "none") {
    throw new UsageError(`--tool-choice must be auto, required or none, got ${JSON.stringify(toolChoice)}`);
  }
  set("toolChoice", toolChoice);
  set("contextSize", number("context-size", true, 1, 1 << 24));
  set("flashAttention", flashAttentionOf(text("flash-attention")));
  set("contextOverflow", contextOverflowOf(text("context-overflow")));
  set("maxTokens", number("max-tokens", true, 1));
  const temperature = number("temperature", false, 0);
  if (temperature !== undefined) args.sampling.temperature = temperature;
  const seed = number("seed", true, 0, 2 ** 32 - 1);
  if (seed !== undefined) args.sampling.seed = seed;
  if (values["no-thinking"]) args.enableThinking = false;
  const gpu = text("gpu");
  if (gpu === "off") args.gpu = false;
  else if (gpu === "auto" || gpu === "cuda" || gpu === "metal" || gpu === "vulkan") args.gpu = gpu;
  else if (gpu !== undefined)
    throw new UsageError(`--gpu must be auto, cuda, metal, vulkan or off, got ${JSON.stringify(gpu)}`);
  set("gpuLayers", number("gpu-layers", true, 0));
  if (args.toolChoice === "required" && args.toolsPath === undefined)
    throw new UsageError("--tool-choice required needs --tools");
  return args;
}

async function readInputs(args: ChatArgs): Promise<ChatInputs> {
  const inputs: ChatInputs = { images: await Promise.all(args.images.map(readImageFile)) };
  if (args.toolsPath !== undefined) inputs.tools = await readToolsFile(args.toolsPath);
  if (args.templatePath !== undefined) inputs.template = await readTemplateFile(args.templatePath);
  if (args.jsonSchemaPath !== undefined) inputs.responseFormat = await readJsonSchemaFile(args.jsonSchemaPath);
  return inputs;
}

/**
 * Runs the command; resolves to the process exit code (0 ok, 1 load failure, 2 usage error).
 *
 * @example
 * process.exitCode = await runChat(["model.gguf", "--system", "Be brief."], process);
 */
export async function runChat(argv: readonly string[], io: ChatIo): Promise<number> {
  const args = commandArgs("chat", CHAT_USAGE, io, () => parseChatArgs(argv));
  if (typeof args === "number") return args;

  let inputs: ChatInputs;
  try {
    inputs = await readInputs(args);
  } catch (e) {
    io.stderr.write(`toolwright chat: ${(e as Error).message}\n`);
    return 1;
  }

  const model = await load(args, io);
  if (typeof model === "number") return model;
  let draft: { dispose(): void } | undefined;
  try {
    const train = model.info.trainContextSize;
    if (args.contextSize !== undefined && train > 0 && args.contextSize > train) {
      io.stderr.write(
        `toolwright chat: --context-size ${args.contextSize} exceeds the model's training context (${train} tokens)\n`,
      );
      return 1;
    }
    const loras = await loadLoraFlags(model, args.loras);
    if (typeof loras === "string") {
      io.stderr.write(`toolwright chat: ${loras}\n`);
      return 1;
    }
    const speculative = await loadSpeculative(args.speculative, model, {
      ...(args.gpu === undefined ? {} : { gpu: args.gpu }),
      ...(args.gpuLayers === undefined ? {} : { gpuLayers: args.gpuLayers }),
    });
    if (typeof speculative === "string") {
      io.stderr.write(`toolwright chat: ${speculative}\n`);
      return 1;
    }
    draft = speculative.draft;
    io.stderr.write(`${describePlacement(model)}\n`);
    const context = {
      ...(args.contextSize !== undefined ? { contextSize: args.contextSize } : {}),
      ...(args.flashAttention !== undefined ? { flashAttention: args.flashAttention } : {}),
      ...(loras.length > 0 ? { loras } : {}),
      ...(speculative.options ? { speculative: speculative.options } : {}),
    };
    // A context option or --session gets a session of its own; otherwise the model's (its default context).
    const own = Object.keys(context).length > 0 || args.sessionFile !== undefined;
    const session = own ? new ChatSession(model, { context }) : model;
    try {
      const resumed = await resumedChat(args, session, io);
      if (resumed === null) return 1;
      await converse(session, args, inputs, io, resumed);
    } finally {
      if (session instanceof ChatSession) session.dispose();
    }
  } finally {
    model.dispose();
    draft?.dispose();
  }
  return 0;
}

/**
 * Downloads an hf: model if needed, then loads it with a progress bar; a failure is exit code 1 (2 for a malformed hf:
 * reference).
 */
async function load(args: ChatArgs, io: ChatIo): Promise<Model | number> {
  const path = await resolveModelArg(args.model, { command: "chat", usage: CHAT_USAGE }, io);
  if (typeof path === "number") return path;
  const progress = createProgressReporter(io.stderr as ProgressStream, `loading ${basename(path)}`);
  try {
    const model = await loadModel(path, {
      onProgress: progress.update,
      ...(args.gpu === undefined ? {} : { gpu: args.gpu }),
      ...(args.gpuLayers === undefined ? {} : { gpuLayers: args.gpuLayers }),
      ...(args.projector === undefined ? {} : { projector: args.projector }),
    });
    progress.done();
    return model;
  } catch (e) {
    progress.done();
    if (!(e instanceof ModelLoadError || e instanceof MediaError || e instanceof ModelDownloadError)) throw e;
    io.stderr.write(`toolwright chat: ${e instanceof MediaError ? "--projector: " : ""}${e.message}\n`);
    return 1;
  }
}

/** "running on the CPU" or "running on CUDA0 (NVIDIA ...): 25 of 25 layers". */
function describePlacement(model: Model): string {
  const { devices, gpuLayers } = model.placement;
  if (devices.length === 0) return "running on the CPU";
  const names = devices.map((d) => (d.description ? `${d.name} (${d.description})` : d.name)).join(", ");
  return `running on ${names}: ${gpuLayers} of ${model.info.layerCount + 1} layers`;
}

/** The conversation --session resumes (undefined: none), or null after reporting why it cannot. */
async function resumedChat(
  args: ChatArgs,
  session: Model | ChatSession,
  io: ChatIo,
): Promise<ResumedChat | undefined | null> {
  if (args.sessionFile === undefined || !(session instanceof ChatSession)) return undefined;
  try {
    const resumed = await resumeChat(args.sessionFile, session);
    if (resumed) {
      io.stderr.write(`[resumed ${resumed.messages.length} messages from ${args.sessionFile}]\n`);
      if (resumed.cacheProblem) io.stderr.write(`[its cache is evaluated again: ${resumed.cacheProblem}]\n`);
    }
    return resumed;
  } catch (e) {
    io.stderr.write(`toolwright chat: ${(e as Error).message}\n`);
    return null;
  }
}

/** A user message: the text, and the images waiting for it. */
function withImages(text: string, images: readonly Uint8Array[]): UserMessage["content"] {
  if (images.length === 0) return text;
  return [...images.map((image) => ({ type: "image" as const, image })), { type: "text" as const, text }];
}

/** The read-answer loop, until /exit, end of input, or Ctrl-C at the prompt. */
async function converse(
  session: Model | ChatSession,
  args: ChatArgs,
  inputs: ChatInputs,
  io: ChatIo,
  resumed: ResumedChat | undefined,
): Promise<void> {
  const stdin = io.stdin ?? process.stdin;
  const interactive = stdin.isTTY === true;
  const stdoutTty = (io.stdout as { isTTY?: boolean }).isTTY === true;
  const color = stdoutTty && (process.env.NO_COLOR ?? "") === "";
  const dim = (text: string) => (color ? `\x1b[2m${text}\x1b[22m` : text);
  const rl = createInterface({
    input: stdin,
    output: interactive ? (io.stdout as NodeJS.WritableStream) : undefined,
    terminal: interactive,
  });
  rl.setPrompt("> ");
  let generation: AbortController | undefined;
  // Ctrl-C stops the answer being written; at the prompt it quits.
  const onInterrupt = () => {
    if (generation) generation.abort();
    else rl.close();
  };
  rl.on("SIGINT", onInterrupt);
  process.on("SIGINT", onInterrupt);

  const messages: ChatMessage[] =
    resumed?.messages ?? (args.system !== undefined ? [{ role: "system", content: args.system }] : []);
  const file = args.sessionFile;
  // Images waiting for the next message: --image's for the first, then each /image FILE's.
  let images = inputs.images;
  try {
    if (interactive) rl.prompt();
    for await (const raw of rl) {
      const line = raw.trim();
      if (line === "/exit" || line === "/quit") break;
      if (line.startsWith("/image ")) {
        const image = line.slice("/image ".length).trim();
        try {
          if (args.projector === undefined) throw new Error("/image needs --projector (the model's mmproj file)");
          images = [...images, await readImageFile(image)];
          io.stderr.write(`[${basename(image)} goes with the next message]\n`);
        } catch (e) {
          io.stderr.write(`toolwright chat: ${(e as Error).message}\n`);
        }
      } else if (line !== "") {
        messages.push({ role: "user", content: withImages(raw, images) });
        images = [];
        generation = new AbortController();
        try {
          const stream = session.streamChat({
            messages: [...messages],
            ...(inputs.tools ? { tools: inputs.tools } : {}),
            ...(inputs.template !== undefined ? { template: inputs.template } : {}),
            ...(inputs.responseFormat ? { responseFormat: inputs.responseFormat } : {}),
            ...(args.toolChoice ? { toolChoice: args.toolChoice } : {}),
            ...(args.maxTokens !== undefined ? { maxTokens: args.maxTokens } : {}),
            ...(args.contextOverflow !== undefined ? { contextOverflow: args.contextOverflow } : {}),
            ...(args.enableThinking !== undefined ? { enableThinking: args.enableThinking } : {}),
            sampling: args.sampling,
            maxSteps: 1,
            signal: generation.signal,
          });
          const view = new AnswerView(io.stdout, dim);
          for await (const chunk of stream) view.delta(chunk.choices[0].delta);
          const result = await stream.result;
          view.end(result.message);
          if (result.droppedMessages > 0)
            io.stderr.write(`[${result.droppedMessages} earliest messages left out to fit the context]\n`);
          if (result.finishReason === "abort") io.stderr.write("[answer stopped]\n");
          else if (result.finishReason === "length")
            io.stderr.write(`[answer cut at ${result.usage.completionTokens} tokens]\n`);
          messages.push(result.message);
          if (file !== undefined && session instanceof ChatSession) await saveChat(file, session, messages);
        } catch (e) {
          // A failed turn is dropped from the history; the conversation goes on.
          messages.pop();
          // chat() names its options; the user typed flags.
          const message = e instanceof Error ? e.message : String(e);
          io.stderr.write(`toolwright chat: ${flagMessage(message, CHAT_FLAG_OF_OPTION)}\n`);
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
