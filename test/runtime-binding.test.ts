/** The addon loader: search order, and one clear error when nothing loads. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { addonCandidates, loadAddonFrom, NativeAddonError } from "../src/runtime/binding.js";

const root = mkdtempSync(join(tmpdir(), "toolwright-binding-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("looks at TOOLWRIGHT_ADDON, then build/Release, then this platform's prebuilds (GPU first)", () => {
  const dir = join(root, "prebuilds", `${process.platform}-${process.arch}`);
  mkdirSync(dir, { recursive: true });
  for (const f of ["toolwright.cuda.node", "toolwright.node", "README.md"]) writeFileSync(join(dir, f), "");
  const saved = process.env.TOOLWRIGHT_ADDON;
  process.env.TOOLWRIGHT_ADDON = "/explicit/addon.node";
  try {
    expect(addonCandidates(root)).toEqual([
      "/explicit/addon.node",
      join(root, "build", "Release", "toolwright.node"),
      join(dir, "toolwright.cuda.node"),
      join(dir, "toolwright.node"),
    ]);
  } finally {
    if (saved === undefined) delete process.env.TOOLWRIGHT_ADDON;
    else process.env.TOOLWRIGHT_ADDON = saved;
  }
});

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
