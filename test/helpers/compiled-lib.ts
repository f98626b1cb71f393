/**
 * The compiled package code (`lib/`), for tests that run code outside vitest's TypeScript
 * transform: worker threads and the installed-tarball check.
 *
 * `ensureCompiledLib` rebuilds `lib/` with `tsc -p tsconfig.build.json` when a `src/` file is
 * newer than its compiled `.js` (or has none), so these tests never run stale code. A lock file keeps two
 * test files from compiling at once.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, open, stat, unlink } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { REPO_ROOT } from "./test-models.js";

export const LIB_DIR = join(REPO_ROOT, "lib");
const LOCK = join(REPO_ROOT, ".cache", "compiled-lib.lock");
const STALE_LOCK_MS = 5 * 60_000;

function walk(dir: string, suffix: string, visit: (path: string) => void): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, suffix, visit);
    else if (entry.name.endsWith(suffix)) visit(path);
  }
}

/** True when a TypeScript file under src/ has no compiled .js under lib/, or is newer than it. */
function isStale(): boolean {
  const src = join(REPO_ROOT, "src");
  let stale = false;
  walk(src, ".ts", (path) => {
    if (stale || path.endsWith(".d.ts")) return;
    const out = join(LIB_DIR, relative(src, path)).replace(/\.ts$/, ".js");
    stale = !existsSync(out) || statSync(out).mtimeMs < statSync(path).mtimeMs;
  });
  return stale;
}

/**
 * Makes sure `lib/` holds the current compiled sources; returns its path.
 *
 * @example
 * const lib = await ensureCompiledLib();
 * const { loadModel } = await import(pathToFileURL(join(lib, "index.js")).href);
 */
export async function ensureCompiledLib(): Promise<string> {
  await mkdir(join(REPO_ROOT, ".cache"), { recursive: true });
  for (;;) {
    const handle = await open(LOCK, "wx").catch((e: NodeJS.ErrnoException) => {
      if (e.code === "EEXIST") return undefined;
      throw e;
    });
    if (handle) {
      await handle.close();
      try {
        if (isStale()) {
          const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
          // Type errors elsewhere in a work-in-progress tree do not stop tsc from emitting.
          spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: REPO_ROOT, stdio: "ignore" });
          if (!existsSync(join(LIB_DIR, "index.js")))
            throw new Error("tsc -p tsconfig.build.json did not produce lib/index.js");
        }
        return LIB_DIR;
      } finally {
        await unlink(LOCK).catch(() => undefined);
      }
    }
    await new Promise((r) => setTimeout(r, 200));
    const lockStat = await stat(LOCK).catch(() => undefined);
    if (lockStat && Date.now() - lockStat.mtimeMs > STALE_LOCK_MS) await unlink(LOCK).catch(() => undefined);
  }
}
