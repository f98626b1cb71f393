#!/usr/bin/env node
/**
 * The `toolwright` command line: a small dispatcher over subcommands.
 *
 * @example
 * // $ toolwright analyze model.gguf
 * // $ toolwright --help
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ANALYZE_USAGE, runAnalyze, type CliIo } from "./analyze.js";
import { INSPECT_USAGE, runInspect } from "./inspect.js";
import { CHAT_USAGE, runChat } from "./chat.js";
import { SERVE_USAGE, runServe } from "./serve.js";

interface Command {
  summary: string;
  usage: string;
  run(argv: readonly string[], io: CliIo): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
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
  serve: {
    summary: "serve a model over HTTP with OpenAI's chat-completions API",
    usage: SERVE_USAGE,
    run: runServe,
  },
};

function mainUsage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `Usage: toolwright <command> [options]\n\nCommands:\n${lines.join("\n")}\n\nRun 'toolwright <command> --help' for a command's options.\n`;
}

/**
 * Runs the CLI with `argv` (without node and script); resolves to the exit code.
 *
 * @example
 * process.exitCode = await main(["analyze", "tpl.jinja"], process);
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "-h" || name === "--help" || name === "help") {
    const topic = name === "help" ? rest[0] : undefined;
    const command = topic !== undefined ? COMMANDS[topic] : undefined;
    if (topic !== undefined && !command) {
      io.stderr.write(`toolwright: unknown command ${JSON.stringify(topic)}\n\n${mainUsage()}`);
      return 2;
    }
    (name === undefined ? io.stderr : io.stdout).write(command ? command.usage : mainUsage());
    return name === undefined ? 2 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    io.stderr.write(`toolwright: unknown command ${JSON.stringify(name)}\n\n${mainUsage()}`);
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
