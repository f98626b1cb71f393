#!/usr/bin/env node
// npm run bench:grammar-cache — what the grammar caches save when a request repeats its schema:
//   native: toolwright-grammar-tool `cache` over MaskBench schemas (converted by lib/grammar):
//     compile (parse + check + build the sampler) and the first mask, cold (cache cleared) vs
//     cached (the same spec again: compiled grammar and warm automaton + mask cache reused), and
//     the mean mask along the schema's first valid instance; masks must be identical; a cold sampler
//     waits for its engine's warm-up (first masks computed off the compiling thread) before its first
//     mask, as a generation does while its prompt is decoded;
//   TypeScript: jsonSchemaToGbnf and generateChatParams (a 6-tool request), first conversion vs
//     the same content again in new objects.
// The reference is the cold run, measured in the same process. Also printed by bench:grammar.
//
// Options: --schemas N (default 60)  --vocab llama-bpe|qwen2 (default both)  --no-ts
// Final table: flock /tmp/toolwright-heavy.lock npm run bench:grammar-cache
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { firstValidInstance, MASKBENCH, maskbenchEntries, pick } from "./maskbench.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TOOL = process.env.TOOLWRIGHT_GRAMMAR_TOOL ?? join(ROOT, "build", "bin", "toolwright-grammar-tool");
const VOCABS = ["llama-bpe", "qwen2"];

const fmt = (x) => (x >= 1000 ? Math.round(x).toLocaleString("en-US") : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const ratio = (cold, warm) => (warm > 0 ? `${(cold / warm).toFixed(cold / warm >= 10 ? 0 : 1)}x` : "-");

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  for (const r of rows)
    console.log(r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join("  "));
}

/** MaskBench schemas with a valid instance, in bench:grammar's order. */
function maskbenchSchemas(n) {
  const out = [];
  const entries = maskbenchEntries();
  for (const e of pick(entries, entries.length)) {
    if (out.length >= n) break;
    const inst = firstValidInstance(e.path);
    if (inst) out.push({ name: e.name, ...inst });
  }
  return out;
}

/** Writes NAME.gbnf + NAME.txt for the schemas the converter takes; returns the folder. */
function writeCases(schemas, convert) {
  const dir = mkdtempSync(join(tmpdir(), "tw-bench-grammar-cache-"));
  let count = 0;
  for (const s of schemas) {
    let gbnf;
    try {
      gbnf = convert(s.schema);
    } catch {
      continue;
    }
    writeFileSync(join(dir, `${s.name}.gbnf`), gbnf);
    writeFileSync(join(dir, `${s.name}.txt`), s.text);
    count++;
  }
  return { dir, count };
}

function runCacheTool(vocab, dirs) {
  const vocabFile = join(ROOT, "deps", "llama.cpp", "models", `ggml-vocab-${vocab}.gguf`);
  const args = ["cache", "--vocab", vocabFile, "--await-warmup", ...dirs];
  let stdout;
  try {
    stdout = execFileSync(TOOL, args, { encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "inherit"] });
  } catch (e) {
    stdout = e.stdout ?? ""; // exit 1 = masks differed; still a result to print
  }
  return JSON.parse(stdout.trim().split("\n").pop());
}

/**
 * The native section: compile and first mask, cold vs cached, per vocabulary. Exported for
 * bench:grammar, which prints it after its own tables for the same grammar folders.
 */
export function printNativeCacheSection(dirs, vocabs = VOCABS) {
  for (const vocab of vocabs) {
    const r = runCacheTool(vocab, dirs);
    console.log(
      `\ncompile (cached): ${vocab}, ${r.cases} grammars (${r.skipped} skipped); µs; cached = the same spec again`,
    );
    const row = (label, cold, warm) => [
      label,
      fmt(cold.p50),
      fmt(warm.p50),
      fmt(cold.p99),
      fmt(warm.p99),
      fmt(cold.max),
      fmt(warm.max),
      ratio(cold.p99, warm.p99),
    ];
    table([
      ["", "cold p50", "cached p50", "cold p99", "cached p99", "cold max", "cached max", "p99 cold/cached"],
      row("compile", r.compile_cold_us, r.compile_warm_us),
      row("first mask (warm-up done)", r.first_mask_cold_us, r.first_mask_warm_us),
      row("mean mask of a request", r.mask_cold_us, r.mask_warm_us),
    ]);
    const kib = (b) => `${(b / 1024).toFixed(0)} KiB`;
    console.log(
      `cache: ${r.hits} hits, ${r.misses} misses, ${r.warm_engines} warm engines; one entry with its warm ` +
        `engine p50 ${kib(r.entry_bytes.p50)}, ` +
        `max ${kib(r.entry_bytes.max)}; masks differing cold vs cached: ${r.mismatches}; cold first masks ` +
        `from the warm-up: ${r.first_masks_cached} of ${r.first_masks_active}`,
    );
  }
}

function timeUs(f) {
  const t0 = process.hrtime.bigint();
  const out = f();
  return [Number(process.hrtime.bigint() - t0) / 1000, out];
}

function summary(v) {
  const s = [...v].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p99: at(0.99), max: s[s.length - 1] };
}

async function printTsSection(schemas) {
  const lib = (p) => pathToFileURL(join(ROOT, "lib", p)).href;
  const { jsonSchemaToGbnf } = await import(lib("grammar/index.js"));
  const { analyzeChatTemplate, generateChatParams } = await import(lib("chat/index.js"));
  const { ChatTemplate } = await import(lib("template/index.js"));
  // JIT warm-up on schemas that are not measured.
  for (const s of schemas.slice(0, 10)) {
    try {
      jsonSchemaToGbnf({ ...s.schema, description: "warm-up" });
    } catch {}
  }
  const cold = [];
  const warm = [];
  for (const s of schemas) {
    if (s.schema === null || typeof s.schema !== "object") continue;
    try {
      // Content no earlier call saw (the cases above were converted in this process): a real first time.
      const schema = { ...s.schema, $comment: "bench:grammar-cache" };
      const copy = structuredClone(schema);
      const [c] = timeUs(() => jsonSchemaToGbnf(schema));
      const [w] = timeUs(() => jsonSchemaToGbnf(copy));
      cold.push(c);
      warm.push(w);
    } catch {}
  }
  const source = readFileSync(join(ROOT, "deps", "llama.cpp", "models", "templates", "Qwen-Qwen3-0.6B.jinja"), "utf8");
  const template = new ChatTemplate(source);
  const analysis = analyzeChatTemplate(source, { template });
  const tools = (tag) =>
    Array.from({ length: 6 }, (_, i) => ({
      type: "function",
      function: {
        name: `${tag}_tool_${i}`,
        parameters: {
          type: "object",
          properties: {
            city: { type: "string", pattern: "^[A-Z][a-z]+$" },
            days: { type: "integer", minimum: 1, maximum: 14 },
            units: { enum: ["c", "f"] },
            when: { type: "string", format: "date-time" },
          },
          required: ["city"],
        },
      },
    }));
  const request = (tag) => ({ messages: [{ role: "user", content: "Weather in Paris?" }], tools: tools(tag) });
  for (let i = 0; i < 10; i++) generateChatParams(analysis, template, request(`warmup${i}`));
  const chatCold = [];
  const chatWarm = [];
  for (let i = 0; i < 30; i++) {
    const fresh = request(`cold${i}`);
    const same = request("same");
    chatCold.push(timeUs(() => generateChatParams(analysis, template, fresh))[0]);
    chatWarm.push(timeUs(() => generateChatParams(analysis, template, same))[0]);
  }
  const sc = summary(cold);
  const sw = summary(warm);
  const cc = summary(chatCold);
  const cw = summary(chatWarm.slice(1));
  console.log(
    `\nTypeScript grammar caches: µs; cold = first time for that content, cached = the same content again ` +
      `in new objects`,
  );
  const row = (label, c, w) => [
    label,
    fmt(c.p50),
    fmt(w.p50),
    fmt(c.p99),
    fmt(w.p99),
    fmt(c.max),
    fmt(w.max),
    ratio(c.p50, w.p50),
  ];
  table([
    ["", "cold p50", "cached p50", "cold p99", "cached p99", "cold max", "cached max", "p50 cold/cached"],
    row(`jsonSchemaToGbnf (${cold.length} schemas)`, sc, sw),
    row("generateChatParams (6 tools)", cc, cw),
  ]);
}

async function main() {
  const argv = process.argv.slice(2);
  let n = 60;
  let vocabs = VOCABS;
  let ts = true;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--schemas") n = Number(argv[++i]);
    else if (a === "--vocab") vocabs = [argv[++i]];
    else if (a === "--no-ts") ts = false;
    else throw new RangeError(`unknown option ${a}`);
  }
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`--schemas must be a positive integer, got ${n}`);
  for (const v of vocabs)
    if (!VOCABS.includes(v)) throw new RangeError(`--vocab must be one of ${VOCABS.join(", ")}, got ${v}`);
  if (!existsSync(TOOL))
    throw new Error(`toolwright-grammar-tool not found at ${TOOL}; build it: npm run build:native`);
  if (!existsSync(join(ROOT, "lib", "grammar", "index.js"))) throw new Error("lib/ not built: npm run build:ts");
  const schemas = maskbenchSchemas(n);
  if (schemas.length === 0) throw new Error(`no MaskBench schemas at ${MASKBENCH}`);
  const { jsonSchemaToGbnf } = await import(pathToFileURL(join(ROOT, "lib", "grammar", "index.js")).href);
  const { dir, count } = writeCases(schemas, (s) => jsonSchemaToGbnf(s));
  console.log(`grammar caches: ${count} MaskBench schemas (toolwright converter)`);
  printNativeCacheSection([dir], vocabs);
  if (ts) await printTsSection(schemas);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
