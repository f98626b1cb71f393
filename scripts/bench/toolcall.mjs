#!/usr/bin/env node
// npm run bench:toolcall — one tool call, start to end: `toolwright serve` against llama.cpp's own `llama-server`
// (built from the same llama.cpp source, same GGUF, same threads), both over loopback HTTP with streaming, so the
// client code is the same for both, and against node-llama-cpp (node-llama-cpp.mjs: installed on demand, driven
// in a child process through its LlamaChatSession function calling; no HTTP, its times are taken in the child).
// Two cases on a realistic schema (7 properties, an enum, a nested object, an array): a forced call (tool_choice
// "required"; node-llama-cpp has none, see node-llama-cpp-worker.mjs for its nearest equivalent) and an auto call
// (tool_choice "auto"; node-llama-cpp: functions offered, the model decides).
//
// Columns, medians of --runs runs per case and server (alternating which server goes first):
//   passes   forward passes of generation: tokens sampled one by one (llama-server: timings.predicted_n less
//            timings.draft_n_accepted;
//            toolwright: the generated tokens less those fast-forward decoded together with a sampled one,
//            usage.completion_tokens_details.accepted_prediction_tokens; node-llama-cpp: its sequence's token
//            meter, output tokens = decodes that asked for logits: it samples one token per pass, passes = tokens)
//   tokens   generated tokens (usage.completion_tokens)
//   tok/s    generated tokens per second after the first token
//   first    ms from the request to the first tool-call delta
//   total    ms from the request to the end of the stream
//   valid    runs whose call names the tool and whose arguments satisfy the schema (ajv)
// and the ratios other / toolwright for passes and total (above 1: toolwright is ahead).
//
// Needs `npm run build:ts`, the addon, and llama-server (`npm run bench:serve -- --build-llama-server` builds it).
// The load average is printed: the machine may be shared.
import { existsSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { Ajv } from "ajv";
import { benchFail, parseBenchArgs } from "./bench-args.mjs";
import { NODE_LLAMA_CPP_VERSION, startNodeLlamaCpp } from "./node-llama-cpp.mjs";
import { benchModel, freePort, LLAMA_SERVER, plannedServers, startServer } from "./servers.mjs";

const HELP = `usage: npm run bench:toolcall -- [options]

  --model PATH          benchmark this GGUF (it must have a chat template with tools) instead of the bench model
  --size NAME           generated model size: tiny or bench (default bench: ~0.5B, qwen2 vocabulary)
  --template NAME       chat template of the generated model (default Qwen-Qwen2.5-7B-Instruct)
  --runs N              runs per case and server (default 5)
  --max-tokens N        most tokens per answer (default 256; greedy decoding)
  --threads N           CPU threads of each server (default min(cores, 8))
  --build-llama-server  configure and build llama-server first
  --only NAMES          run only these, comma-separated: toolwright, llama-server, node-llama-cpp, and speculative
                        decoding: toolwright+lookup, toolwright+self, llama-server+lookup, llama-server+self (the
                        model as its own draft: the ceiling of a draft that agrees)
                        (node-llama-cpp@${NODE_LLAMA_CPP_VERSION} is installed into .cache/node-llama-cpp on first use)
`;

const opt = parseBenchArgs("toolcall", HELP, {
  model: { type: "string" },
  size: { type: "string", default: "bench" },
  template: { type: "string", default: "Qwen-Qwen2.5-7B-Instruct" },
  runs: { type: "string", default: "5" },
  "max-tokens": { type: "string", default: "256" },
  threads: { type: "string", default: String(Math.min(availableParallelism(), 8)) },
  "build-llama-server": { type: "boolean", default: false },
  only: { type: "string" },
});
const fail = (message) => benchFail("toolcall", message);
function positive(name) {
  if (!/^\d+$/.test(opt[name]) || Number(opt[name]) < 1)
    fail(`--${name} must be a positive integer, got "${opt[name]}"`);
  return Number(opt[name]);
}
const runs = positive("runs");
const maxTokens = positive("max-tokens");
const threads = positive("threads");

/** A calendar tool with the shapes real tools have: strings with limits, an enum, an integer, a nested object. */
const SCHEMA = {
  type: "object",
  properties: {
    title: { type: "string", maxLength: 60 },
    date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
    start_time: { type: "string", pattern: "^\\d{2}:\\d{2}$" },
    duration_minutes: { type: "integer", minimum: 5, maximum: 480 },
    priority: { enum: ["low", "normal", "high"] },
    attendees: { type: "array", items: { type: "string", maxLength: 40 }, maxItems: 6 },
    location: {
      type: "object",
      properties: { city: { type: "string", maxLength: 40 }, room: { type: "string", maxLength: 20 } },
      required: ["city"],
      additionalProperties: false,
    },
  },
  required: ["title", "date", "start_time", "duration_minutes", "priority", "location"],
  additionalProperties: false,
};
const TOOLS = [
  {
    type: "function",
    function: { name: "create_event", description: "Create an event in the user's calendar", parameters: SCHEMA },
  },
];
const MESSAGES = [
  { role: "system", content: "You manage the user's calendar. Today is 2026-11-28." },
  {
    role: "user",
    content:
      "Book a one-hour design review with Ana Souza and Luis Ortega next Tuesday at 10:00 in Berlin, room B2. " +
      "It is high priority.",
  },
];
const CASES = [
  { name: "forced call", toolChoice: "required" },
  { name: "auto call", toolChoice: "auto" },
];
const validArguments = new Ajv({ strict: false }).compile(SCHEMA);

/** One streamed request: timings, counts, and the call's name and arguments. */
async function callOnce(url, toolChoice) {
  const started = performance.now();
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      model: "bench",
      messages: MESSAGES,
      tools: TOOLS,
      tool_choice: toolChoice,
      // One call: the answer ends with it (llama-server's default; toolwright's, like OpenAI's, allows several).
      parallel_tool_calls: false,
      max_tokens: maxTokens,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  if (res.status !== 200) fail(`HTTP ${res.status} from ${url}: ${(await res.text()).slice(0, 300)}`);
  let firstToken;
  let firstCall;
  let usage;
  let timings;
  let name = "";
  let args = "";
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const bytes of res.body) {
    buffer += decoder.decode(bytes, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      const data = event.replace(/^data: /, "");
      if (data === "[DONE]" || data.trim() === "") continue;
      const chunk = JSON.parse(data);
      const delta = chunk.choices?.[0]?.delta;
      if (delta && (delta.content || delta.reasoning_content || delta.tool_calls)) firstToken ??= performance.now();
      for (const call of delta?.tool_calls ?? []) {
        firstCall ??= performance.now();
        name += call.function?.name ?? "";
        args += call.function?.arguments ?? "";
      }
      if (chunk.usage) usage = chunk.usage;
      if (chunk.timings) timings = chunk.timings;
    }
  }
  const done = performance.now();
  const tokens = usage?.completion_tokens ?? 0;
  return {
    passes: timings
      ? timings.predicted_n - (timings.draft_n_accepted ?? 0)
      : tokens - (usage?.completion_tokens_details?.accepted_prediction_tokens ?? 0),
    tokens,
    tps: firstToken !== undefined && done > firstToken ? ((tokens - 1) * 1000) / (done - firstToken) : 0,
    first: firstCall === undefined ? Number.NaN : firstCall - started,
    total: done - started,
    name,
    args,
  };
}

/** Whether a call names the tool and its arguments satisfy the schema. */
function isValidCall({ name, args }) {
  try {
    return name === "create_event" && validArguments(JSON.parse(args));
  } catch {
    return false;
  }
}

const median = (values) => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)];
};

/**
 * Speculative decoding, each server with the same settings (8 tokens a draft): prompt lookup, and the ceiling of a
 * draft that agrees (the model as its own draft; a real draft is a smaller model of the family, and random weights
 * make a small one useless).
 */
const SPECULATIVE = [
  { name: "toolwright+lookup", server: "toolwright", args: ["--lookup", "--draft-max", "8"] },
  {
    name: "toolwright+self",
    server: "toolwright",
    args: () => ["--draft-model", modelPath, "--draft-p-min", "0", "--draft-max", "8"],
  },
  {
    name: "llama-server+lookup",
    server: "llama-server",
    args: ["--spec-type", "ngram-simple", "--spec-draft-n-max", "8"],
  },
  {
    name: "llama-server+self",
    server: "llama-server",
    args: () => ["--spec-type", "draft-simple", "-md", modelPath, "--spec-draft-n-max", "8", "--draft-p-min", "0"],
  },
];
const KNOWN = ["toolwright", "llama-server", "node-llama-cpp", ...SPECULATIVE.map((v) => v.name)];
const { runLlama, runToolwright, cli, selected } = plannedServers(opt, fail, KNOWN);
const modelPath = await benchModel(opt);

const servers = [];
/** Starts `toolwright serve` (or llama-server) with `extra` flags as the contender `name`. */
async function startContender(name, server, extra) {
  const port = await freePort();
  if (server === "toolwright") {
    const args = [cli, "serve", modelPath, "--port", String(port), "--parallel", "1", "--context-size", "4096"];
    args.push("--threads", String(threads), "--threads-batch", String(threads), "--alias", "bench", "--quiet");
    const started = await startServer(name, process.execPath, [...args, ...extra], port, fail);
    servers.push({ name, ...started, call: (toolChoice) => callOnce(started.url, toolChoice) });
    return;
  }
  const args = ["-m", modelPath, "--host", "127.0.0.1", "--port", String(port), "--parallel", "1"];
  args.push("--ctx-size", "4096", "--threads", String(threads), "--threads-batch", String(threads));
  args.push("--jinja", "--no-webui");
  const started = await startServer(name, LLAMA_SERVER, [...args, ...extra], port, fail);
  servers.push({ name, ...started, call: (toolChoice) => callOnce(started.url, toolChoice) });
}
if (runToolwright) await startContender("toolwright", "toolwright", []);
if (runLlama) await startContender("llama-server", "llama-server", []);
for (const v of SPECULATIVE) {
  if (!selected(v.name) || (v.server === "llama-server" && !existsSync(LLAMA_SERVER))) continue;
  await startContender(v.name, v.server, typeof v.args === "function" ? v.args() : v.args);
}
/** Contenders that could not run, with why: printed as rows, the bench goes on without them. */
const notRun = new Map();
if (selected("node-llama-cpp")) {
  const [system, user] = MESSAGES.map((m) => m.content);
  const tool = TOOLS[0].function;
  const nlc = await startNodeLlamaCpp({ modelPath, threads, contextSize: 4096, maxTokens, system, user, tool });
  if ("reason" in nlc) notRun.set("node-llama-cpp", nlc.reason);
  else {
    servers.push({ name: "node-llama-cpp", ...nlc });
    const prefix = JSON.stringify(nlc.callPrefix);
    console.log(
      `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}: chat wrapper ${nlc.wrapper}; "forced" = a context state with no ` +
        `prefix triggers and a functionCall noPrefixTrigger injecting ${prefix} (function-call mode from the first ` +
        "token); passes = tokens (one sampled token per decode); times taken in its child process, no HTTP; " +
        "its JSON grammar has no pattern, minimum or maximum (valid checks them)",
    );
  }
}

console.log(`model ${modelPath}, threads ${threads}, greedy, ${runs} runs per case, load ${loadavg()[0].toFixed(2)}`);
const header = `${"case".padEnd(12)} ${"server".padEnd(20)} passes tokens   tok/s  first ms  total ms  valid`;
console.log(`\n${header}`);
/** One answer of `s`; a contender that fails (node-llama-cpp's child) is dropped with its reason. */
async function callOrDrop(s, toolChoice) {
  try {
    return await s.call(toolChoice);
  } catch (error) {
    if (s.name === "toolwright" || s.name === "llama-server") throw error;
    notRun.set(s.name, `failed: ${/** @type {Error} */ (error).message}`);
    servers.splice(servers.indexOf(s), 1);
    await s.stop();
    return undefined;
  }
}

try {
  for (const s of [...servers]) await callOrDrop(s, "required"); // warm-up: compiles the grammar, fills the cache
  for (const c of CASES) {
    const rows = Object.fromEntries(servers.map((s) => [s.name, []]));
    for (let r = 0; r < runs; r++) {
      const order = r % 2 === 0 ? [...servers] : [...servers].reverse();
      for (const s of order) {
        const result = await callOrDrop(s, c.toolChoice);
        if (result) rows[s.name].push({ ...result, valid: isValidCall(result) });
      }
    }
    const summary = {};
    for (const s of servers) {
      const list = rows[s.name];
      const m = (key) => median(list.map((x) => x[key]));
      summary[s.name] = { passes: m("passes"), total: m("total") };
      const cells = [
        String(m("passes")).padStart(6),
        String(m("tokens")).padStart(6),
        m("tps").toFixed(1).padStart(7),
        m("first").toFixed(0).padStart(9),
        m("total").toFixed(0).padStart(9),
        `${list.filter((x) => x.valid).length}/${list.length}`.padStart(6),
      ];
      console.log(`${c.name.padEnd(12)} ${s.name.padEnd(20)} ${cells.join(" ")}`);
    }
    for (const [name, reason] of notRun) console.log(`${c.name.padEnd(12)} ${name.padEnd(20)} not run: ${reason}`);
    const tw = summary.toolwright;
    for (const [name, other] of Object.entries(summary)) {
      if (name === "toolwright" || !tw) continue;
      console.log(
        `${c.name.padEnd(12)} ratio ${name} / toolwright: passes ${(other.passes / tw.passes).toFixed(2)}x, ` +
          `total ${(other.total / tw.total).toFixed(2)}x`,
      );
    }
  }
  console.log(`load average ${loadavg()[0].toFixed(2)}`);
} finally {
  for (const s of servers) await s.stop();
}
