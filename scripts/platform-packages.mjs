#!/usr/bin/env node
// Makes one npm package per prebuild folder, the published layout: the main package ships no
// binaries and lists these as optionalDependencies; npm installs the ones whose os/cpu/libc fit the
// machine, and the loader (src/runtime/binding.ts) and the install script find them by name.
//
//   prebuilds/linux-x64-cuda/  →  <out>/linux-x64-cuda/  →  @toolwright/linux-x64-cuda
//
// Each package folder gets a package.json (name, version in lockstep with the main package,
// os/cpu, libc on Linux, files, license, repository), a README line, the LICENSE, and every file of
// the prebuild folder (the .node and any shared library beside it).
//
//   node scripts/platform-packages.mjs [--prebuilds prebuilds] [--out .cache/platform-packages]
//                                      [--main package.json]
//
//   --main PATH   also write the matching optionalDependencies (exact versions) into that
//                 package.json, as the publish job does before `npm publish` of the main package
//
// Prints the made packages as JSON: [{ name, folder, dir, files }].
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SELF = fileURLToPath(import.meta.url);

const TABLE = JSON.parse(readFileSync(join(ROOT, "addon-variants.json"), "utf8"));

/** Node's `process.platform` / `process.arch` values a prebuild folder name can start with. */
const PLATFORMS = ["aix", "android", "darwin", "freebsd", "linux", "openbsd", "sunos", "win32"];
const ARCHS = ["arm", "arm64", "ia32", "loong64", "mips", "mipsel", "ppc", "ppc64", "riscv64", "s390", "s390x", "x64"];

/**
 * What a prebuild folder name says: platform, architecture and variant (the platform's default
 * variant when there is no suffix). Throws on a name that is not `<platform>-<arch>[-<variant>]`.
 */
export function parseFolder(folder) {
  const [platform, arch, ...rest] = folder.split("-");
  if (!PLATFORMS.includes(platform) || !ARCHS.includes(arch))
    throw new Error(`prebuild folder ${folder} is not <platform>-<arch>[-<variant>]`);
  const name = rest.join("-");
  const variant = name
    ? TABLE.variants.find((v) => v.name === name)
    : (TABLE.variants.find((v) => v.defaultOn.includes(platform)) ?? TABLE.variants.find((v) => v.backend === null));
  if (variant === undefined) throw new Error(`prebuild folder ${folder}: no variant "${name}" in addon-variants.json`);
  return { platform, arch, variant };
}

/** The package.json of the platform package that ships prebuild `folder` with `files`. */
export function platformManifest(folder, files, main) {
  const { platform, arch, variant } = parseFolder(folder);
  const label = variant.backend ?? "CPU";
  return {
    name: `${TABLE.packageScope}/${folder}`,
    version: main.version,
    description: `The ${label} build of ${main.name}'s native addon for ${platform}-${arch}.`,
    license: main.license,
    ...(main.author ? { author: main.author } : {}),
    ...(main.homepage ? { homepage: main.homepage } : {}),
    // npm provenance checks that the package's repository is the one that built it.
    ...(main.repository ? { repository: main.repository } : {}),
    os: [platform],
    cpu: [arch],
    // The Linux prebuilds link glibc; on musl (Alpine) npm skips them and the install builds from source.
    ...(platform === "linux" ? { libc: ["glibc"] } : {}),
    files: [...files].sort(),
  };
}

/**
 * Writes `<out>/<folder>/` for every prebuild folder under `prebuilds`; returns the made packages.
 * `main` is the main package's package.json (name, version, license, repository).
 */
export function makePlatformPackages({ prebuilds, out, main }) {
  const folders = readdirSync(prebuilds)
    .filter((d) => statSync(join(prebuilds, d)).isDirectory())
    .sort();
  const made = [];
  for (const folder of folders) {
    const source = join(prebuilds, folder);
    const files = readdirSync(source).filter((f) => statSync(join(source, f)).isFile());
    if (!files.some((f) => f.endsWith(".node"))) throw new Error(`${source} holds no .node file`);
    const manifest = platformManifest(folder, files, main);
    const dir = join(out, folder);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const f of files) copyFileSync(join(source, f), join(dir, f));
    if (existsSync(join(ROOT, "LICENSE"))) copyFileSync(join(ROOT, "LICENSE"), join(dir, "LICENSE"));
    const { variant } = parseFolder(folder);
    writeFileSync(
      join(dir, "README.md"),
      `# ${manifest.name}\n\n${manifest.description} Do not depend on it directly: ${main.name} lists it ` +
        `as an optional dependency, and its loader finds it. Needs ${variant.needs}.\n`,
    );
    writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    made.push({ name: manifest.name, folder, dir, files: manifest.files });
  }
  return made;
}

/** `main` with optionalDependencies on exactly these packages' versions (other optional ones kept). */
export function withOptionalDependencies(main, made) {
  const optional = { ...main.optionalDependencies };
  for (const p of made) optional[p.name] = main.version;
  return { ...main, optionalDependencies: optional };
}

function main() {
  const { values } = parseArgs({
    options: {
      prebuilds: { type: "string", default: join(ROOT, "prebuilds") },
      out: { type: "string", default: join(ROOT, ".cache", "platform-packages") },
      main: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      "Usage: node scripts/platform-packages.mjs [--prebuilds DIR] [--out DIR] [--main package.json]\n",
    );
    return;
  }
  const mainPath = resolve(values.main ?? join(ROOT, "package.json"));
  const manifest = JSON.parse(readFileSync(mainPath, "utf8"));
  const made = makePlatformPackages({ prebuilds: resolve(values.prebuilds), out: resolve(values.out), main: manifest });
  if (made.length === 0) throw new Error(`no prebuild folders in ${values.prebuilds}`);
  if (values.main !== undefined)
    writeFileSync(mainPath, `${JSON.stringify(withOptionalDependencies(manifest, made), null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(made, null, 2)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === SELF) main();
