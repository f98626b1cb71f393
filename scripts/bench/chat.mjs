#!/usr/bin/env node
// npm run bench:chat — what tools and grammars cost in model.chat(): time to first token and
// generation tokens/s with grammar off vs on, on the same model and prompt, as a ratio.
//
// Each mode runs twice per round, with the grammar (chat option grammar: true) and without it
// (grammar: false: same prompt, same tools, decoding left free), on the same ~0.5B random-weight
// Qwen2.5-shaped model (qwen2 vocabulary: 152k tokens):
//   auto       tools, tool_choice auto (lazy grammar: only masks once a call starts)
//   required   tools, tool_choice required (strict grammar from the first token)
//   json       response_format json_schema (strict grammar)
// Each grammar mode runs on every registered grammar engine ("llama" is llama.cpp's).
//
// Needs `npm run build:ts` and the native addon. The load average is printed: the machine may be shared.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { benchModel, lib, ROOT } from "./bench-model.mjs";

const { values: opt } = parseArgs({
  options: {
    model: { type: "string" },
    size: { type: "string", default: "bench" },
    template: { type: "string", default: "Qwen-Qwen2.5-7B-Instruct" },
    "max-tokens": { type: "string", default: "32" },
    reps: { type: "string", default: "3" },
    threads: { type: "string", default: "2" },
    modes: { type: "string", default: "auto,required,json" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (opt.help) {
  console.log(
    `usage: npm run bench:chat -- [--model PATH] [--size tiny|bench|1b|8b] [--template NAME] [--max-tokens N] ` +
      `[--reps N] [--threads N] [--modes LIST]`,
  );
  process.exit(0);
}

const { loadModel, ChatSession } = await lib("index.js");
const { loadNative } = await lib("runtime/binding.js");

const templatePath = join(ROOT, "deps", "llama.cpp", "models", "templates", `${opt.template}.jinja`);
const template = readFileSync(templatePath, "utf8");
const modelPath = opt.model ?? (await benchModel("qwen2", opt.size));

const engines = loadNative().systemInfo().grammarEngines;
const model = await loadModel(modelPath);
const maxTokens = Number(opt["max-tokens"]);
const reps = Number(opt.reps);

const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather in a city",
      parameters: {
        type: "object",
        properties: { city: { type: "string", maxLength: 24 }, unit: { enum: ["c", "f"] } },
        required: ["city", "unit"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "get_time",
      description: "Local time",
      parameters: { type: "object", properties: { zone: { type: "string", maxLength: 32 } }, required: ["zone"] },
    },
  },
];
const schema = {
  type: "object",
  properties: { answer: { type: "string", maxLength: 40 }, confidence: { type: "integer", minimum: 0, maximum: 100 } },
  required: ["answer", "confidence"],
};
const MODES = {
  auto: { tools },
  required: { tools, toolChoice: "required" },
  json: { responseFormat: { type: "json_schema", json_schema: { name: "a", schema } } },
};

const messages = [
  { role: "system", content: "You are a helpful assistant with access to tools." },
  { role: "user", content: "What's the weather like in Paris right now, and what time is it there?" },
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * One request shape on its own context, primed: the KV cache holds the prompt (tools change it), so
 * every timed rep reuses it and TTFT measures what the grammar adds (setup, first masked sample),
 * not prompt evaluation.
 */
async function open(extra, engine) {
  const session = new ChatSession(model, { context: { contextSize: 2048, threads: Number(opt.threads) } });
  const request = { messages, ...extra, template, maxTokens, ...(engine ? { grammarEngine: engine } : {}) };
  // Primed with a whole request: one of a single token is refused where a required call has no room.
  await session.chat({ ...request, sampling: { seed: 1 } });
  const runs = [];
  return {
    runs,
    async once(seed) {
      const r = await session.chat({ ...request, sampling: { seed } });
      runs.push({ ttft: r.timings.firstTokenMs, tps: r.timings.tokensPerSecond, tokens: r.usage.completionTokens });
    },
    summary: () => ({
      ttft: median(runs.map((r) => r.ttft)),
      tps: median(runs.map((r) => r.tps)),
      tokens: median(runs.map((r) => r.tokens)),
    }),
    close: () => session.dispose(),
  };
}

/**
 * Grammar off and on, for the same request, take turns, one request each per round, in alternating
 * order, so slow drift of the machine hits both alike; the ratios compare the two medians.
 */
async function measurePair(extra, engine) {
  // Grammar off: the same request (same prompt, tools included) with decoding left free.
  const off = await open({ ...extra, grammar: false }, undefined);
  const mode = await open(extra, engine);
  try {
    for (let i = 0; i < reps; i++) {
      const order = i % 2 === 0 ? [off, mode] : [mode, off];
      for (const side of order) await side.once(7 + i);
    }
    return { plain: off.summary(), mode: mode.summary() };
  } finally {
    off.close();
    mode.close();
  }
}

console.log(
  `model ${modelPath} (${model.vocabSize} tokens), template ${opt.template}, maxTokens ${maxTokens}, reps ` +
    `${reps} (alternating with grammar off), threads ${opt.threads}, on ${model.placement.backend} ` +
    `(${model.placement.gpuLayers} GPU layers)`,
);
console.log(
  `grammar engines: ${engines.join(", ")}; load average at start: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
const widths = [8, 10, 12, 9, 12, 7, 6, 10, 11];
const print = (r) => console.log(r.map((cell, c) => cell.padStart(widths[c])).join("  "));
print(["mode", "engine", "off TTFT ms", "TTFT ms", "off tok/s", "tok/s", "tokens", "TTFT ratio", "tok/s ratio"]);
for (const mode of opt.modes.split(",")) {
  if (!MODES[mode]) throw new RangeError(`--modes: unknown mode ${mode}`);
  for (const engine of engines) {
    const { plain: off, mode: m } = await measurePair(MODES[mode], engine);
    // Rows print as they are measured: a slow grammar mode still shows the rest.
    print([
      mode,
      engine,
      off.ttft.toFixed(1),
      m.ttft.toFixed(1),
      off.tps.toFixed(1),
      m.tps.toFixed(1),
      String(m.tokens),
      (m.ttft / off.ttft).toFixed(2),
      off.tps > 0 ? (m.tps / off.tps).toFixed(2) : "-",
    ]);
  }
}
console.log("ratio = with grammar / grammar off (tok/s: 1.00 = the grammar costs nothing; goal ≥ 0.95 for toolwright)");
console.log(
  `load average at end: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
model.dispose();
