// Command-line options of a bench script: node's parseArgs, `--help` printing the script's usage,
// and errors as one line naming the script (exit 1) instead of a stack trace.
import { parseArgs } from "node:util";

/**
 * Writes `bench:NAME: message` to stderr and exits 1.
 * @param {string} name
 * @param {string} message
 * @returns {never}
 */
export function benchFail(name, message) {
  process.stderr.write(`bench:${name}: ${message}\n`);
  process.exit(1);
}

/**
 * The parsed option values of `options` (parseArgs' table; a boolean `help` is added), after
 * printing `help` and exiting on --help.
 * @template {NonNullable<import("node:util").ParseArgsConfig["options"]>} const T
 * @param {string} name
 * @param {string} help
 * @param {T} options
 * @returns {ReturnType<typeof parseArgs<{ options: T }>>["values"]}
 */
export function parseBenchArgs(name, help, options) {
  /** @type {Record<string, unknown>} */
  let values = {};
  try {
    ({ values } = parseArgs({ options: { ...options, help: { type: "boolean", short: "h", default: false } } }));
  } catch (e) {
    benchFail(name, `${/** @type {Error} */ (e).message} (see --help)`);
  }
  if (values.help) {
    process.stdout.write(help);
    process.exit(0);
  }
  return /** @type {any} */ (values);
}
