#!/usr/bin/env node
// npm run bench:sequences — throughput of many generations on one model: generated tokens/s at
// concurrency 1, 4 and 8, on a parallel context (one context, `sequences` = concurrency, one
// batch per token) next to the reference measured in the same run: the same requests on one
// single-sequence context, one after another (what model.chat() did before parallel contexts).
//
// Each row runs `--requests` generations of `--max-tokens` tokens (greedy, distinct prompts) at
// that concurrency; the ratio column is the row's tokens/s over the sequential reference's.
// Default model: the ~0.5B random-weight Qwen2.5-shaped bench model (qwen2 vocabulary).
//
// Needs `npm run build:ts` and the native addon. The load average is printed: the machine may be shared.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { benchModel, lib } from "./bench-model.mjs";

const { values: opt } = parseArgs({
  options: {
    model: { type: "string" },
    size: { type: "string", default: "bench" },
    "max-tokens": { type: "string", default: "48" },
    requests: { type: "string", default: "16" },
    concurrency: { type: "string", default: "1,4,8" },
    threads: { type: "string", default: "2" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (opt.help) {
  console.log(
    "usage: npm run bench:sequences -- [--model PATH] [--size bench|tiny] [--max-tokens N] [--requests N] " +
      "[--concurrency LIST] [--threads N]",
  );
  process.exit(0);
}

const { loadModel } = await lib("index.js");

const modelPath = opt.model ?? (await benchModel("qwen2", opt.size));

const maxTokens = Number(opt["max-tokens"]);
const requests = Number(opt.requests);
const threads = Number(opt.threads);
const levels = opt.concurrency.split(",").map(Number);
const model = await loadModel(modelPath);
const prompts = Array.from(
  { length: requests },
  (_, i) => `Request ${i}: write a short story about the number ${i * 7}.`,
);

/** Runs every prompt, `concurrency` at a time, on `context`; returns tokens and seconds. */
async function run(context, concurrency) {
  let next = 0;
  let tokens = 0;
  const worker = async () => {
    while (next < prompts.length) {
      const prompt = prompts[next++];
      for await (const _ of context.generate({ prompt, maxTokens, sampling: { greedy: true }, reusePrefix: false }))
        tokens++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { tokens, seconds: (performance.now() - start) / 1000 };
}

const rows = [];
const single = await model.createContext({ contextSize: 512, threads });
await run(single, 1); // warm-up
const reference = await run(single, 1);
single.dispose();
rows.push({ mode: "single-sequence context, sequential (reference)", concurrency: 1, ...reference });
for (const concurrency of levels) {
  const context = await model.createContext({ contextSize: 512, threads, sequences: Math.max(2, concurrency) });
  await run(context, concurrency); // warm-up
  rows.push({
    mode: `parallel context, sequences ${Math.max(2, concurrency)}`,
    concurrency,
    ...(await run(context, concurrency)),
  });
  context.dispose();
}
model.dispose();

const refRate = reference.tokens / reference.seconds;
console.log(
  `model ${modelPath}, ${requests} requests x ${maxTokens} tokens, ${threads} threads, load average ` +
    `${loadavg()[0].toFixed(2)}`,
);
console.log("| mode | concurrency | tokens | seconds | tokens/s | vs reference |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
for (const r of rows) {
  const rate = r.tokens / r.seconds;
  console.log(
    `| ${r.mode} | ${r.concurrency} | ${r.tokens} | ${r.seconds.toFixed(2)} | ${rate.toFixed(1)} | ` +
      `${(rate / refRate).toFixed(2)}x |`,
  );
}
