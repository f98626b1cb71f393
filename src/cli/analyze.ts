/**
 * `toolwright analyze <model.gguf | hf:… | template.jinja> [--json]`: shows how a model writes
 * reasoning, content and tool calls, as worked out from its chat template. An `hf:` model is
 * downloaded first, or taken from the cache.
 *
 * @example
 * const code = await runAnalyze(["model.gguf", "--json"], { stdout: process.stdout, stderr: process.stderr });
 */
import { readFile } from "node:fs/promises";
import { analyzeChatTemplate } from "../chat/index.js";
import { TemplateAnalysisError } from "../analysis/errors.js";
import { GgufError, readGgufMetadata } from "../runtime/gguf/index.js";
import { TemplateError, TemplateRuntimeError, TemplateSyntaxError } from "../template/index.js";
import { formatAnalysisTable } from "./analysis-table.js";
import { type CliIo, commandArgs, formatOptions, type OptionTable, parseCommandArgs, UsageError } from "./args.js";
import { resolveModelArg } from "./model-arg.js";

/** Where a command writes. */
const ANALYZE_OPTIONS: OptionTable = {
  json: { type: "boolean", help: "print the full analysis as JSON instead of a table" },
};

export const ANALYZE_USAGE = `Usage: toolwright analyze <model.gguf | hf:OWNER/REPO/FILE.gguf | template.jinja> [--json]

Works out, from the model's chat template, how it writes reasoning, content and
tool calls (the markers toolwright's parser and grammar are built from).

  <model.gguf>      reads the template from the tokenizer.chat_template metadata
  <hf:…>            the same, of a model downloaded first (see 'toolwright help
                    pull') or taken from the cache
  <template.jinja>  any other path is read as a Jinja chat template

${formatOptions(ANALYZE_OPTIONS)}
Exit codes: 0 ok, 1 the file cannot be read, downloaded or its template analysed,
2 usage error.
`;

/** A user-facing failure: printed as one line, exit code 1. */
class CliFailure extends Error {}

interface TemplateSource {
  source: string;
  bosToken: string;
  eosToken: string;
}

function tokenText(meta: Awaited<ReturnType<typeof readGgufMetadata>>, key: string): string {
  const id = meta.get(key);
  const tokens = meta.get("tokenizer.ggml.tokens");
  if (!id || id.type === "string" || id.type === "bool" || id.type === "array") return "";
  if (tokens?.type !== "array" || tokens.itemType !== "string") return "";
  return tokens.value[Number(id.value)] ?? "";
}

async function loadTemplate(path: string): Promise<TemplateSource> {
  if (path.toLowerCase().endsWith(".gguf")) {
    let meta;
    try {
      meta = await readGgufMetadata(path);
    } catch (e) {
      if (e instanceof GgufError) throw new CliFailure(e.message);
      throw e;
    }
    const template = meta.get("tokenizer.chat_template");
    if (!template)
      throw new CliFailure(`${path}: the model has no chat template (no tokenizer.chat_template in its metadata)`);
    if (template.type !== "string")
      throw new CliFailure(`${path}: tokenizer.chat_template is a ${template.type}, not a string`);
    return {
      source: template.value,
      bosToken: tokenText(meta, "tokenizer.ggml.bos_token_id"),
      eosToken: tokenText(meta, "tokenizer.ggml.eos_token_id"),
    };
  }
  try {
    return { source: await readFile(path, "utf8"), bosToken: "", eosToken: "" };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ENOENT") throw new CliFailure(`${path}: no such file`);
    if (err.code === "EISDIR") throw new CliFailure(`${path}: is a directory, not a template or model file`);
    throw new CliFailure(`${path}: cannot read: ${err.message}`);
  }
}

/** Runs the command; resolves to the process exit code (0 ok, 1 failure, 2 usage error). */
export async function runAnalyze(argv: readonly string[], io: CliIo): Promise<number> {
  const args = commandArgs("analyze", ANALYZE_USAGE, io, () => {
    const { values, positionals } = parseCommandArgs(argv, ANALYZE_OPTIONS);
    if (values.help) return "help";
    if (positionals.length !== 1)
      throw new UsageError(`expected one model or template path, got ${positionals.length}`);
    return { json: values.json === true, arg: positionals[0]! };
  });
  if (typeof args === "number") return args;
  const { json, arg } = args;
  const path = await resolveModelArg(arg, { command: "analyze", usage: ANALYZE_USAGE }, io);
  if (typeof path === "number") return path;
  try {
    const { source, bosToken, eosToken } = await loadTemplate(path);
    const analysis = analyzeChatTemplate(source, { bosToken, eosToken });
    io.stdout.write(json ? `${JSON.stringify(analysis, null, 2)}\n` : `${path}\n${formatAnalysisTable(analysis)}\n`);
    return 0;
  } catch (e) {
    const message = describeFailure(path, e);
    if (message === undefined) throw e;
    io.stderr.write(`toolwright analyze: ${message}\n`);
    return 1;
  }
}

function describeFailure(path: string, e: unknown): string | undefined {
  if (e instanceof CliFailure) return e.message;
  if (e instanceof TemplateSyntaxError) return `${path}: the chat template has a syntax error: ${e.message}`;
  if (e instanceof TemplateAnalysisError) return `${path}: the chat template could not be analysed: ${e.message}`;
  if (e instanceof TemplateError || e instanceof TemplateRuntimeError) {
    return `${path}: the chat template failed while rendering: ${e.message}`;
  }
  return undefined;
}
