// scripts/platform-packages.mjs: one npm package per prebuild folder (the published layout), named
// as the loader (src/runtime/variants.ts) looks them up, with the os/cpu/libc fields npm filters on.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import {
  makePlatformPackages,
  parseFolder,
  platformManifest,
  withOptionalDependencies,
} from "../../scripts/platform-packages.mjs";
import { platformPackageName } from "../../src/runtime/variants.js";
import { REPO_ROOT } from "../helpers/test-models.js";

const main = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  name: string;
  version: string;
  license: string;
  repository: unknown;
};
const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

describe("the published folders", () => {
  test.each([
    ["linux-x64", "linux", "x64", "cpu", ["glibc"]],
    ["linux-x64-cuda", "linux", "x64", "cuda", ["glibc"]],
    ["linux-x64-vulkan", "linux", "x64", "vulkan", ["glibc"]],
    ["darwin-arm64", "darwin", "arm64", "metal", undefined],
    ["win32-x64", "win32", "x64", "cpu", undefined],
  ])("%s: %s/%s, variant %s, libc %j", (folder, os, cpu, variant, libc) => {
    expect(parseFolder(folder).variant.name).toBe(variant);
    const manifest = platformManifest(folder, ["toolwright.node"], main);
    // The loader resolves exactly this name.
    expect(manifest.name).toBe(platformPackageName(folder));
    expect(manifest).toMatchObject({ version: main.version, license: main.license, os: [os], cpu: [cpu] });
    expect(manifest.libc).toEqual(libc);
    expect(manifest.repository).toEqual(main.repository);
    expect(manifest.files).toEqual(["toolwright.node"]);
  });

  test.each(["linux", "linux-x64-opencl", "plan9-x64", "linux-sparc"])("%s is refused", (folder) => {
    expect(() => parseFolder(folder)).toThrow(/prebuild folder/);
  });
});

test("makePlatformPackages copies each folder's files and writes the manifest; the main package lists them", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolwright-platform-packages-"));
  temps.push(dir);
  const prebuilds = join(dir, "prebuilds");
  for (const [folder, files] of [
    ["linux-x64", ["toolwright.node"]],
    ["darwin-arm64", ["toolwright.node", "libggml-metal.dylib"]],
  ] as const) {
    mkdirSync(join(prebuilds, folder), { recursive: true });
    for (const f of files) writeFileSync(join(prebuilds, folder, f), `${folder}/${f}`);
  }
  const made = makePlatformPackages({ prebuilds, out: join(dir, "out"), main });
  expect(made.map((p) => p.name)).toEqual(["@toolwright/darwin-arm64", "@toolwright/linux-x64"]);
  const darwin = join(dir, "out", "darwin-arm64");
  expect(readdirSync(darwin).sort()).toEqual([
    "LICENSE",
    "README.md",
    "libggml-metal.dylib",
    "package.json",
    "toolwright.node",
  ]);
  expect(readFileSync(join(darwin, "libggml-metal.dylib"), "utf8")).toBe("darwin-arm64/libggml-metal.dylib");
  expect(JSON.parse(readFileSync(join(darwin, "package.json"), "utf8")).files).toEqual([
    "libggml-metal.dylib",
    "toolwright.node",
  ]);
  expect(readFileSync(join(darwin, "README.md"), "utf8")).toContain("macOS on Apple Silicon");

  const published = withOptionalDependencies({ ...main, optionalDependencies: { other: "^1.0.0" } }, made);
  expect(published.optionalDependencies).toEqual({
    other: "^1.0.0",
    "@toolwright/darwin-arm64": main.version,
    "@toolwright/linux-x64": main.version,
  });
});

test("a prebuild folder without a .node file is an error, not an empty package", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolwright-platform-packages-"));
  temps.push(dir);
  mkdirSync(join(dir, "prebuilds", "linux-x64"), { recursive: true });
  writeFileSync(join(dir, "prebuilds", "linux-x64", "notes.txt"), "");
  expect(() => makePlatformPackages({ prebuilds: join(dir, "prebuilds"), out: join(dir, "out"), main })).toThrow(
    /holds no \.node file/,
  );
});
