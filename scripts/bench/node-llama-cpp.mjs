// node-llama-cpp as a third contender of bench:toolcall. It is not a dependency of the package: the bench installs
// it on demand into .cache/node-llama-cpp (ignored by git) from the npm registry, with its prebuilt CPU binary for
// this platform only, and drives it in a child process (node-llama-cpp-worker.mjs). Anything that goes wrong comes
// back as a reason to print, never as a failure of the whole bench.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ROOT } from "./bench-model.mjs";

export const NODE_LLAMA_CPP_VERSION = "3.22.1";
const PREFIX = join(ROOT, ".cache", "node-llama-cpp");
const PACKAGE_DIR = join(PREFIX, "node_modules", "node-llama-cpp");

/** node-llama-cpp's prebuilt CPU binary package for this platform (its optional dependencies name them). */
const BINARY_PACKAGES = {
  "linux-x64": "linux-x64",
  "linux-arm64": "linux-arm64",
  "linux-arm": "linux-armv7l",
  "darwin-arm64": "mac-arm64-metal",
  "darwin-x64": "mac-x64",
  "win32-x64": "win-x64",
  "win32-arm64": "win-arm64",
};

/**
 * The path of node-llama-cpp's entry module, installed first when missing or another version; throws with the
 * reason when it cannot be installed. Optional dependencies are left out (the CUDA and Vulkan binaries are large)
 * and the one CPU binary is named instead; install scripts are skipped (they would try to build llama.cpp).
 */
function installedNodeLlamaCpp() {
  const manifest = join(PACKAGE_DIR, "package.json");
  const version = () => (existsSync(manifest) ? JSON.parse(readFileSync(manifest, "utf8")).version : undefined);
  if (version() !== NODE_LLAMA_CPP_VERSION) {
    const binary = BINARY_PACKAGES[`${process.platform}-${process.arch}`];
    if (binary === undefined) throw new Error(`no prebuilt CPU binary for ${process.platform}-${process.arch}`);
    mkdirSync(PREFIX, { recursive: true });
    process.stderr.write(`installing node-llama-cpp@${NODE_LLAMA_CPP_VERSION} into ${PREFIX} ...\n`);
    const packages = [
      `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`,
      `@node-llama-cpp/${binary}@${NODE_LLAMA_CPP_VERSION}`,
    ];
    const flags = ["--no-save", "--omit=optional", "--ignore-scripts", "--no-audit", "--no-fund"];
    try {
      execFileSync("npm", ["install", "--prefix", PREFIX, ...flags, ...packages], {
        stdio: ["ignore", "ignore", "pipe"],
        shell: process.platform === "win32",
      });
    } catch (error) {
      throw new Error(`npm install failed: ${npmErrorSummary(error)}`);
    }
    if (version() !== NODE_LLAMA_CPP_VERSION)
      throw new Error(`npm install left no node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`);
  }
  return join(PACKAGE_DIR, "dist", "index.js");
}

/** npm's error code and first message line (its stderr also has a stack trace and a log path). */
function npmErrorSummary(error) {
  const stderr = String(/** @type {{ stderr?: unknown }} */ (error).stderr ?? "");
  const lines = stderr.split("\n").map((line) => line.replace(/^npm (error|ERR!) ?/, ""));
  const code = lines.find((line) => line.startsWith("code "))?.slice(5);
  const message = lines.find((line) => line !== "" && !/^(code|syscall|errno|path) |^\s/.test(line));
  return [code, message].filter(Boolean).join(": ") || String(error);
}

/**
 * Starts node-llama-cpp on `modelPath` in a child process. Resolves with `{ call, stop, wrapper, callPrefix }`,
 * where `call(toolChoice)` answers one prompt (passes, tokens, tps, first, total, name, args), or with
 * `{ reason }` when node-llama-cpp cannot be installed or loaded.
 * @param {{ modelPath: string, threads: number, contextSize: number, maxTokens: number, system: string,
 *   user: string, tool: { name: string, description: string, parameters: object } }} config
 */
export async function startNodeLlamaCpp(config) {
  let entry;
  try {
    entry = installedNodeLlamaCpp();
  } catch (error) {
    return { reason: /** @type {Error} */ (error).message };
  }
  const worker = join(ROOT, "scripts", "bench", "node-llama-cpp-worker.mjs");
  const child = spawn(process.execPath, [worker, JSON.stringify({ ...config, entry })], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  /** The worker's next message; lines that are not JSON objects (a log line on stdout) are skipped. */
  const next = async () => {
    for (;;) {
      const { value, done } = await lines.next();
      if (done) throw new Error(`exited: ${stderr.trim().split("\n").slice(-3).join(" ") || "no output"}`);
      if (!value.startsWith("{")) continue;
      const message = JSON.parse(value);
      if (message.error !== undefined) throw new Error(message.error);
      return message;
    }
  };
  const stop = () =>
    new Promise((r) => (child.exitCode !== null ? r(undefined) : (child.once("exit", r), child.stdin.end())));
  try {
    const ready = await next();
    return {
      wrapper: ready.wrapper,
      callPrefix: ready.callPrefix,
      stop,
      /** @param {string} toolChoice */
      async call(toolChoice) {
        child.stdin.write(`${JSON.stringify({ toolChoice })}\n`);
        const result = await next();
        return { ...result, first: result.first ?? Number.NaN };
      },
    };
  } catch (error) {
    child.kill("SIGKILL");
    return { reason: `not loaded: ${/** @type {Error} */ (error).message}` };
  }
}
