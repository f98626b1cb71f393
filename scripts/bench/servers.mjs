// What the server benchmarks share: llama-server built from the same llama.cpp source, the generated bench model,
// and starting a server process and waiting for its /health.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const LLAMA_DIR = process.env.TOOLWRIGHT_LLAMA_DIR ?? join(ROOT, "deps", "llama.cpp");
export const SERVER_BUILD = join(ROOT, ".cache", "llama-server", "build");
/** llama-server: TOOLWRIGHT_LLAMA_SERVER names another build's (a GPU build's, scripts/gpu/). */
export const LLAMA_SERVER = process.env.TOOLWRIGHT_LLAMA_SERVER ?? join(SERVER_BUILD, "bin", "llama-server");

/** Configures and builds llama-server from the same llama.cpp source into .cache/llama-server. */
export function buildLlamaServer() {
  const run = (args) => execFileSync("cmake", args, { stdio: "inherit" });
  run([
    "-S",
    LLAMA_DIR,
    "-B",
    SERVER_BUILD,
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_COMMON=ON",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DGGML_OPENMP=OFF",
    "-DLLAMA_ALL_WARNINGS=OFF",
    ...noAmxFlags(),
  ]);
  run(["--build", SERVER_BUILD, "--target", "llama-server", "-j", String(availableParallelism())]);
}

/**
 * The addon's own x86-64 build turns AMX off (CMakeLists.txt, TOOLWRIGHT_AMX): virtual machines may report it
 * and then kill the first AMX instruction with SIGILL. llama-server is built with the same instruction set.
 */
function noAmxFlags() {
  if (process.arch !== "x64" || process.env.TOOLWRIGHT_AMX === "1") return [];
  const flags = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16";
  return [`-DCMAKE_C_FLAGS=${flags}`, `-DCMAKE_CXX_FLAGS=${flags}`];
}

/**
 * The GGUF to benchmark: `model` when given, else a generated random-weight model of `size` with the qwen2
 * vocabulary and `template` (cached in .cache/bench-models).
 * @param {{ model?: string, size: string, template: string }} opt
 */
export async function benchModel(opt) {
  if (opt.model) return resolve(opt.model);
  const cache = join(ROOT, ".cache", "bench-models");
  const path = join(cache, `qwen2-${opt.size}-s1-${opt.template}.gguf`);
  if (!existsSync(path)) {
    mkdirSync(cache, { recursive: true });
    process.stderr.write(`generating ${path} ...\n`);
    const { createTestModel } = await import(pathToFileURL(join(ROOT, "lib", "runtime", "gguf", "test-model.js")).href);
    const tmp = `${path}.${process.pid}.tmp`;
    const chatTemplate = readFileSync(join(LLAMA_DIR, "models", "templates", `${opt.template}.jinja`), "utf8");
    await createTestModel({
      vocabPath: join(LLAMA_DIR, "models", "ggml-vocab-qwen2.gguf"),
      chatTemplate,
      size: opt.size,
      seed: 1,
      outPath: tmp,
    });
    renameSync(tmp, path);
  }
  return path;
}

/**
 * Starts a server process; resolves with its base URL once /health answers 200 (`fail` on a crash or timeout).
 * @param {string} name
 * @param {string} command
 * @param {string[]} args
 * @param {number} port
 * @param {(message: string) => never} fail
 */
export async function startServer(name, command, args, port, fail) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  let exited = false;
  child.on("exit", () => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 1200; i++) {
    if (exited) fail(`${name} exited before it was ready:\n${output.slice(-2000)}`);
    const ok = await fetch(`${url}/health`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok)
      return {
        url,
        child,
        stop: () => new Promise((r) => (exited ? r() : (child.once("exit", r), child.kill("SIGTERM")))),
      };
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill("SIGKILL");
  fail(`${name} did not become ready in 5 minutes:\n${output.slice(-2000)}`);
}

/** A TCP port free on loopback now. */
export async function freePort() {
  const { createServer } = await import("node:net");
  return new Promise((r) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (s.address());
      s.close(() => r(port));
    });
  });
}

/**
 * Which servers a bench runs (`--only`: one name or several, comma-separated, out of `known`), after building
 * llama-server when asked and checking that what runs exists: the compiled CLI for toolwright, the llama-server
 * binary. `selected(name)` says whether a server is run.
 * @param {{ only?: string, "build-llama-server"?: boolean }} opt
 * @param {(message: string) => never} fail
 * @param {string[]} [known]
 */
export function plannedServers(opt, fail, known = ["toolwright", "llama-server"]) {
  const only = opt.only === undefined ? known : opt.only.split(",").map((name) => name.trim());
  if (only.length === 0 || only.some((name) => !known.includes(name)))
    fail(`--only takes ${known.join(", ")} (several comma-separated), got "${opt.only}"`);
  if (opt["build-llama-server"]) buildLlamaServer();
  const selected = (/** @type {string} */ name) => only.includes(name);
  const runLlama = selected("llama-server");
  const runToolwright = selected("toolwright");
  if (runLlama && !existsSync(LLAMA_SERVER))
    fail(`${LLAMA_SERVER} not found: run with --build-llama-server (or --only without llama-server)`);
  const cli = join(ROOT, "lib", "cli", "main.js");
  if (runToolwright && !existsSync(cli)) fail("lib/cli/main.js not found: run npm run build:ts");
  return { runLlama, runToolwright, cli, selected };
}
