#!/usr/bin/env node
// Writes a random-weight llama GGUF model with a real tokenizer and chat template (for tests and
// benchmarks). Uses the compiled library: run `npm run build:ts` first.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const LLAMA_DIR = process.env.TOOLWRIGHT_LLAMA_DIR ?? join(ROOT, "deps", "llama.cpp");
const MODELS_DIR = join(LLAMA_DIR, "models");

const HELP = `usage: node scripts/make-test-model.mjs --vocab NAME --out FILE [options]

Writes a llama-architecture GGUF with deterministic random weights and the tokenizer of a real
vocabulary, optionally with a chat template. Run \`npm run build:ts\` first.

  --vocab NAME|PATH     vocabulary: NAME of ${MODELS_DIR}/ggml-vocab-NAME.gguf
                        (llama-bpe, qwen2, llama-spm, ...) or a path to a GGUF with a tokenizer
  --template NAME|PATH  chat template: file name in models/templates (".jinja" optional) or a path
                        (default: no tokenizer.chat_template)
  --size tiny|bench     tiny: n_embd 64, 2 layers (~10 MB with a 152k vocab);
                        bench: Qwen2.5-0.5B shape, 494M parameters, Q8_0 (~530 MB) (default tiny)
  --seed N              weight seed, 0..4294967295 (default 1)
  --out FILE            output path (required)
  custom dimensions (override the preset):
  --embd N --layers N --heads N --kv-heads N --ff N --ctx N
  --weight-type q8_0|iq4_xs|f16|f32  matrix storage type (default q8_0)
  --untied              write a separate output.weight instead of reusing token_embd
  --quiet               no progress output
  -h, --help            this help

example:
  node scripts/make-test-model.mjs --vocab qwen2 --template Qwen-Qwen3-0.6B --size tiny --seed 1 --out model.gguf
`;

function fail(message) {
  process.stderr.write(`make-test-model: ${message}\n`);
  process.exit(1);
}

let args;
try {
  ({ values: args } = parseArgs({
    options: {
      vocab: { type: "string" },
      template: { type: "string" },
      size: { type: "string", default: "tiny" },
      seed: { type: "string", default: "1" },
      out: { type: "string" },
      embd: { type: "string" },
      layers: { type: "string" },
      heads: { type: "string" },
      "kv-heads": { type: "string" },
      ff: { type: "string" },
      ctx: { type: "string" },
      "weight-type": { type: "string" },
      untied: { type: "boolean", default: false },
      quiet: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (e) {
  fail(`${e.message}\n(see --help)`);
}
if (args.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (!args.vocab) fail("--vocab is required (see --help)");
if (!args.out) fail("--out is required (see --help)");

function integer(flag, text) {
  if (!/^\d+$/.test(text)) fail(`--${flag} must be a non-negative integer, got "${text}"`);
  return Number(text);
}

const looksLikePath = (s) => isAbsolute(s) || s.includes("/") || s.includes("\\");
const vocabPath =
  looksLikePath(args.vocab) || args.vocab.endsWith(".gguf")
    ? resolve(args.vocab)
    : join(MODELS_DIR, `ggml-vocab-${args.vocab}.gguf`);
if (!existsSync(vocabPath)) {
  const hint = existsSync(MODELS_DIR) ? "" : ` (llama.cpp is not at ${LLAMA_DIR}: run node scripts/fetch-llama.mjs)`;
  fail(`vocabulary not found: ${vocabPath}${hint}`);
}

let chatTemplate;
if (args.template !== undefined) {
  const file = looksLikePath(args.template)
    ? resolve(args.template)
    : join(MODELS_DIR, "templates", args.template.endsWith(".jinja") ? args.template : `${args.template}.jinja`);
  if (!existsSync(file) || !statSync(file).isFile()) fail(`chat template not found: ${file}`);
  chatTemplate = readFileSync(file, "utf8");
}

const libPath = join(ROOT, "lib", "runtime", "gguf", "test-model.js");
if (!existsSync(libPath)) fail(`${libPath} is missing: run \`npm run build:ts\` first`);
const { createTestModel, TEST_MODEL_PRESETS } = await import(pathToFileURL(libPath).href);

if (!Object.hasOwn(TEST_MODEL_PRESETS, args.size))
  fail(`--size must be ${Object.keys(TEST_MODEL_PRESETS).join(" or ")}, got "${args.size}"`);
/** @type {string | Record<string, unknown>} */
let size = args.size;
const custom = {
  embeddingLength: args.embd,
  layers: args.layers,
  heads: args.heads,
  kvHeads: args["kv-heads"],
  feedForwardLength: args.ff,
  contextLength: args.ctx,
};
const flagOf = {
  embeddingLength: "embd",
  layers: "layers",
  heads: "heads",
  kvHeads: "kv-heads",
  feedForwardLength: "ff",
  contextLength: "ctx",
};
const overrides = {};
for (const [key, text] of Object.entries(custom)) if (text !== undefined) overrides[key] = integer(flagOf[key], text);
if (Object.keys(overrides).length > 0 || args["weight-type"] !== undefined || args.untied) {
  /** @type {Record<string, unknown>} */
  const chosen = { ...TEST_MODEL_PRESETS[args.size], ...overrides };
  if (args["weight-type"] !== undefined) chosen.weightType = args["weight-type"];
  if (args.untied) chosen.tieOutput = false;
  size = chosen;
}

const started = performance.now();
let lastShown = -1;
const progress = (p) => {
  const pct = Math.floor((p.written / p.total) * 100);
  if (pct === lastShown) return;
  lastShown = pct;
  process.stderr.write(
    `\r  ${pct}% ${(p.written / 1e6).toFixed(1)}/${(p.total / 1e6).toFixed(1)} MB  ${p.tensor.padEnd(28)}`,
  );
};
try {
  const info = await createTestModel({
    vocabPath,
    chatTemplate,
    size,
    seed: integer("seed", args.seed),
    outPath: resolve(args.out),
    onProgress: args.quiet ? undefined : progress,
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  if (!args.quiet) process.stderr.write("\n");
  const a = info.arch;
  process.stdout.write(
    `wrote ${info.path}: ${(info.bytes / 1e6).toFixed(1)} MB, ${(info.parameters / 1e6).toFixed(1)}M parameters, ` +
      `vocab ${info.vocabSize}, n_embd ${a.embeddingLength}, ${a.layers} layers, ${a.heads}/${a.kvHeads} heads, ` +
      `ffn ${a.feedForwardLength}, ${a.weightType}${a.tieOutput ? ", tied output" : ""}, ` +
      `template ${chatTemplate === undefined ? "none" : "set"}, in ${seconds} s\n`,
  );
} catch (e) {
  if (!args.quiet) process.stderr.write("\n");
  fail(e instanceof Error ? e.message : String(e));
}
