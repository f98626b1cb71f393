/**
 * Runs a piece of code in a child process, so that a crash, a hang or a memory blow-up is an
 * outcome the test can assert on instead of taking the test runner down. The child imports the
 * compiled package (`lib/`, kept current by ensureCompiledLib) and runs `body`, an async
 * function body that receives `lib` (the root export) and `sub(path)` (another module of lib/,
 * e.g. "grammar/index.js"), and returns a JSON-serialisable value.
 *
 * @example
 * const r = await isolated(
 *   `const { readGgufMetadata } = lib; await readGgufMetadata(${JSON.stringify(path)}); return "read";`,
 * );
 * expect(r.kind).toBe("threw");                    // a clean error, no crash
 * expect(r.error?.name).toBe("GgufError");
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ensureCompiledLib } from "./compiled-lib.js";

/** How the child ended. */
export type IsolatedKind =
  /** `body` returned: `value` holds what it returned. */
  | "returned"
  /** `body` threw: `error` holds the error's name, message and code. */
  | "threw"
  /** The process died: a signal (SIGSEGV, SIGABRT) or a non-zero exit without a report. */
  | "crashed"
  /** It ran past `timeoutMs` and was killed. */
  | "hung";

export interface IsolatedResult {
  kind: IsolatedKind;
  value?: unknown;
  error?: { name: string; message: string; code?: string };
  signal: NodeJS.Signals | null;
  exitCode: number | null;
  stderr: string;
  /** Peak resident memory of the child in MiB (from its own report; null when it crashed). */
  maxRssMiB: number | null;
}

export interface IsolatedOptions {
  /** Kill the child after this many ms (default 60 000). Generous: this bounds a hang, it is no speed check. */
  timeoutMs?: number;
  /** V8 old-space limit in MiB (default 1024): a JS-heap blow-up ends as a crash instead of eating the machine. */
  maxOldSpaceMiB?: number;
  /** Environment variables added to the child's (e.g. UV_THREADPOOL_SIZE, read before any code runs). */
  env?: Record<string, string>;
}

const REPORT = "\u0000isolated-report:";

/**
 * How the child ended, for an assertion's message: the kind, signal and exit code, what it
 * returned or threw, and its stderr.
 *
 * @example
 * expect(r.kind, describeOutcome(r)).toBe("returned");
 */
export function describeOutcome(r: IsolatedResult): string {
  return `${r.kind} (signal ${r.signal}, exit code ${r.exitCode}): ${JSON.stringify(r.error ?? r.value)}\n${r.stderr}`;
}

/** Runs `body` in a child Node process; see the module comment. */
export async function isolated(body: string, options: IsolatedOptions = {}): Promise<IsolatedResult> {
  const lib = await ensureCompiledLib();
  const { timeoutMs = 60_000, maxOldSpaceMiB = 1024, env } = options;
  const script = `
const lib = await import(${JSON.stringify(pathToFileURL(join(lib, "index.js")).href)});
const sub = (p) => import(${JSON.stringify(pathToFileURL(lib).href)} + "/" + p);
const report = (o) => process.stdout.write(${JSON.stringify(REPORT)} + JSON.stringify({ ...o,
  maxRss: process.resourceUsage().maxRSS }) + "\\n");
try {
  const value = await (async () => { ${body} })();
  report({ kind: "returned", value: value === undefined ? null : value });
} catch (e) {
  report({ kind: "threw", error: { name: e?.name ?? typeof e, message: String(e?.message ?? e),
    ...(typeof e?.code === "string" ? { code: e.code } : {}) } });
}
process.exit(0);
`;
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [`--max-old-space-size=${maxOldSpaceMiB}`, "--input-type=module", "-e", script],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } },
    );
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer);
      const line = stdout.split("\n").find((l) => l.startsWith(REPORT));
      const tail = stderr.slice(-4000);
      if (timedOut) return resolve({ kind: "hung", signal, exitCode, stderr: tail, maxRssMiB: null });
      if (line === undefined || exitCode !== 0)
        return resolve({ kind: "crashed", signal, exitCode, stderr: tail, maxRssMiB: null });
      const r = JSON.parse(line.slice(REPORT.length)) as {
        kind: "returned" | "threw";
        value?: unknown;
        error?: IsolatedResult["error"];
        maxRss: number;
      };
      resolve({
        kind: r.kind,
        ...(r.kind === "returned" ? { value: r.value } : { error: r.error! }),
        signal,
        exitCode,
        stderr: tail,
        maxRssMiB: Math.round(r.maxRss / 1024),
      });
    });
  });
}
