/**
 * The model argument of `chat`, `inspect` and `analyze`: a file path, or an `hf:` reference that is
 * downloaded into the cache first (or taken from it), failing with the lines `toolwright pull`
 * prints.
 *
 * @example
 * const usage = { command: "inspect", usage: INSPECT_USAGE };
 * const path = await resolveModelArg("hf:Qwen/Qwen3-0.6B-GGUF:Q8_0", usage, process);
 * if (typeof path === "number") return path; // the exit code
 */
import { type DownloadProgress, isHfModelRef, ModelDownloadError, pullModel } from "../runtime/hub/index.js";
import type { CliIo } from "./args.js";
import { createProgressReporter, formatBytes, type ProgressStream } from "./progress.js";

/** Which command asks, for its messages. */
export interface ModelArgCommand {
  /** The command's name ("inspect"): messages start `toolwright inspect: `. */
  command: string;
  /** Its usage text, printed after a malformed reference (a usage error). */
  usage: string;
}

/**
 * The local path for `arg`: a path as it is; an `hf:` reference pulled into the cache (a cached
 * file is used without asking the hub), with progress on stderr. Resolves to an exit code instead
 * when it cannot: 2 for a malformed reference (with the usage), 1 for a download failure (one line
 * ending in the error's code, as `toolwright pull` writes it).
 *
 * @example
 * const path = await resolveModelArg(argv[0], { command: "analyze", usage: ANALYZE_USAGE }, io);
 */
export async function resolveModelArg(
  arg: string,
  { command, usage }: ModelArgCommand,
  io: CliIo,
): Promise<string | number> {
  if (!isHfModelRef(arg)) return arg;
  const progress = createProgressReporter(io.stderr as ProgressStream, `pulling ${arg.slice(3)}`);
  const onProgress = (p: DownloadProgress) =>
    progress.update(p.totalBytes ? p.receivedBytes / p.totalBytes : 0, formatBytes(p.receivedBytes));
  try {
    const { path } = await pullModel(arg, { checkForUpdate: false, onProgress });
    progress.done();
    return path;
  } catch (e) {
    progress.done(); // the bar's line is cleared before the message
    if (e instanceof RangeError) {
      io.stderr.write(`toolwright ${command}: ${e.message}\n\n${usage}`);
      return 2;
    }
    if (!(e instanceof ModelDownloadError)) throw e;
    io.stderr.write(`toolwright ${command}: ${e.message} [${e.code}]\n`);
    return 1;
  }
}
