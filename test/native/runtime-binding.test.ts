/** The addon loader: search order, and one clear error when nothing loads. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { loadAddonFrom, NativeAddonError } from "../../src/runtime/binding.js";

const root = mkdtempSync(join(tmpdir(), "toolwright-binding-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// The candidate order itself is tested in dist-loader.test.ts.

test("when nothing loads, one error lists every path, why it failed, and how to build", () => {
  const broken = join(root, "broken.node");
  writeFileSync(broken, "not a shared library");
  const missing = join(root, "missing.node");
  let error: unknown;
  try {
    loadAddonFrom([missing, broken]);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(NativeAddonError);
  const e = error as NativeAddonError;
  expect(e.code).toBe("TOOLWRIGHT_NO_ADDON");
  expect(e.attempts.map((a) => a.path)).toEqual([missing, broken]);
  expect(e.message).toContain(`${missing}: not found`);
  expect(e.message).toContain(broken);
  expect(e.message).toContain("npm run build:native");
});
