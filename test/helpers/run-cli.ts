/**
 * Runs the `toolwright` command: in this process (its `main`), or as a child process of the
 * compiled package, capturing what it writes.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { join } from "node:path";
import { main } from "../../src/cli/main.js";
import { REPO_ROOT } from "./test-models.js";

/** What one run of the command did: its exit code and everything it wrote to stdout and stderr. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `toolwright ...argv` in process: `await runCli("inspect", path, "--json")`. */
export async function runCli(...argv: string[]): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
  });
  return { code, stdout, stderr };
}

/** A `toolwright` child process of the compiled package (lib/), its output collected as it comes. */
export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  /** What it has written so far. */
  stdout(): string;
  stderr(): string;
  /** Its exit code (null when a signal ended it). */
  exit: Promise<number | null>;
}

/** Starts `node lib/cli/main.js ...args` in the repository, without colours, `env` added to the environment. */
export function spawnCli(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, [join(REPO_ROOT, "lib", "cli", "main.js"), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, NO_COLOR: "1", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

/** Runs `node lib/cli/main.js ...args` with `input` on stdin, to its end. */
export async function runCliProcess(
  args: string[],
  input: string,
  env: Record<string, string> = {},
): Promise<CliRun & { code: number | null }> {
  const p = spawnCli(args, env);
  p.child.stdin.end(input);
  const code = await p.exit;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}
