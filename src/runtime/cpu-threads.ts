/**
 * Default CPU threads and thread-pool polling of contexts, from the environment where it says so.
 *
 * A machine shared with other work (CI runners, test suites, an Electron app beside a browser) is
 * better served by fewer threads that sleep while idle: llama.cpp's pool threads otherwise busy-wait
 * for the next decode and stall each other when the OS deschedules one. `TOOLWRIGHT_THREADS` and
 * `TOOLWRIGHT_POLL` set the defaults for every context of the process (and of child processes, such
 * as `toolwright serve`), without changing code.
 */
import { availableParallelism } from "node:os";

/** Most threads a context uses by default. */
const MAX_DEFAULT_THREADS = 8;

/** ggml's default polling level of idle pool threads. */
const DEFAULT_POLL = 50;

/** An integer environment variable in [min, max], or undefined when unset or empty. */
function envInteger(name: string, min: number, max: number): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new RangeError(`environment variable ${name} must be an integer in [${min}, ${max}], got "${raw}"`);
  return value;
}

/**
 * CPU threads when an option leaves them out: `TOOLWRIGHT_THREADS`, else min(availableParallelism(), 8).
 * @internal
 */
export function defaultThreads(): number {
  return (
    envInteger("TOOLWRIGHT_THREADS", 1, 1024) ?? Math.max(1, Math.min(availableParallelism(), MAX_DEFAULT_THREADS))
  );
}

/** Idle pool threads' polling level when an option leaves it out: `TOOLWRIGHT_POLL`, else 50. @internal */
export function defaultPoll(): number {
  return envInteger("TOOLWRIGHT_POLL", 0, 100) ?? DEFAULT_POLL;
}
