/**
 * `toolwright pull hf:OWNER/REPO/FILE.gguf`: downloads a model from the Hugging Face hub (or a
 * mirror) into the Hugging Face hub cache and prints its path; progress goes to stderr.
 *
 * @example
 * const code = await runPull(["hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf"], process);
 */
import { AbortError } from "../runtime/errors.js";
import { ModelDownloadError, pullModel, type DownloadProgress, type PulledModel } from "../runtime/hub/index.js";
import {
  type CliIo,
  commandArgs,
  formatOptions,
  type OptionTable,
  parseCommandArgs,
  stringValue,
  UsageError,
} from "./args.js";
import { createProgressReporter, formatBytes, type ProgressStream } from "./progress.js";

const PULL_OPTIONS: OptionTable = {
  revision: { type: "string", value: "REV", help: "branch, tag or commit (default main)" },
  endpoint: {
    type: "string",
    value: "URL",
    help: "the hub's base URL (default $TOOLWRIGHT_HF_ENDPOINT, $HF_ENDPOINT\nor https://huggingface.co)",
  },
  "cache-dir": {
    type: "string",
    value: "DIR",
    help:
      "the Hugging Face hub cache (default $HF_HUB_CACHE, $HF_HOME/hub\nor ~/.cache/huggingface/hub), shared " +
      "with\nhuggingface-cli and llama.cpp's -hf",
  },
  quiet: { type: "boolean", short: "q", help: "no progress, only the path" },
};

export const PULL_USAGE = `Usage: toolwright pull <hf:OWNER/REPO/FILE.gguf | hf:OWNER/REPO[:QUANT]> [options]

Downloads a GGUF model from the Hugging Face hub into the hub cache that
huggingface-cli, Python and llama.cpp's -hf share, or finds it there (or in the
folder of earlier toolwright versions) up to date, and prints its path. An interrupted download (Ctrl-C, a dropped
connection) resumes where it stopped; the file is checked against the sha256 the
hub publishes. Set HF_TOKEN for gated or private repositories.

  hf:OWNER/REPO/FILE.gguf       a file of the repository (may be in a folder)
  hf:OWNER/REPO:QUANT           the repository's file for that quantization
  hf:OWNER/REPO                 Q4_K_M, else Q8_0, else the first model file

${formatOptions(PULL_OPTIONS)}
Then: toolwright chat <the printed path>, or loadModel("hf:...") in code.

Exit codes: 0 ok, 1 the download failed (offline, not found, access denied,
checksum mismatch), 2 usage error, 130 interrupted.
`;

/**
 * Runs the command; resolves to the process exit code.
 *
 * @example
 * process.exitCode = await runPull(["hf:Qwen/Qwen3-4B-GGUF:Q4_K_M"], process);
 */
export async function runPull(argv: readonly string[], io: CliIo): Promise<number> {
  const args = commandArgs("pull", PULL_USAGE, io, () => {
    const { values, positionals } = parseCommandArgs(argv, PULL_OPTIONS);
    if (values.help) return "help";
    if (positionals.length !== 1) throw new UsageError(`expected one model reference, got ${positionals.length}`);
    const ref = positionals[0]!;
    if (!ref.startsWith("hf:"))
      throw new UsageError(
        `${JSON.stringify(ref)} is not a model reference: write hf:OWNER/REPO/FILE.gguf or hf:OWNER/REPO:QUANT`,
      );
    return { ref, values };
  });
  if (typeof args === "number") return args;
  const { ref, values } = args;

  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  process.once("SIGINT", onInterrupt);
  const progress = values.quiet
    ? undefined
    : createProgressReporter(io.stderr as ProgressStream, `pulling ${ref.slice(3)}`);
  const revision = stringValue(values, "revision");
  const endpoint = stringValue(values, "endpoint");
  const cacheDir = stringValue(values, "cache-dir");
  let pulled: PulledModel;
  try {
    pulled = await pullModel(ref, {
      ...(revision !== undefined ? { revision } : {}),
      ...(endpoint !== undefined ? { endpoint } : {}),
      ...(cacheDir !== undefined ? { cacheDir } : {}),
      signal: controller.signal,
      ...(progress ? { onProgress: (p: DownloadProgress) => progress.update(fraction(p), describeProgress(p)) } : {}),
    });
  } catch (e) {
    progress?.done();
    if (e instanceof RangeError) {
      io.stderr.write(`toolwright pull: ${e.message}\n\n${PULL_USAGE}`);
      return 2;
    }
    if (e instanceof AbortError) {
      io.stderr.write("toolwright pull: interrupted; run the same command again to resume\n");
      return 130;
    }
    if (!(e instanceof ModelDownloadError)) throw e;
    io.stderr.write(`toolwright pull: ${e.message} [${e.code}]\n`);
    return 1;
  } finally {
    process.off("SIGINT", onInterrupt);
  }
  progress?.done();
  if (!values.quiet) io.stderr.write(`${summary(pulled)}\n`);
  io.stdout.write(`${pulled.path}\n`);
  return 0;
}

function fraction(p: DownloadProgress): number {
  return p.totalBytes ? p.receivedBytes / p.totalBytes : 0;
}

function describeProgress(p: DownloadProgress): string {
  return p.totalBytes
    ? `${formatBytes(p.receivedBytes)} of ${formatBytes(p.totalBytes)}`
    : formatBytes(p.receivedBytes);
}

function summary(p: PulledModel): string {
  const sha = p.sha256 ? `, sha256 ${p.sha256.slice(0, 12)}…` : "";
  const what = `${p.repo}/${p.file} (${formatBytes(p.sizeBytes)}${sha})`;
  if (p.source === "downloaded") return `downloaded ${what}`;
  return p.checked
    ? `up to date: ${what}`
    : `cached (the hub was not reached, so it is not known to be current): ${what}`;
}
