#!/usr/bin/env node
// Builds the prebuilt addon that the npm packages ship (one platform package per folder,
// scripts/platform-packages.mjs):
//   prebuilds/<platform>-<arch>[-<variant>]/toolwright.node
// through prebuildify (N-API build, stripped), with cmake-js doing the actual build.
//
//   node scripts/prebuild.mjs [--variant cpu|metal|cuda|vulkan] [--build-dir build-prebuild]
//                             [--cuda-archs "75-virtual;86-real"] [--max-glibc 2.28] [--check-only]
//
// prebuildify only knows how to call node-gyp, so it is given this very script as its
// `nodeGyp` (a documented prebuildify option): called as `<this> rebuild --target=… --release`,
// it runs scripts/build-native.mjs into build-prebuild/<variant> and puts the result where
// prebuildify looks for it (a staging folder's build/Release). prebuildify then strips it
// and names it; this script moves it into prebuilds/ and checks it (see checkPrebuild()).
//
// The build is portable (TOOLWRIGHT_PORTABLE=ON): x86-64 code targets AVX2+FMA+F16C+BMI2
// instead of the build machine's CPU. docs/install.md explains the choice.
//
// Environment: TOOLWRIGHT_BUILD_JOBS (parallel compile jobs), TOOLWRIGHT_LLAMA_DIR, and
// CUDA's own (CUDACXX, CMAKE_CUDA_ARCHITECTURES via --cuda-archs) are passed through.
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SELF = fileURLToPath(import.meta.url);
const SHIM_ENV = "TOOLWRIGHT_PREBUILD_SHIM";

function log(message) {
  process.stderr.write(`[toolwright:prebuild] ${message}\n`);
}

function fail(message) {
  log(`error: ${message}`);
  process.exit(1);
}

/**
 * Build variants, from the one table the loader also reads (addon-variants.json): the
 * environment switches of scripts/build-native.mjs each one sets, and the shared libraries a Linux
 * build of it may link. The platform's default variant (Metal on macOS, CPU elsewhere) has no
 * folder suffix.
 */
const TABLE = JSON.parse(readFileSync(join(ROOT, "addon-variants.json"), "utf8")).variants;
const VARIANTS = Object.fromEntries(TABLE.map((v) => [v.name, { env: v.build }]));

/** The variant built when none is named: Metal on macOS, the CPU build elsewhere. */
export function defaultVariant(platform = process.platform) {
  return (TABLE.find((v) => v.defaultOn.includes(platform)) ?? TABLE.find((v) => v.backend === null)).name;
}

/** `prebuilds/` folder name for a platform, architecture and variant. */
export function prebuildFolder(variant, platform = process.platform, arch = process.arch) {
  const suffix = variant === defaultVariant(platform) ? "" : `-${variant}`;
  return `${platform}-${arch}${suffix}`;
}

// ---- checks on a built prebuild ----------------------------------------------------------

/** Shared libraries a Linux prebuild may need: the C/C++ runtime, plus the GPU runtime for GPU variants. */
const LINUX_ALLOWED_LIBS = {
  base: [
    /^linux-vdso\.so/,
    /^ld-linux[-\w.]*\.so/,
    /^libc\.so\./,
    /^libm\.so\./,
    /^libstdc\+\+\.so\./,
    /^libgcc_s\.so\./,
    /^libpthread\.so\./,
    /^libdl\.so\./,
    /^librt\.so\./,
  ],
  ...Object.fromEntries(TABLE.map((v) => [v.name, v.linuxLibraries.map((re) => new RegExp(re))])),
};

/** Compiler flags that would tie the binary to the build machine's CPU. */
const NATIVE_FLAGS = /(^|\s)-m(arch|tune|cpu)=native\b/;
/** x86 instruction-set flags beyond the AVX2 baseline. */
const BEYOND_AVX2 = /(^|\s)-m(avx512\w*|avxvnni\w*|amx\w*)\b/;

/** N-API functions Electron cannot provide: its V8 memory cage forbids memory from outside the heap. */
const ELECTRON_FORBIDDEN = new Set([
  "napi_create_external_arraybuffer",
  "napi_create_external_buffer",
  "node_api_create_external_string_latin1",
  "node_api_create_external_string_utf16",
]);
/** Weak, unversioned imports every shared object has (toolchain hooks), not host APIs. */
const TOOLCHAIN_WEAK = new Set(["__gmon_start__", "_ITM_deregisterTMCloneTable", "_ITM_registerTMCloneTable"]);

/**
 * What a Linux addon imports from its host process: every unversioned undefined symbol must be
 * a Node-API function (napi_* / node_api_*), so the binary runs unchanged in any Node.js >= 20
 * and in Electron; and none may be one Electron forbids. Returns `{ imports, problems }`, or
 * undefined when objdump is unavailable.
 */
export function hostImportProblems(file) {
  const dump = run("objdump", ["-T", file]);
  return dump.ok ? hostImportProblemsInDump(dump.out) : undefined;
}

/** {@link hostImportProblems} on the text of `objdump -T`. */
export function hostImportProblemsInDump(text) {
  const imports = [];
  for (const line of text.split("\n")) {
    if (!line.includes("*UND*")) continue;
    const fields = line.trim().split(/\s+/);
    const name = fields.at(-1);
    const version = fields.at(-2);
    if (version === "Base" || version === "*UND*" || version === "0000000000000000") imports.push(name);
  }
  const problems = [];
  for (const name of imports) {
    if (TOOLCHAIN_WEAK.has(name)) continue;
    if (!/^(napi_|node_api_)/.test(name))
      problems.push(`imports ${name} from the host: not Node-API, so it breaks across Node.js/Electron versions`);
    else if (ELECTRON_FORBIDDEN.has(name))
      problems.push(`imports ${name}, which Electron's V8 memory cage does not allow`);
  }
  return { imports: imports.filter((n) => !TOOLCHAIN_WEAK.has(n)).sort(), problems };
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.error) return { ok: false, out: "", err: r.error.message };
  return { ok: r.status === 0, out: r.stdout, err: r.stderr };
}

/**
 * Checks a built prebuild; returns `{ ok, facts, problems }`.
 * @param {string} file
 * @param {{ variant?: string, buildDir?: string, maxGlibc?: string }} [options]
 * - Linux: `ldd` lists only the C/C++ runtime (and the GPU runtime for GPU variants); the newest
 *   glibc symbol version it needs is reported (and must not exceed `maxGlibc`, e.g. "2.28");
 *   on x86-64, `objdump` finds no AVX-512 register use.
 * - Everywhere: the build folder's compile_commands.json has no -march=native/-mcpu=native and
 *   no x86 flag beyond AVX2 (when the build folder is given and has one).
 */
export function checkPrebuild(file, { variant = defaultVariant(), buildDir, maxGlibc } = {}) {
  const problems = [];
  const facts = { file: relative(ROOT, file), sizeBytes: statSync(file).size };
  if (process.platform === "linux") {
    const ldd = run("ldd", [file]);
    if (!ldd.ok) problems.push(`ldd failed: ${ldd.err.trim()}`);
    const libs = ldd.out
      .split("\n")
      .map((l) => l.trim().split(/\s+/)[0])
      .filter((l) => l && !l.startsWith("/"));
    facts.sharedLibraries = libs;
    const allowed = [...LINUX_ALLOWED_LIBS.base, ...(LINUX_ALLOWED_LIBS[variant] ?? [])];
    for (const lib of libs)
      if (!allowed.some((re) => re.test(lib))) problems.push(`unexpected shared library dependency: ${lib}`);
    // A GPU runtime may be absent on the build machine (libcuda.so.1 comes with the driver).
    const gpuLibs = LINUX_ALLOWED_LIBS[variant] ?? [];
    for (const line of ldd.out.split("\n")) {
      if (/not found/.test(line) && !gpuLibs.some((re) => re.test(line.trim())))
        problems.push(`unresolved dependency: ${line.trim()}`);
    }
    const symbols = run("objdump", ["-T", file]);
    if (symbols.ok) {
      const versions = [...symbols.out.matchAll(/GLIBC_(\d+)\.(\d+)(?:\.(\d+))?/g)].map((m) => [
        Number(m[1]),
        Number(m[2]),
        Number(m[3] ?? 0),
      ]);
      versions.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
      const newest = versions.at(-1);
      if (newest) facts.newestGlibcSymbol = `GLIBC_${newest.filter((n, i) => i < 2 || n > 0).join(".")}`;
      if (newest && maxGlibc) {
        const [major, minor] = maxGlibc.split(".").map(Number);
        if (newest[0] > major || (newest[0] === major && newest[1] > minor)) {
          problems.push(
            `needs ${facts.newestGlibcSymbol}, newer than the glibc ${maxGlibc} it must run on (build on an ` +
              `older distribution)`,
          );
        }
      }
    }
    const host = hostImportProblems(file);
    if (host) {
      facts.nodeApiImports = host.imports.length;
      problems.push(...host.problems);
    }
    if (process.arch === "x64") {
      const disasm = run("objdump", ["-d", "--no-show-raw-insn", file]);
      if (!disasm.ok) {
        facts.avx512Instructions = "not checked (objdump unavailable)";
      } else {
        const avx512 = disasm.out.split("\n").filter((l) => /%zmm\d|%k[1-7]\b/.test(l)).length;
        facts.avx512Instructions = avx512;
        if (avx512 > 0)
          problems.push(
            `${avx512} instructions use AVX-512 registers (zmm/k): the build is not portable to AVX2-only CPUs`,
          );
      }
    }
  }
  const commands = buildDir ? join(buildDir, "compile_commands.json") : undefined;
  if (commands && existsSync(commands)) {
    const entries = JSON.parse(readFileSync(commands, "utf8"));
    const native = entries.filter((e) => NATIVE_FLAGS.test(e.command ?? (e.arguments ?? []).join(" ")));
    if (native.length > 0)
      problems.push(`${native.length} files compiled with -march/-mcpu=native, e.g. ${native[0].file}`);
    const beyond = entries.filter((e) => BEYOND_AVX2.test(e.command ?? (e.arguments ?? []).join(" ")));
    if (beyond.length > 0)
      problems.push(`${beyond.length} files compiled with instruction sets beyond AVX2, e.g. ${beyond[0].file}`);
    const cpu = entries.find((e) => /ggml-cpu[\\/]ggml-cpu\.c$/.test(e.file));
    if (cpu) {
      const flags = (cpu.command ?? (cpu.arguments ?? []).join(" ")).match(/(^|\s)(-m[\w.=+-]+|\/arch:\w+)/g) ?? [];
      facts.ggmlCpuFlags = [...new Set(flags.map((f) => f.trim()))];
    }
    facts.compiledFiles = entries.length;
  } else if (buildDir) {
    facts.compileFlags = `not checked (no ${relative(ROOT, commands)})`;
  }
  return { ok: problems.length === 0, facts, problems };
}

// ---- node-gyp stand-in, called by prebuildify ------------------------------------------------

function runShim() {
  const buildDir = process.env.TOOLWRIGHT_PREBUILD_BUILD_DIR;
  const stage = process.env.TOOLWRIGHT_PREBUILD_STAGE;
  if (!buildDir || !stage) fail(`${SHIM_ENV} is set but the build/stage folders are not`);
  const args = [
    join(ROOT, "scripts", "build-native.mjs"),
    "--out",
    buildDir,
    "--copy-to",
    join(stage, "build", "Release", "toolwright.node"),
  ];
  // Flags are recorded for checkPrebuild().
  args.push("--", "--CDCMAKE_EXPORT_COMPILE_COMMANDS=ON");
  // Windows: the C runtime linked in statically (/MT, as node-gyp builds addons), so the binary
  // does not depend on the Visual C++ redistributable being installed.
  if (process.platform === "win32") args.push("--CDCMAKE_MSVC_RUNTIME_LIBRARY=MultiThreaded");
  const cudaArchs = process.env.TOOLWRIGHT_PREBUILD_CUDA_ARCHS;
  if (cudaArchs) args.push(`--CDCMAKE_CUDA_ARCHITECTURES=${cudaArchs}`);
  log(`node-gyp ${process.argv.slice(2).join(" ")} -> build-native.mjs --out ${relative(ROOT, buildDir)}`);
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: "inherit", env: process.env });
  process.exit(r.status ?? 1);
}

// ---- main ----------------------------------------------------------------------------------

function buildWithPrebuildify({ variant, buildDir, stage, cudaArchs }) {
  const require = createRequire(import.meta.url);
  let prebuildify;
  try {
    prebuildify = require("prebuildify");
  } catch {
    fail("prebuildify is not installed: run `npm install` (it is a dev dependency)");
  }
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(join(stage, "build", "Release"), { recursive: true });
  Object.assign(process.env, VARIANTS[variant].env, {
    TOOLWRIGHT_PORTABLE: "1",
    TOOLWRIGHT_BUILD_BENCH: "0",
    TOOLWRIGHT_PREBUILD_BUILD_DIR: buildDir,
    TOOLWRIGHT_PREBUILD_STAGE: stage,
    [SHIM_ENV]: "1",
  });
  if (cudaArchs) process.env.TOOLWRIGHT_PREBUILD_CUDA_ARCHS = cudaArchs;
  // POSIX: prebuildify spawns nodeGyp without a shell, so it must be an executable file.
  // Windows: prebuildify spawns through cmd.exe, so a quoted command line works.
  let nodeGyp = SELF;
  if (process.platform === "win32") nodeGyp = `"${process.execPath}" "${SELF}"`;
  else chmodSync(SELF, 0o755);
  return new Promise((resolvePromise, reject) => {
    prebuildify({ cwd: stage, out: stage, name: "toolwright", napi: true, strip: true, nodeGyp, targets: [] }, (err) =>
      err ? reject(err) : resolvePromise(),
    );
  });
}

async function main() {
  const { values } = parseArgs({
    options: {
      variant: { type: "string", default: defaultVariant() },
      "build-dir": { type: "string", default: "build-prebuild" },
      "cuda-archs": { type: "string" },
      "check-only": { type: "boolean", default: false },
      "max-glibc": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      "Usage: node scripts/prebuild.mjs [--variant cpu|metal|cuda|vulkan] [--build-dir DIR] [--cuda-archs " +
        "LIST] [--max-glibc 2.28] [--check-only]\n",
    );
    return;
  }
  const variant = values.variant;
  if (!Object.hasOwn(VARIANTS, variant))
    fail(`--variant must be one of ${Object.keys(VARIANTS).join(", ")}, got "${variant}"`);
  const buildRoot = resolve(ROOT, values["build-dir"]);
  const buildDir = join(buildRoot, variant);
  const stage = join(buildRoot, `stage-${variant}`);
  const folder = prebuildFolder(variant);
  const target = join(ROOT, "prebuilds", folder, "toolwright.node");

  if (!values["check-only"]) {
    const started = Date.now();
    await buildWithPrebuildify({ variant, buildDir, stage, cudaArchs: values["cuda-archs"] }).catch((e) =>
      fail(`prebuildify failed: ${e.message}`),
    );
    const built = join(stage, "prebuilds", `${process.platform}-${process.arch}`, "toolwright.node");
    if (!existsSync(built)) fail(`prebuildify finished but ${built} is missing`);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(built, target);
    rmSync(stage, { recursive: true, force: true });
    log(`built ${relative(ROOT, target)} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  if (!existsSync(target)) fail(`${relative(ROOT, target)} does not exist: run without --check-only first`);
  const maxGlibc = values["max-glibc"];
  if (maxGlibc !== undefined && !/^\d+\.\d+$/.test(maxGlibc))
    fail(`--max-glibc must look like 2.28, got "${maxGlibc}"`);
  const report = checkPrebuild(target, { variant, buildDir, maxGlibc });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  if (!report.ok) fail(`the prebuild failed its checks:\n  ${report.problems.join("\n  ")}`);
}

if (process.env[SHIM_ENV] === "1" && process.argv[2] === "rebuild") runShim();
else if (process.argv[1] && resolve(process.argv[1]) === SELF) await main();
