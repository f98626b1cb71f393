#!/usr/bin/env node
// bench:parse — streaming parse of long model outputs, fed a few characters at a time (about
// one token), with toolwright's ChatStreamParser (incremental: each chunk re-examines only the
// unfinished tail) next to re-parsing the whole output from the start on every chunk (what a
// parser without resumable state must do to stream). Uses the compiled library: run
// `npm run build:ts` first. Usage: node scripts/bench/parse.mjs [--sizes 2048,8192,32768] [--chunk 4]
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { analyzeTemplate } from "../../lib/analysis/index.js";
import { ChatStreamParser, generateChatParams } from "../../lib/chat/index.js";
import { MessageMapper } from "../../lib/chat/mapper.js";
import { parsePeg } from "../../lib/peg/index.js";
import { ChatTemplate } from "../../lib/template/index.js";

const TEMPLATES = fileURLToPath(new URL("../../deps/llama.cpp/models/templates/", import.meta.url));

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const sizes = arg("sizes", "2048,8192,32768").split(",").map(Number);
const chunk = Number(arg("chunk", "4"));
if (sizes.some((n) => !Number.isInteger(n) || n <= 0) || !Number.isInteger(chunk) || chunk <= 0) {
  console.error("usage: node scripts/bench/parse.mjs [--sizes 2048,8192,32768] [--chunk 4]");
  process.exit(2);
}

const TOOLS = [
  {
    type: "function",
    function: {
      name: "write_file",
      description: "Write a file",
      parameters: { type: "object", properties: { path: { type: "string", description: "p" }, content: { type: "string", description: "c" } }, required: ["path", "content"] },
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
    output: (b) => `<think>\nWriting it.\n</think>\n\n<tool_call>\n{"name": "write_file", "arguments": {"path": "a.txt", "content": ${JSON.stringify(b)}}}\n</tool_call>`,
  },
  {
    name: "tagged tool call (Qwen3-Coder)",
    template: "Qwen3-Coder.jinja",
    tools: true,
    output: (b) => `<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\n${b}\n</parameter>\n</function>\n</tool_call>`,
  },
  {
    name: "GPT-OSS tool call",
    template: "openai-gpt-oss-120b.jinja",
    tools: true,
    output: (b) => `<|channel|>analysis<|message|>Writing it.<|end|><|start|>assistant to=functions.write_file<|channel|>commentary json<|message|>{"path": "a.txt", "content": ${JSON.stringify(b)}}`,
  },
  {
    name: "reasoning + content (Qwen3)",
    template: "Qwen-Qwen3-0.6B.jinja",
    tools: false,
    output: (b) => `<think>\n${b}\n</think>\n\n${b}`.slice(0, b.length + 40),
  },
];

function chunks(text) {
  const out = [];
  for (let i = 0; i < text.length; i += chunk) out.push(text.slice(i, i + chunk));
  return out;
}

/** toolwright: one incremental stream parser. */
function streaming(params, pieces) {
  const t0 = performance.now();
  const p = new ChatStreamParser(params, { generateCallId: (i) => `call${i}` });
  let deltas = 0;
  for (const piece of pieces) deltas += p.feed(piece).length;
  deltas += p.finish().length;
  return { ms: performance.now() - t0, message: p.message(), deltas };
}

/** Baseline: every chunk, parse prefix + everything so far from the start and map it afresh. */
function reparsing(params, pieces) {
  const { arena, root, prefix, mapping } = params.parser;
  const t0 = performance.now();
  let text = prefix;
  let message = null;
  for (const piece of pieces) {
    text += piece;
    const r = parsePeg(arena, root, text, { partial: true });
    const m = new MessageMapper(mapping, (i) => `call${i}`, prefix.length);
    if (r.status !== "fail") m.apply(r.nodes, r.input);
    message = m.message();
  }
  return { ms: performance.now() - t0, message };
}

const rows = [];
for (const c of CASES) {
  const source = readFileSync(TEMPLATES + c.template, "utf8");
  const template = new ChatTemplate(source);
  const analysis = analyzeTemplate(source, { template });
  const params = generateChatParams(analysis, template, { messages: [{ role: "user", content: "Write a.txt" }], tools: c.tools ? TOOLS : undefined });
  for (const n of sizes) {
    const pieces = chunks(c.output(body(n)));
    streaming(params, pieces.slice(0, 200)); // warm up
    const s = streaming(params, pieces);
    const r = reparsing(params, pieces);
    const same = JSON.stringify(s.message.tool_calls?.map((t) => JSON.parse(t.function.arguments))) === JSON.stringify(r.message?.tool_calls?.map((t) => JSON.parse(t.function.arguments)));
    rows.push({
      case: c.name,
      chars: pieces.join("").length,
      chunks: pieces.length,
      streamMs: s.ms,
      streamUs: (s.ms * 1000) / pieces.length,
      reparseMs: r.ms,
      reparseUs: (r.ms * 1000) / pieces.length,
      same,
    });
  }
}

const header = ["case", "output chars", "chunks", "stream total ms", "stream µs/chunk", "re-parse total ms", "re-parse µs/chunk", "speedup"];
const lines = rows.map((r) => [
  r.case,
  String(r.chars),
  String(r.chunks),
  r.streamMs.toFixed(1),
  r.streamUs.toFixed(1),
  r.reparseMs.toFixed(1),
  r.reparseUs.toFixed(1),
  `${(r.reparseMs / r.streamMs).toFixed(1)}x${r.same ? "" : " (!)"}`,
]);
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
const fmt = (cells) => "| " + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ") + " |";
console.log(`bench:parse — ${chunk} chars per chunk, node ${process.version}`);
console.log(fmt(header));
console.log("|" + widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : "-".repeat(w + 1) + ":")).join("|") + "|");
for (const l of lines) console.log(fmt(l));
if (rows.some((r) => !r.same)) console.log("(!) the two parsers disagree on the final arguments");
