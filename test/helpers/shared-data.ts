// Shared test data (../shared beside the repo root, or $TOOLWRIGHT_SHARED_DIR) for vitest files.
// Missing data skips the suite with a printed reason, except under CI=true, where it fails: CI
// always has the data, so its absence there is a broken setup, not a reason to test less.
import { sharedPath } from "../../scripts/lib/shared-dir.mjs";

export { SHARED_ENV, sharedDir } from "../../scripts/lib/shared-dir.mjs";

/**
 * The path of `sub` in the shared data folder, or null when it is missing (after printing why).
 * Under CI=true a missing folder throws, so the test file fails with the reason.
 */
export function sharedData(sub: string): string | null {
  const found = sharedPath(sub);
  if (found.path !== null) return found.path;
  if (process.env.CI === "true" || process.env.CI === "1") throw new Error(found.missing);
  console.warn(`skipped: ${found.missing}`);
  return null;
}
