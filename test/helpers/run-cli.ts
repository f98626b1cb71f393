/**
 * Runs the `toolwright` command in this process (its `main`), capturing what it writes.
 */
import { main } from "../../src/cli/main.js";

/** What one run of the command did: its exit code and everything it wrote to stdout and stderr. */
export interface CliRun {
  code: number;
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
