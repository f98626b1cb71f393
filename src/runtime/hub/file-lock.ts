/**
 * A lock file beside a download, so two processes (or two calls) pulling the same file do not
 * write the same partial file: the second waits for the first, then finds the file done.
 *
 * The holder touches the lock every few seconds while it holds it (even while a connection
 * stalls); a lock left untouched for {@link STALE_LOCK_MS}, or whose process is gone on this host,
 * is from a crash and is taken over.
 */
import { hostname } from "node:os";
import { open, readFile, stat, unlink, utimes } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";

export const STALE_LOCK_MS = 60_000;
const POLL_MS = 200;
const TOUCH_MS = 5_000;

/** A held lock: `release()` when done. */
export interface HeldLock {
  release(): Promise<void>;
}

/** Whether a process with this id exists (one we may not signal counts). @internal */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function isStale(path: string): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return false;
  if (Date.now() - info.mtimeMs > STALE_LOCK_MS) return true;
  const [pid, host] = (await readFile(path, "utf8").catch(() => "")).split(" ");
  return host === hostname() && Number.isInteger(Number(pid)) && Number(pid) > 0 && !processAlive(Number(pid));
}

/**
 * Takes the lock at `path`, waiting while another holder has it. `onWait` is called once when
 * it has to wait. Rejects when `signal` aborts.
 */
export async function acquireLock(
  path: string,
  signal: AbortSignal | undefined,
  onWait?: () => void,
): Promise<HeldLock> {
  let waited = false;
  for (;;) {
    signal?.throwIfAborted();
    const handle = await open(path, "wx").catch((err: NodeJS.ErrnoException) => {
      if (err.code === "EEXIST") return undefined;
      throw err;
    });
    if (handle) {
      await handle.writeFile(`${process.pid} ${hostname()}`);
      await handle.close();
      const timer = setInterval(() => {
        const now = Date.now() / 1000;
        void utimes(path, now, now).catch(() => undefined);
      }, TOUCH_MS);
      timer.unref();
      return {
        release: () => {
          clearInterval(timer);
          return unlink(path).catch(() => undefined);
        },
      };
    }
    if (await isStale(path)) {
      await unlink(path).catch(() => undefined);
      continue;
    }
    if (!waited) onWait?.();
    waited = true;
    await sleep(POLL_MS, undefined, signal ? { signal } : {});
  }
}
