// Where the shared test data lives: `$TOOLWRIGHT_SHARED_DIR`, else `../shared` beside the repo
// root. One place, one variable, for tests and scripts alike; no path of any one machine.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The environment variable that overrides the shared data folder. */
export const SHARED_ENV = "TOOLWRIGHT_SHARED_DIR";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The shared data folder (it may not exist). */
export function sharedDir() {
  const fromEnv = process.env[SHARED_ENV];
  return fromEnv !== undefined && fromEnv !== "" ? resolve(fromEnv) : resolve(ROOT, "..", "shared");
}

/**
 * The path of `sub` inside the shared folder, or null with the reason it is missing.
 * @param {string} sub e.g. "maskbench-dev" or "llama-test-chat/cases.jsonl"
 * @returns {{ path: string, missing: null } | { path: null, missing: string }}
 */
export function sharedPath(sub) {
  const path = join(sharedDir(), sub);
  if (existsSync(path)) return { path, missing: null };
  return {
    path: null,
    missing: `shared test data ${sub} not found at ${path} (set ${SHARED_ENV} to the shared folder)`,
  };
}
