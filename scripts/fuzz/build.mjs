// Builds what the fuzz targets run, all under .cache/fuzz/ (ignored): native harnesses with clang's
// libFuzzer, ASan and UBSan (our sources instrumented; ggml-base from deps/llama.cpp built with
// clang in its own folder, never committed); and for the TypeScript targets, Jazzer.js (installed
// from fuzz/js/package-lock.json with scripts off, its addon linked against clang's libFuzzer) and
// one CommonJS bundle per target (Jazzer.js instruments code that is require()d).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";

const SANITIZE = "-fsanitize=address,undefined";
const CXXFLAGS = ["-std=c++17", "-g", "-O1", "-fno-omit-frame-pointer", SANITIZE, "-fno-sanitize-recover=undefined"];

/** Runs a command (inherited output); throws when it fails. */
export function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", ...options });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.slice(0, 3).join(" ")}... exited with ${r.status}`);
}

/** Fails early, with the install command, when clang or its libFuzzer is missing. */
export function requireClang() {
  const r = spawnSync("clang++", ["--version"], { encoding: "utf8" });
  if (r.error)
    throw new Error("clang++ not found: apt-get install -y clang libclang-rt-14-dev (libFuzzer comes with it)");
  const rt = libFuzzerNoMain();
  if (!existsSync(rt)) throw new Error(`libFuzzer not found at ${rt}: apt-get install -y libclang-rt-14-dev`);
}

/** Runs the commands two at a time (the machine has two cores); throws when one fails. */
async function runTwoAtATime(commands) {
  const queue = [...commands];
  const worker = async () => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
      const [cmd, ...args] = c;
      const code = await new Promise((done) => spawn(cmd, args, { stdio: "inherit" }).on("close", done));
      if (code !== 0) throw new Error(`${cmd} ${args.slice(0, 6).join(" ")}... exited with ${code}`);
    }
  };
  await Promise.all([worker(), worker()]);
}

function libFuzzerNoMain() {
  const dir = spawnSync("clang", ["-print-resource-dir"], { encoding: "utf8" }).stdout.trim();
  return join(dir, "lib/linux/libclang_rt.fuzzer_no_main-x86_64.a");
}

function newestMtime(paths) {
  let newest = 0;
  for (const p of paths) if (existsSync(p)) newest = Math.max(newest, statSync(p).mtimeMs);
  return newest;
}

function filesIn(dir, re) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isFile() && re.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** A target's .cc files: folders expand to their .cc files (the grammar engine without its llama.cpp adapter). */
function sourceFiles(root, target) {
  return [target.harness, ...target.sources].flatMap((s) => {
    const p = join(root, s);
    if (!statSync(p).isDirectory()) return [p];
    return filesIn(p, /\.cc$/).filter((f) => !f.endsWith("llama_adapter.cc"));
  });
}

function ggmlBase(root, cache) {
  const dir = join(cache, "ggml");
  const lib = join(dir, "ggml/src/libggml-base.a");
  if (!existsSync(join(dir, "build.ninja"))) {
    // Instrumented for coverage and ASan (not UBSan: ggml's code is llama.cpp's, not ours to fix).
    // Configured from llama.cpp's root (its ggml folder alone lacks files a standalone build needs).
    const flags = "-g -O1 -fno-omit-frame-pointer -fsanitize=address,fuzzer-no-link";
    const off = "COMMON TESTS TOOLS EXAMPLES SERVER APP".split(" ").map((x) => `-DLLAMA_BUILD_${x}=OFF`);
    const options = "-DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF -DGGML_OPENMP=OFF -DLLAMA_OPENSSL=OFF";
    const compilers =
      "-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++";
    const source = ["-S", join(root, "deps/llama.cpp"), "-B", dir];
    const flagArgs = [`-DCMAKE_C_FLAGS=${flags}`, `-DCMAKE_CXX_FLAGS=${flags}`];
    run("cmake", [...source, ...compilers.split(" "), ...flagArgs, ...off, ...options.split(" ")]);
  }
  run("nice", ["-n", "5", "cmake", "--build", dir, "--target", "ggml-base", "-j", "2"]);
  return lib;
}

/** Builds a native target's binary (incrementally: objects newer than their sources and headers are kept). */
export async function buildNative(root, cache, target) {
  const includes = ["native", "native/grammar", "deps/llama.cpp/include", "deps/llama.cpp/ggml/include"];
  const headers = includes.slice(0, 2).flatMap((d) => filesIn(join(root, d), /\.h$/));
  const headerTime = newestMtime(headers);
  const objDir = join(cache, "obj");
  mkdirSync(objDir, { recursive: true });
  const objects = [];
  const compiles = [];
  const flags = [...CXXFLAGS, "-fsanitize=fuzzer-no-link", ...includes.map((d) => `-I${join(root, d)}`)];
  for (const src of sourceFiles(root, target)) {
    const obj = join(objDir, relative(root, src).replaceAll("/", "_") + ".o");
    objects.push(obj);
    if (existsSync(obj) && statSync(obj).mtimeMs > Math.max(statSync(src).mtimeMs, headerTime)) continue;
    compiles.push(["nice", "-n", "5", "clang++", ...flags, "-c", src, "-o", obj]);
  }
  if (compiles.length > 0) console.log(`fuzz: compiling ${compiles.length} files for ${target.name}`);
  await runTwoAtATime(compiles);
  const bin = join(cache, "bin", target.name);
  mkdirSync(dirname(bin), { recursive: true });
  const libs = target.ggml ? [ggmlBase(root, cache), "-lpthread", "-lm"] : [];
  if (!existsSync(bin) || statSync(bin).mtimeMs < newestMtime([...objects, ...libs.slice(0, 1)])) {
    run("clang++", [...CXXFLAGS, "-fsanitize=fuzzer", ...objects, ...libs, "-o", bin]);
  }
  return bin;
}

/** Installs Jazzer.js and esbuild into fuzz/js/node_modules and builds Jazzer.js's addon there. */
export function prepareJs(root) {
  const js = join(root, "fuzz/js");
  const fuzzer = join(js, "node_modules/@jazzer.js/fuzzer");
  if (!existsSync(join(js, "node_modules/esbuild")) || !existsSync(fuzzer)) {
    console.log("fuzz: installing Jazzer.js and esbuild into fuzz/js/node_modules (scripts off)");
    run("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: js });
  }
  const addon = join(fuzzer, "build/Release/jazzerjs.node");
  if (!existsSync(addon)) {
    console.log("fuzz: building Jazzer.js's addon against clang's libFuzzer");
    const nodeInclude = [join(dirname(process.execPath), "../include/node"), "/usr/include/node"].find((d) =>
      existsSync(join(d, "node_api.h")),
    );
    if (nodeInclude === undefined) throw new Error("Node.js headers (node_api.h) not found");
    mkdirSync(dirname(addon), { recursive: true });
    const sources = [...filesIn(fuzzer, /\.cpp$/), ...filesIn(join(fuzzer, "shared"), /\.cpp$/)];
    const flags = "-n 5 clang++ -shared -fPIC -O2 -std=c++17 -DNAPI_VERSION=4 -DNAPI_CPP_EXCEPTIONS".split(" ");
    const includes = [`-I${nodeInclude}`, `-I${join(js, "node_modules/node-addon-api")}`, `-I${join(js, "include")}`];
    const libFuzzer = ["-Wl,--whole-archive", libFuzzerNoMain(), "-Wl,--no-whole-archive", "-lpthread"];
    run("nice", [...flags, ...includes, ...sources, join(js, "jazzer-shim.cc"), ...libFuzzer, "-o", addon]);
  }
}

/** Bundles a TypeScript target (and the project code it imports) into one CommonJS file. */
export async function bundleJs(root, cache, target) {
  const { build } = await import(pathToFileURL(join(root, "fuzz/js/node_modules/esbuild/lib/main.js")).href);
  const out = join(cache, "js", `${target.name}.cjs`);
  mkdirSync(dirname(out), { recursive: true });
  // CommonJS has no import.meta: each module's own URL and folder are written in as literals.
  const importMeta = {
    name: "import-meta",
    setup(b) {
      b.onLoad({ filter: /\.(ts|mjs|js)$/ }, async (args) => {
        const { readFile } = await import("node:fs/promises");
        const text = await readFile(args.path, "utf8");
        const contents = text
          .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href))
          .replaceAll("import.meta.dirname", JSON.stringify(dirname(args.path)));
        return { contents, loader: args.path.endsWith(".ts") ? "ts" : "js" };
      });
    },
  };
  await build({
    entryPoints: [join(root, target.module)],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    outfile: out,
    sourcemap: "inline",
    logLevel: "error",
    plugins: [importMeta],
  });
  writeFileSync(join(cache, "js", "package.json"), '{ "type": "commonjs" }\n');
  return out;
}
