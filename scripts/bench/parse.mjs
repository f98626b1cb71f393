#!/usr/bin/env node
// bench:parse — streaming parse of long model outputs, fed a few characters at a time (about
// one token), with toolwright's ChatStreamParser (incremental: each chunk appends to a growable
// buffer and re-examines only the unfinished tail) next to re-parsing the whole output from the
// start on every chunk (what a parser without resumable state must do to stream).
//
// What to look for: "stream µs/chunk" stays flat as the output grows (growth ≈ 1x from the
// smallest size to the largest) while re-parsing grows with the output (≈ the size ratio).
// "work/char" is the parser's own work counter per character (deterministic, timing-free).
// Re-parsing every chunk of a 128k output would take many minutes, so its per-chunk cost is
// measured on evenly spaced prefixes (--samples, default 60) and its total is that mean times the
// number of chunks (marked "est."); below --samples chunks every chunk is measured.
//
// Uses the compiled library: run `npm run build:ts` first.
// Usage: node scripts/bench/parse.mjs [--sizes 4096,32768,131072] [--chunk 4] [--samples 60]
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { analyzeChatTemplate } from "../../lib/chat/index.js";
import { ChatStreamParser, generateChatParams } from "../../lib/chat/index.js";
import { MessageMapper } from "../../lib/chat/mapper.js";
import { parsePeg } from "../../lib/peg/index.js";
import { ChatTemplate } from "../../lib/template/index.js";

const TEMPLATES = fileURLToPath(new URL("../../deps/llama.cpp/models/templates/", import.meta.url));

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const USAGE = "usage: node scripts/bench/parse.mjs [--sizes 4096,32768,131072] [--chunk 4] [--samples 60]";
const sizes = arg("sizes", "4096,32768,131072").split(",").map(Number);
const chunk = Number(arg("chunk", "4"));
const samples = Number(arg("samples", "60"));
if (
  sizes.some((n) => !Number.isInteger(n) || n <= 0) ||
  !Number.isInteger(chunk) ||
  chunk <= 0 ||
  !Number.isInteger(samples) ||
  samples < 2
) {
  console.error(USAGE);
  process.exit(2);
}

/** @type {import("../../src/types.js").ToolDefinition[]} */
const TOOLS = [
  {
    type: "function",
    function: {
      name: "write_file",
      description: "Write a file",
      parameters: {
        type: "object",
        properties: { path: { type: "string", description: "p" }, content: { type: "string", description: "c" } },
        required: ["path", "content"],
      },
    },
  },
];

/** Source-code-like text of about n characters (quotes, backslashes, non-ASCII). */
function body(n) {
  let s = "";
  for (let i = 0; s.length < n; i++) s += `line ${i}: const s = "q\\\\n"; // ünïcødé ✓\n`;
  return s.slice(0, n);
}

const CASES = [
  {
    name: "JSON tool call (Qwen3)",
    template: "Qwen-Qwen3-0.6B.jinja",
    tools: true,
    output: (b) =>
      `<think>\nWriting it.\n</think>\n\n<tool_call>\n{"name": "write_file", "arguments": {"path": "a.txt", ` +
      `"content": ${JSON.stringify(b)}}}\n</tool_call>`,
  },
  {
    name: "tagged tool call (Qwen3-Coder)",
    template: "Qwen3-Coder.jinja",
    tools: true,
    output: (b) =>
      "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n" +
      `<parameter=content>\n${b}\n</parameter>\n</function>\n</tool_call>`,
  },
  {
    name: "GPT-OSS tool call",
    template: "openai-gpt-oss-120b.jinja",
    tools: true,
    output: (b) =>
      `<|channel|>analysis<|message|>Writing it.<|end|><|start|>assistant ` +
      `to=functions.write_file<|channel|>commentary json<|message|>{"path": "a.txt", ` +
      `"content": ${JSON.stringify(b)}}`,
  },
  {
    name: "reasoning + content (Qwen3)",
    template: "Qwen-Qwen3-0.6B.jinja",
    tools: false,
    output: (b) => `<think>\n${b.slice(0, b.length >> 1)}\n</think>\n\n${b.slice(b.length >> 1)}`,
  },
];

function chunks(text) {
  const out = [];
  for (let i = 0; i < text.length; i += chunk) out.push(text.slice(i, i + chunk));
  return out;
}

/** toolwright: one incremental stream parser over all the chunks. */
function streaming(params, pieces) {
  const t0 = performance.now();
  const p = new ChatStreamParser(params, { generateCallId: (i) => `call${i}` });
  let deltas = 0;
  for (const piece of pieces) deltas += p.feed(piece).length;
  deltas += p.finish().length;
  return { ms: performance.now() - t0, message: p.message(), deltas, work: p.work };
}

/** Baseline, one chunk: parse prefix + everything so far from the start and map it afresh. */
function reparseOnce(params, text) {
  const { arena, root, mapping, prefix } = params.parser;
  const r = parsePeg(arena, root, text, { partial: true });
  const m = new MessageMapper(mapping, (i) => `call${i}`, prefix.length);
  if (r.status !== "fail") m.apply(r.nodes, r.source);
  return m.message();
}

/**
 * Baseline over the stream: the mean cost of a chunk, measured after every chunk when there
 * are few, else after `samples` evenly spaced chunks (re-parse cost is linear in the prefix, so
 * even spacing gives the mean), and the final message (re-parse of the whole output).
 */
function reparsing(params, pieces) {
  const prefix = params.parser.prefix;
  const ends = [];
  let acc = prefix.length;
  for (const piece of pieces) ends.push((acc += piece.length));
  const all = prefix + pieces.join("");
  const picks =
    pieces.length <= samples
      ? ends.map((_, i) => i)
      : Array.from({ length: samples }, (_, k) => Math.round(((k + 0.5) * pieces.length) / samples) - 1);
  let ms = 0;
  for (const i of picks) {
    const text = all.slice(0, ends[i]);
    const t0 = performance.now();
    reparseOnce(params, text);
    ms += performance.now() - t0;
  }
  const usPerChunk = (ms * 1000) / picks.length;
  return {
    usPerChunk,
    totalMs: (usPerChunk * pieces.length) / 1000,
    estimated: picks.length < pieces.length,
    message: reparseOnce(params, all),
  };
}

const argsOf = (m) => JSON.stringify(m?.tool_calls?.map((t) => JSON.parse(t.function.arguments)) ?? null);

console.log(`bench:parse — ${chunk} chars per chunk, node ${process.version}`);
const header = [
  "case",
  "output chars",
  "chunks",
  "stream total ms",
  "stream µs/chunk",
  "growth",
  "work/char",
  "re-parse µs/chunk",
  "growth",
  "re-parse total ms",
  "speedup",
];
const widths = header.map((h) => h.length);
const fmt = (cells) =>
  "| " + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ") + " |";
const rows = [];
let disagree = false;
for (const c of CASES) {
  const source = readFileSync(TEMPLATES + c.template, "utf8");
  const template = new ChatTemplate(source);
  const analysis = analyzeChatTemplate(source, { template });
  const params = generateChatParams(analysis, template, {
    messages: [{ role: "user", content: "Write a.txt" }],
    tools: c.tools ? TOOLS : undefined,
  });
  let base = null;
  // Warm up both parsers on this case's grammar first, so the smallest size is not measured cold.
  const warm = chunks(c.output(body(8192)));
  for (let k = 0; k < 3; k++) streaming(params, warm);
  for (let k = 1; k <= 20; k++)
    reparseOnce(params, params.parser.prefix + warm.slice(0, (k * warm.length) / 20).join(""));
  for (const n of sizes) {
    const pieces = chunks(c.output(body(n)));
    // Best of three: the streaming pass is short enough that a GC pause would show.
    const s = [streaming(params, pieces), streaming(params, pieces), streaming(params, pieces)].sort(
      (x, y) => x.ms - y.ms,
    )[0];
    const r = reparsing(params, pieces);
    const same = argsOf(s.message) === argsOf(r.message) && (s.message.content ?? "") === (r.message.content ?? "");
    if (!same) disagree = true;
    const streamUs = (s.ms * 1000) / pieces.length;
    base ??= { streamUs, reparseUs: r.usPerChunk };
    const chars = pieces.join("").length;
    rows.push([
      c.name,
      String(chars),
      String(pieces.length),
      s.ms.toFixed(1),
      streamUs.toFixed(1),
      `${(streamUs / base.streamUs).toFixed(2)}x`,
      (s.work / chars).toFixed(2),
      r.usPerChunk.toFixed(1),
      `${(r.usPerChunk / base.reparseUs).toFixed(1)}x`,
      `${r.totalMs.toFixed(0)}${r.estimated ? " est." : ""}`,
      `${(r.totalMs / s.ms).toFixed(0)}x${same ? "" : " (!)"}`,
    ]);
  }
}
rows.forEach((l) => l.forEach((cell, i) => (widths[i] = Math.max(widths[i], cell.length))));
console.log(fmt(header));
console.log("|" + widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : "-".repeat(w + 1) + ":")).join("|") + "|");
for (const l of rows) console.log(fmt(l));
console.log("growth: µs/chunk relative to the case's smallest size (flat = 1x; re-parsing grows with the output).");
if (disagree) {
  console.log("(!) the streaming parser and the re-parse disagree on the final message");
  process.exitCode = 1;
}
