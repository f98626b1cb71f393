// The addon loader with the published layout: prebuilds/<platform>-<arch>[-variant]/toolwright.node.
// Prebuilds first, GPU variants before the default build (they fail to load where their runtime is
// missing), TOOLWRIGHT_VARIANT picks one first, then the local build (a clone's build/Release, an
// installed package's addon/); a local build marked as made on purpose goes before the prebuilds;
// a failure names every place tried. Platform packages (@toolwright/<platform>-<arch>[-variant], the
// published layout) come after the same variant's prebuilds/ folder.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { addonCandidates, loadAddonFrom, NativeAddonError, PREFERRED_BUILD_MARKER } from "../../src/runtime/binding.js";
import { REPO_ROOT } from "../helpers/test-models.js";

const base = `${process.platform}-${process.arch}`;
const roots: string[] = [];
const savedEnv = { TOOLWRIGHT_ADDON: process.env.TOOLWRIGHT_ADDON, TOOLWRIGHT_VARIANT: process.env.TOOLWRIGHT_VARIANT };

afterEach(() => {
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** A fake package root with the given prebuild folders, each holding an (empty) toolwright.node. */
function packageRoot(folders: string[]): string {
  const root = mkdtempSync(join(tmpdir(), "toolwright-loader-"));
  roots.push(root);
  for (const folder of folders) {
    mkdirSync(join(root, "prebuilds", folder), { recursive: true });
    writeFileSync(join(root, "prebuilds", folder, "toolwright.node"), "");
  }
  return root;
}

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };

/**
 * Installs fake platform packages under the root's node_modules (each with an empty toolwright.node)
 * and declares `declared` in the root's package.json as optionalDependencies, as a publish does.
 */
function withPlatformPackages(root: string, installed: Record<string, string>, declared: string[]): void {
  for (const [folder, v] of Object.entries(installed)) {
    const dir = join(root, "node_modules", "@toolwright", folder);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `@toolwright/${folder}`, version: v }));
    writeFileSync(join(dir, "toolwright.node"), "");
  }
  const optionalDependencies = Object.fromEntries(declared.map((f) => [`@toolwright/${f}`, version]));
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "toolwright", version, optionalDependencies }));
}

const inPackage = (root: string, folder: string) =>
  join(root, "node_modules", "@toolwright", folder, "toolwright.node");
const prebuilt = (root: string, folder: string) => join(root, "prebuilds", folder, "toolwright.node");
const local = (root: string) => join(root, "build", "Release", "toolwright.node");

describe("candidate order", () => {
  test("GPU variants, then the default prebuild, then the local build; other platforms are ignored", () => {
    delete process.env.TOOLWRIGHT_ADDON;
    delete process.env.TOOLWRIGHT_VARIANT;
    const other = process.platform === "win32" ? "linux-x64" : "win32-x64";
    const root = packageRoot([base, `${base}-vulkan`, `${base}-cuda`, other, `${other}-cuda`]);
    expect(addonCandidates(root)).toEqual([
      prebuilt(root, `${base}-cuda`),
      prebuilt(root, `${base}-vulkan`),
      prebuilt(root, base),
      local(root),
    ]);
  });

  test("a local build made on purpose (marker file beside it) goes before the prebuilds", () => {
    delete process.env.TOOLWRIGHT_ADDON;
    delete process.env.TOOLWRIGHT_VARIANT;
    const root = packageRoot([base, `${base}-cuda`]);
    mkdirSync(join(root, "build", "Release"), { recursive: true });
    writeFileSync(join(root, "build", "Release", PREFERRED_BUILD_MARKER), "{}");
    expect(addonCandidates(root)).toEqual([local(root), prebuilt(root, `${base}-cuda`), prebuilt(root, base)]);
  });

  test("an installed package's source build (addon/) comes after the prebuilds, or before them with its marker", () => {
    delete process.env.TOOLWRIGHT_ADDON;
    delete process.env.TOOLWRIGHT_VARIANT;
    const root = packageRoot([base]);
    const installed = join(root, "addon", "toolwright.node");
    mkdirSync(join(root, "addon"));
    writeFileSync(installed, "");
    expect(addonCandidates(root)).toEqual([prebuilt(root, base), local(root), installed]);
    writeFileSync(join(root, "addon", PREFERRED_BUILD_MARKER), "{}");
    expect(addonCandidates(root)).toEqual([installed, prebuilt(root, base), local(root)]);
  });

  test("TOOLWRIGHT_ADDON comes first, a relative path read from the working directory", () => {
    delete process.env.TOOLWRIGHT_VARIANT;
    const root = packageRoot([base]);
    process.env.TOOLWRIGHT_ADDON = join("some-build", "toolwright.node");
    try {
      expect(addonCandidates(root)[0]).toBe(join(process.cwd(), "some-build", "toolwright.node"));
      process.env.TOOLWRIGHT_ADDON = join(root, "elsewhere.node");
      expect(addonCandidates(root)).toEqual([join(root, "elsewhere.node"), prebuilt(root, base), local(root)]);
    } finally {
      delete process.env.TOOLWRIGHT_ADDON;
    }
  });

  test("TOOLWRIGHT_VARIANT puts its prebuild folder first (case-insensitive; cpu names the default one)", () => {
    delete process.env.TOOLWRIGHT_ADDON;
    const root = packageRoot([base, `${base}-cuda`, `${base}-vulkan`]);
    process.env.TOOLWRIGHT_VARIANT = "cpu";
    expect(addonCandidates(root)).toEqual([
      prebuilt(root, base),
      prebuilt(root, `${base}-cuda`),
      prebuilt(root, `${base}-vulkan`),
      local(root),
    ]);
    process.env.TOOLWRIGHT_VARIANT = "Vulkan";
    expect(addonCandidates(root)).toEqual([
      prebuilt(root, `${base}-vulkan`),
      prebuilt(root, `${base}-cuda`),
      prebuilt(root, base),
      local(root),
    ]);
  });

  test("TOOLWRIGHT_ADDON comes before everything", () => {
    const root = packageRoot([base]);
    process.env.TOOLWRIGHT_ADDON = "/opt/custom/toolwright.node";
    expect(addonCandidates(root)[0]).toBe("/opt/custom/toolwright.node");
  });

  test("with no prebuilds at all, the default prebuild path is still listed (for the error message)", () => {
    delete process.env.TOOLWRIGHT_ADDON;
    delete process.env.TOOLWRIGHT_VARIANT;
    const root = packageRoot([]);
    expect(addonCandidates(root)).toEqual([prebuilt(root, base), local(root)]);
  });
});

test("when nothing loads, the error lists every prebuild and the local build with its reason", () => {
  delete process.env.TOOLWRIGHT_ADDON;
  delete process.env.TOOLWRIGHT_VARIANT;
  const root = packageRoot([base, `${base}-cuda`]);
  let error: unknown;
  try {
    loadAddonFrom(addonCandidates(root));
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(NativeAddonError);
  const e = error as NativeAddonError;
  expect(e.attempts.map((a) => a.path)).toEqual([prebuilt(root, `${base}-cuda`), prebuilt(root, base), local(root)]);
  expect(e.attempts[2]!.error).toBe("not found");
  // The empty files exist but are not shared libraries (or, on a CPU without AVX2, are refused first).
  for (const a of e.attempts.slice(0, 2)) expect(a.error).not.toBe("not found");
  expect(e.message).toContain("npm run build:native");
  expect(e.message).toContain("TOOLWRIGHT_FORCE_BUILD=1");
  expect(e.message.split("\n").filter((l) => l.startsWith("  - "))).toHaveLength(3);
});

describe("platform packages", () => {
  test("each after its variant's prebuilds/ folder; a declared one not installed is listed by name", () => {
    delete process.env.TOOLWRIGHT_ADDON;
    delete process.env.TOOLWRIGHT_VARIANT;
    const root = packageRoot([base]);
    // Declared: the three Linux-like variants; installed: cuda and the default; metal neither.
    withPlatformPackages(root, { [`${base}-cuda`]: version, [base]: version }, [
      `${base}-cuda`,
      `${base}-vulkan`,
      base,
    ]);
    expect(addonCandidates(root)).toEqual([
      inPackage(root, `${base}-cuda`),
      `@toolwright/${base}-vulkan`,
      prebuilt(root, base),
      inPackage(root, base),
      local(root),
    ]);
    process.env.TOOLWRIGHT_VARIANT = "cpu";
    expect(addonCandidates(root).slice(0, 2)).toEqual([prebuilt(root, base), inPackage(root, base)]);
  });

  test("the published layout (no prebuilds/): the error names the missing package and refuses another version", () => {
    delete process.env.TOOLWRIGHT_ADDON;
    delete process.env.TOOLWRIGHT_VARIANT;
    const root = packageRoot([]);
    withPlatformPackages(root, { [base]: "0.0.0-other" }, [`${base}-cuda`, base]);
    let error: unknown;
    try {
      loadAddonFrom(addonCandidates(root));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NativeAddonError);
    const attempts = (error as NativeAddonError).attempts;
    expect(attempts.map((a) => a.path)).toEqual([
      `@toolwright/${base}-cuda`,
      prebuilt(root, base),
      inPackage(root, base),
      local(root),
    ]);
    expect(attempts[0]!.error).toBe("not installed (optional dependency)");
    expect(attempts[1]!.error).toBe("not found");
    // Refused before loading (unless this CPU lacks AVX2, which is checked first).
    expect(attempts[2]!.error).toMatch(/version 0\.0\.0-other, toolwright is|this CPU lacks/);
    expect((error as NativeAddonError).message).toContain(`the optional dependency @toolwright/${base}`);
  });
});
