#!/usr/bin/env node
/**
 * The `toolwright` command line: a small dispatcher over subcommands.
 *
 * @example
 * // $ toolwright pull hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf
 * // $ toolwright chat --help
 */
import { readFileSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { closestName } from "../validate/index.js";
import { ANALYZE_USAGE, runAnalyze } from "./analyze.js";
import type { CliIo } from "./args.js";
import { INSPECT_USAGE, runInspect } from "./inspect.js";
import { CHAT_USAGE, runChat } from "./chat.js";
import { PULL_USAGE, runPull } from "./pull.js";
import { RPC_SERVER_USAGE, runRpcServer } from "./rpc-server.js";
import { SERVE_USAGE, runServe } from "./serve.js";

interface Command {
  summary: string;
  usage: string;
  run(argv: readonly string[], io: CliIo): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  pull: {
    summary: "download a model from the Hugging Face hub into the hub cache it shares",
    usage: PULL_USAGE,
    run: runPull,
  },
  analyze: {
    summary: "show how a model writes reasoning, content and tool calls",
    usage: ANALYZE_USAGE,
    run: runAnalyze,
  },
  inspect: {
    summary: "show a GGUF model's metadata, chat template and tokenizer (no weights loaded)",
    usage: INSPECT_USAGE,
    run: runInspect,
  },
  chat: {
    summary: "chat with a model in the terminal (tool calls shown, not executed)",
    usage: CHAT_USAGE,
    run: runChat,
  },
  "rpc-server": {
    summary: "serve this machine's devices to other machines' models (llama.cpp RPC; no auth)",
    usage: RPC_SERVER_USAGE,
    run: runRpcServer,
  },
  serve: {
    summary: "serve a model over HTTP with OpenAI's chat-completions API",
    usage: SERVE_USAGE,
    run: runServe,
  },
};

function mainUsage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return (
    `Usage: toolwright <command> [options]\n\nCommands:\n${lines.join("\n")}\n\n  --version     print ` +
    `toolwright's version\n  -h, --help    show this help\n\nRun 'toolwright help ` +
    `<command>' (or 'toolwright <command> --help') for a command's options.\n`
  );
}

/** The package's version, from its package.json (two folders up from src/cli and lib/cli alike). */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
  return typeof pkg.version === "string" ? pkg.version : "unknown";
}

function unknownCommand(name: string): string {
  const hint = closestName(name, Object.keys(COMMANDS));
  return (
    `toolwright: unknown command ` +
    `${JSON.stringify(name)}${hint ? ` (did you mean ${JSON.stringify(hint)}?)` : ""}\n\n${mainUsage()}`
  );
}

/**
 * Runs the CLI with `argv` (without node and script); resolves to the exit code.
 *
 * @example
 * process.exitCode = await main(["analyze", "tpl.jinja"], process);
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-v") {
    io.stdout.write(`${version()}\n`);
    return 0;
  }
  if (name === undefined || name === "-h" || name === "--help" || name === "help") {
    const topic = name === "help" ? rest[0] : undefined;
    const command = topic !== undefined && Object.hasOwn(COMMANDS, topic) ? COMMANDS[topic] : undefined;
    if (topic !== undefined && !command) {
      io.stderr.write(unknownCommand(topic));
      return 2;
    }
    (name === undefined ? io.stderr : io.stdout).write(command ? command.usage : mainUsage());
    return name === undefined ? 2 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    io.stderr.write(
      name.startsWith("-")
        ? `toolwright: unknown option ${name} (options go after the command)\n\n${mainUsage()}`
        : unknownCommand(name),
    );
    return 2;
  }
  return command.run(rest, io);
}

function invokedDirectly(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  main(process.argv.slice(2), process).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`toolwright: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 70;
    },
  );
}
