/**
 * What `toolwright chat` and `toolwright serve` share about chat options on the command line: the
 * `--context-overflow` and `--lora` flags, and error messages that name the flag the user typed (`--template`)
 * where chat() names its option (`options.template`).
 *
 * @example
 * flagMessage('streamChat: options.maxTokens (4) is below ...', CHAT_FLAG_OF_OPTION); // "--max-tokens (4) is ..."
 */
import { LoraError } from "../runtime/errors.js";
import type { LoraSpec } from "../runtime/lora.js";
import type { Model } from "../runtime/model.js";
import type { OptionSpec } from "./args.js";
import { UsageError } from "./args.js";

/** What to do with a conversation that outgrows the context (chat()'s `contextOverflow`). */
export type ContextOverflowFlag = "error" | "truncate-oldest";

/** The `--context-overflow` row of a command's option table. */
export const CONTEXT_OVERFLOW_OPTION: OptionSpec = {
  type: "string",
  value: "MODE",
  help:
    "a conversation longer than the context: error (default) or truncate-oldest\n(leave the oldest turns " +
    "out; the system prompt, the tools and the latest turn stay, and\nthe turns kept stay in the cache where the " +
    "model can shift them)",
};

/** The `--context-overflow` value, checked (a {@link UsageError} names the flag). */
export function contextOverflowOf(text: string | undefined): ContextOverflowFlag | undefined {
  if (text === undefined || text === "error" || text === "truncate-oldest") return text;
  throw new UsageError(`--context-overflow must be error or truncate-oldest, got ${JSON.stringify(text)}`);
}

/** chat()'s options that `toolwright chat` sets from a flag, and the flag. */
export const CHAT_FLAG_OF_OPTION: Readonly<Record<string, string>> = {
  tools: "--tools",
  toolChoice: "--tool-choice",
  responseFormat: "--json-schema",
  template: "--template",
  contextSize: "--context-size",
  maxTokens: "--max-tokens",
  "sampling.temperature": "--temperature",
  "sampling.seed": "--seed",
  enableThinking: "--no-thinking",
  contextOverflow: "--context-overflow",
};

/**
 * `message` with chat()'s option names replaced by the flags that set them: "streamChat: options.template
 * must not be empty" → "--template must not be empty"; "pass options.template" → "pass --template". A deeper
 * path keeps its part inside the flag's value: "options.tools[0].function.parameters" → "--tools
 * (tools[0].function.parameters)". An option named bare in a remedy ("pass a larger contextSize", `pass
 * contextOverflow: "truncate-oldest"`) is replaced too where its name is camelCase (not an English word).
 * Options no flag sets are left as they are.
 *
 * @example
 * flagMessage("chat: the model has no chat template; pass options.template", CHAT_FLAG_OF_OPTION);
 * // "the model has no chat template; pass --template"
 */
export function flagMessage(message: string, flags: Readonly<Record<string, string>>): string {
  // Longest first: "sampling.seed" before a shorter option it starts with.
  const options = Object.keys(flags).sort((a, b) => b.length - a.length);
  let named = message.replace(/\boptions\.([A-Za-z]+(?:\.[A-Za-z_$][\w$]*|\[\d+\])*)/g, (all, path: string) => {
    const option = options.find((o) => path === o || path.startsWith(`${o}.`) || path.startsWith(`${o}[`));
    if (option === undefined) return all;
    return path === option ? flags[option]! : `${flags[option]} (${path})`;
  });
  for (const option of options.filter((o) => /^[a-z]+[A-Z]\w*$/.test(o))) {
    const bare = new RegExp(`(?<![\\w.$-])${option}(?::\\s*"([^"]*)")?(?![\\w.[])`, "g");
    named = named.replace(bare, (_all, value?: string) =>
      value === undefined ? flags[option]! : `${flags[option]} ${value}`,
    );
  }
  // The CLI writes its own prefix: chat()'s ("chat: ") would say it twice.
  return named.replace(/^(?:chat|streamChat): /, "");
}

/** The `--projector` row of a command's option table. */
export const PROJECTOR_OPTION: OptionSpec = {
  type: "string",
  value: "FILE",
  help: "a multimodal projector (mmproj GGUF: a path, hf:, or auto for an hf: model's own) so the model reads images",
};

/** A `--lora FILE[:SCALE]` value: the adapter file and its scale (default 1). */
export interface LoraFlag {
  path: string;
  scale: number;
}

/** The `--lora` row of a command's option table (repeatable). */
export const LORA_OPTION: OptionSpec = {
  type: "string",
  multiple: true,
  value: "FILE[:SCALE]",
  help: "a LoRA adapter GGUF to apply, with its scale (default 1); repeat for several",
};

/**
 * The `--lora` values: a trailing `:SCALE` that is a number is the scale, else the whole value is the path (so
 * a path with a colon in it stays whole). A {@link UsageError} names the flag.
 *
 * @example
 * loraFlagsOf(["style.gguf:0.5", "C:\\adapters\\tone.gguf"]);
 * // [{ path: "style.gguf", scale: 0.5 }, { path: "C:\\adapters\\tone.gguf", scale: 1 }]
 */
export function loraFlagsOf(values: readonly string[]): LoraFlag[] {
  return values.map((value) => {
    const match = /^(.*):([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)$/i.exec(value);
    const path = match ? match[1]! : value;
    const scale = match ? Number(match[2]) : 1;
    if (path === "") throw new UsageError(`--lora must name an adapter file, got ${JSON.stringify(value)}`);
    if (!Number.isFinite(scale))
      throw new UsageError(`--lora scale must be a finite number, got ${JSON.stringify(value)}`);
    return { path, scale };
  });
}

/**
 * Loads the `--lora` adapters for `model`: the context option `loras`, or the error message (naming the file and
 * why) when one cannot be loaded.
 */
export async function loadLoraFlags(model: Model, flags: readonly LoraFlag[]): Promise<LoraSpec[] | string> {
  const loras: LoraSpec[] = [];
  for (const { path, scale } of flags) {
    try {
      loras.push({ adapter: await model.loadLora(path), scale });
    } catch (e) {
      if (!(e instanceof LoraError)) throw e;
      return `--lora: ${e.message}`;
    }
  }
  return loras;
}
