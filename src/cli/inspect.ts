/**
 * `toolwright inspect <model.gguf | hf:…> [--json] [--template]`: what a GGUF file holds — architecture,
 * sizes, tensor types, chat template and tokenizer — read from its header only (the weights are
 * never loaded, so inspecting a 70B model is instant). An `hf:` model is downloaded first, or taken
 * from the cache.
 *
 * @example
 * const code = await runInspect(["model.gguf", "--json"], { stdout: process.stdout, stderr: process.stderr });
 */
import { formatMemory } from "./memory-summary.js";
import { GgufError, readGguf } from "../runtime/gguf/index.js";
import { type CliIo, commandArgs, formatOptions, type OptionTable, parseCommandArgs, UsageError } from "./args.js";
import { resolveModelArg } from "./model-arg.js";
import { formatBytes } from "./progress.js";
import { type ModelSummary, summarizeGguf } from "./model-summary.js";

const INSPECT_OPTIONS: OptionTable = {
  json: { type: "boolean", help: "print everything as JSON (includes the whole chat template)" },
  template: { type: "boolean", help: "print only the chat template, whole (e.g. to save it to a file)" },
};

export const INSPECT_USAGE = `Usage: toolwright inspect <model.gguf | hf:OWNER/REPO/FILE.gguf> [--json | --template]

Shows what a GGUF model file holds, from its header alone (no weights are loaded):
architecture and sizes, tensor types (quantization), the chat template, and the
tokenizer (vocabulary size, model, pre-tokenizer, special tokens). An hf: model
is downloaded first (see 'toolwright help pull'), or taken from the cache.

${formatOptions(INSPECT_OPTIONS)}
Exit codes: 0 ok, 1 the file cannot be read as GGUF or downloaded (or has no
chat template for --template), 2 usage error.
`;

/** Lines of the chat template shown in the summary. */
const TEMPLATE_PREVIEW_LINES = 8;
const TEMPLATE_PREVIEW_WIDTH = 100;

/**
 * Runs the command; resolves to the process exit code (0 ok, 1 unreadable file or failed download, 2 usage error).
 *
 * @example
 * process.exitCode = await runInspect(["model.gguf"], process);
 */
export async function runInspect(argv: readonly string[], io: CliIo): Promise<number> {
  const args = commandArgs("inspect", INSPECT_USAGE, io, () => {
    const { values, positionals } = parseCommandArgs(argv, INSPECT_OPTIONS);
    if (values.help) return "help";
    if (positionals.length !== 1) throw new UsageError(`expected one model path, got ${positionals.length}`);
    const json = values.json === true;
    const template = values.template === true;
    if (json && template)
      throw new UsageError("--json and --template cannot be combined (--json includes the template)");
    return { json, template, arg: positionals[0]! };
  });
  if (typeof args === "number") return args;
  const { json, template, arg } = args;
  const path = await resolveModelArg(arg, { command: "inspect", usage: INSPECT_USAGE }, io);
  if (typeof path === "number") return path;
  let summary: ModelSummary;
  try {
    summary = summarizeGguf(await readGguf(path));
  } catch (e) {
    if (!(e instanceof GgufError)) throw e;
    io.stderr.write(`toolwright inspect: ${e.message}\n`);
    return 1;
  }
  if (template) {
    if (summary.chatTemplate.source === null) {
      io.stderr.write(
        `toolwright inspect: ${path}: the model has no chat template (no tokenizer.chat_template in its metadata)\n`,
      );
      return 1;
    }
    const source = summary.chatTemplate.source;
    io.stdout.write(source.endsWith("\n") ? source : `${source}\n`);
    return 0;
  }
  io.stdout.write(json ? `${JSON.stringify(summary, null, 2)}\n` : formatSummary(summary));
  return 0;
}

/**
 * The human-readable report of a {@link ModelSummary}.
 *
 * @example
 * process.stdout.write(formatSummary(summarizeGguf(await readGguf("model.gguf"))));
 */
export function formatSummary(s: ModelSummary): string {
  const out: string[] = [];
  const row = (label: string, value: string, width = 16) =>
    out.push(`  ${label.padEnd(Math.max(width, label.length + 2))}${value}`);

  out.push(s.file.path);
  row(
    "file",
    `${formatBytes(s.file.sizeBytes)}, GGUF v${s.file.ggufVersion}, ${s.file.tensorCount} tensors, ` +
      `${s.file.metadataCount} metadata keys`,
  );
  row("architecture", s.general.architecture ?? "(none: general.architecture is missing)");
  if (s.general.name !== null) row("name", s.general.name);
  if (s.general.sizeLabel !== null) row("size label", s.general.sizeLabel);
  row(
    "parameters",
    `${formatCount(s.tensors.parameterCount)} (${formatBytes(s.tensors.bytes)} of tensor data, ` +
      `${s.tensors.bitsPerWeight.toFixed(2)} bits per weight)`,
  );
  if (s.general.fileType !== null)
    row("file type", `${s.general.fileType.name} (general.file_type ${s.general.fileType.id})`);
  const types = Object.entries(s.tensors.types).map(([name, t]) => `${name} ×${t.count}`);
  row("tensor types", types.length > 0 ? types.join(", ") : "(no tensors)");

  const hyper = Object.entries(s.hyperparameters);
  if (hyper.length > 0) {
    out.push("", `Hyperparameters (${s.general.architecture}.*)`);
    const width = Math.max(...hyper.map(([key]) => key.length)) + 2;
    for (const [key, value] of hyper) row(key, JSON.stringify(value), width);
  }

  out.push("");
  const t = s.chatTemplate;
  if (t.source === null) {
    out.push("Chat template: none (no tokenizer.chat_template)");
  } else {
    out.push(`Chat template (${t.length} characters, ${t.lines} lines; --template prints it whole)`);
    const lines = t.source.split("\n");
    for (const line of lines.slice(0, TEMPLATE_PREVIEW_LINES)) out.push(`  | ${clip(line)}`);
    if (lines.length > TEMPLATE_PREVIEW_LINES) out.push(`  | … ${lines.length - TEMPLATE_PREVIEW_LINES} more lines`);
  }
  if (t.named.length > 0) out.push(`  named templates: ${t.named.join(", ")}`);

  const v = s.vocabulary;
  out.push("", "Vocabulary");
  row("size", v.size === null ? "(no tokenizer.ggml.tokens)" : String(v.size));
  row("model", v.model ?? "(none)");
  row("pre-tokenizer", v.preTokenizer ?? "(none)");
  if (v.merges !== null) row("merges", String(v.merges));
  const typeCounts = Object.entries(v.tokenTypes).map(([name, n]) => `${name} ${n}`);
  if (typeCounts.length > 0) row("token types", typeCounts.join(", "));
  const flags = [
    ["add BOS", v.addBos],
    ["add EOS", v.addEos],
    ["add SEP", v.addSep],
  ] as const;
  const shownFlags = flags.filter(([, f]) => f !== null).map(([name, f]) => `${name} ${f ? "yes" : "no"}`);
  if (shownFlags.length > 0) row("adds", shownFlags.join(", "));
  const specials = Object.entries(v.specialTokens);
  if (specials.length > 0) {
    out.push("  special tokens");
    for (const [role, tok] of specials)
      row(`  ${role}`, `${tok.id} ${tok.text === null ? "(outside the vocabulary)" : JSON.stringify(tok.text)}`);
  }
  if (v.controlTokenSample.length > 0) {
    const total = (v.tokenTypes.control ?? 0) + (v.tokenTypes["user-defined"] ?? 0) - v.placeholderTokens;
    const more = total > v.controlTokenSample.length ? ` … ${total - v.controlTokenSample.length} more` : "";
    out.push(
      `  control and user-defined tokens: ${v.controlTokenSample.map((x) => JSON.stringify(x)).join(" ")}${more}`,
    );
  }
  if (v.placeholderTokens > 0) out.push(`  placeholder tokens (reserved, unused): ${v.placeholderTokens}`);

  out.push(...formatMemory(s.memory, formatBytes));

  if (s.warnings.length > 0) {
    out.push("", "Warnings");
    for (const w of s.warnings) out.push(`  ${w}`);
  }
  return `${out.join("\n")}\n`;
}

function clip(line: string): string {
  return line.length > TEMPLATE_PREVIEW_WIDTH ? `${line.slice(0, TEMPLATE_PREVIEW_WIDTH - 1)}…` : line;
}

function formatCount(n: number): string {
  if (n < 1000) return String(n);
  const units = [
    ["B", 1e9],
    ["M", 1e6],
    ["K", 1e3],
  ] as const;
  for (const [unit, size] of units) if (n >= size) return `${(n / size).toFixed(n / size < 10 ? 2 : 1)} ${unit}`;
  return String(n);
}
