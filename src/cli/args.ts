/**
 * Command-line parsing for every subcommand, over `node:util`'s `parseArgs`: one table of options
 * per command gives both the parser's configuration and the option list of its `--help`, and a
 * mistake (an unknown option, with a did-you-mean; a missing value; a value for a flag) is a
 * {@link UsageError} that names it.
 *
 * @example
 * const table = { json: { type: "boolean", help: "print JSON" } };
 * const { values, positionals } = parseCommandArgs(["m.gguf", "--json"], table);
 */
import { parseArgs } from "node:util";
import { closestName } from "../validate/index.js";

/** One option of a command. */
export interface OptionSpec {
  type: "boolean" | "string";
  short?: string;
  /** The value's name in the help ("N", "FILE"); string options only. */
  value?: string;
  /** A string option that may be given more than once: its value is the list of all (see {@link stringValues}). */
  multiple?: boolean;
  help: string;
}

export type OptionTable = Record<string, OptionSpec>;

/** A mistake on the command line: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Where a command writes: its output and its messages. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * A command's arguments from `parse`, or the exit code it ends with first: 0 after printing its usage for
 * `--help` (`parse` returns "help"), 2 after printing a {@link UsageError} with the usage. Other errors throw.
 *
 * @example
 * const args = commandArgs("inspect", INSPECT_USAGE, io, () => parseInspectArgs(argv));
 * if (typeof args === "number") return args;
 */
export function commandArgs<T>(command: string, usage: string, io: CliIo, parse: () => T | "help"): T | number {
  try {
    const parsed = parse();
    if (parsed !== "help") return parsed;
    io.stdout.write(usage);
    return 0;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr.write(`toolwright ${command}: ${e.message}\n\n${usage}`);
    return 2;
  }
}

/** What was given: each string option's value (a list for `multiple` ones), each flag as true. */
export interface ParsedArgs {
  values: Record<string, string | string[] | boolean | undefined>;
  positionals: string[];
}

/** Every command has -h/--help. */
const HELP: OptionSpec = { type: "boolean", short: "h", help: "show this help" };

/**
 * Parses `argv` against `table` (plus -h/--help); throws a {@link UsageError} for anything the
 * table does not allow.
 *
 * @example
 * parseCommandArgs(["--jsn"], { json: { type: "boolean", help: "" } });
 * // UsageError: unknown option --jsn (did you mean --json?)
 */
export function parseCommandArgs(argv: readonly string[], table: OptionTable): ParsedArgs {
  const all: OptionTable = { ...table, help: HELP };
  const options = Object.fromEntries(
    Object.entries(all).map(([name, o]) => [name, o.short ? { type: o.type, short: o.short } : { type: o.type }]),
  );
  // Not strict: the tokens are checked here, so the messages can say more than parseArgs' own.
  const { tokens } = parseArgs({ args: [...argv], options, allowPositionals: true, strict: false, tokens: true });
  const values: ParsedArgs["values"] = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") {
      positionals.push(token.value);
      continue;
    }
    if (token.kind !== "option") continue;
    const spec = Object.hasOwn(all, token.name) ? all[token.name] : undefined;
    if (!spec) {
      const hint = closestName(token.name, Object.keys(all));
      throw new UsageError(`unknown option ${token.rawName}${hint ? ` (did you mean --${hint}?)` : ""}`);
    }
    if (spec.type === "boolean") {
      if (token.inlineValue)
        throw new UsageError(`${token.rawName} takes no value, got ${JSON.stringify(token.value)}`);
      values[token.name] = true;
      continue;
    }
    // `--seed --json`: parseArgs would take "--json" as the value; that is a forgotten value.
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith("--"))) {
      throw new UsageError(`${token.rawName} needs a value${spec.value ? ` (${spec.value})` : ""}`);
    }
    if (spec.multiple) {
      const before = values[token.name];
      values[token.name] = [...(Array.isArray(before) ? before : []), token.value];
    } else values[token.name] = token.value;
  }
  return { values, positionals };
}

/**
 * The option list of a command's help, from its table (aligned, -h/--help last).
 *
 * @example
 * formatOptions({ json: { type: "boolean", help: "print JSON" } });
 * // "  --json        print JSON\n  -h, --help    show this help\n"
 */
export function formatOptions(table: OptionTable): string {
  const rows = Object.entries({ ...table, help: HELP }).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : ""}--${name}${o.type === "string" ? ` ${o.value ?? "VALUE"}` : ""}`;
    return [flag, o.help] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  return (
    rows.map(([flag, help]) => `  ${flag.padEnd(width)}${help.replace(/\n/g, `\n  ${" ".repeat(width)}`)}`).join("\n") +
    "\n"
  );
}

/**
 * A number option's value; throws a {@link UsageError} naming the option when it is not a
 * number (an integer when `integer`) of at least `min`.
 *
 * @example
 * parseNumberOption("max-tokens", "16", true, 1); // 16
 */
export function parseNumberOption(
  option: string,
  text: string,
  integer: boolean,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in [${min}, ${max}]`;
    throw new UsageError(
      `--${option} must be ${integer ? "an integer" : "a number"} ${range}, got ${JSON.stringify(text)}`,
    );
  }
  return n;
}

/** A string option's value, or undefined when not given. */
export function stringValue(values: ParsedArgs["values"], name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}

/**
 * A `multiple` option's values, in the order given (empty when not given).
 *
 * @example
 * stringValues(parseCommandArgs(["--alias", "a", "--alias", "b"], table).values, "alias"); // ["a", "b"]
 */
export function stringValues(values: ParsedArgs["values"], name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}
