// Command line of `npm run fuzz` (scripts/fuzz.mjs).
import { TARGETS } from "./targets.mjs";

export const USAGE = `usage: npm run fuzz -- [--minutes N] [--target NAME]... [--list] [--repro FILE --target NAME]

  --minutes N     minutes per target (default 1; fractions allowed)
  --target NAME   run only this target (repeatable); default: all, one after another
  --list          print the targets and exit
  --repro FILE    run one input through the target once (a finding, to debug it)
  --timeout S     seconds one input may take before it is a timeout finding (default 10)
  --rss-mb N      memory one run may use before it is an out-of-memory finding (default 2560)`;

/**
 * @typedef {{ minutes: number, targets: string[], list: boolean, repro: string | null,
 *   timeout: number, rssMb: number, help: boolean }} FuzzArgs
 */

/**
 * Parses the runner's arguments. Throws an Error naming the bad argument.
 * @param {string[]} argv
 * @returns {FuzzArgs}
 */
export function parseFuzzArgs(argv) {
  /** @type {FuzzArgs} */
  const out = { minutes: 1, targets: [], list: false, repro: null, timeout: 10, rssMb: 2560, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    const positive = (v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0) throw new Error(`${arg} must be a positive number, got ${JSON.stringify(v)}`);
      return n;
    };
    if (arg === "--minutes") out.minutes = positive(value());
    else if (arg === "--timeout") out.timeout = positive(value());
    else if (arg === "--rss-mb") out.rssMb = positive(value());
    else if (arg === "--target") {
      const name = value();
      if (!TARGETS.some((t) => t.name === name))
        throw new Error(`unknown target ${JSON.stringify(name)} (targets: ${TARGETS.map((t) => t.name).join(", ")})`);
      out.targets.push(name);
    } else if (arg === "--list") out.list = true;
    else if (arg === "--repro") out.repro = value();
    else if (arg === "--help" || arg === "-h") out.help = true;
    else throw new Error(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (out.repro !== null && out.targets.length !== 1) throw new Error("--repro needs exactly one --target");
  if (out.targets.length === 0) out.targets = TARGETS.map((t) => t.name);
  return out;
}
