#!/usr/bin/env node
// npm run bench:embed — model.embed() throughput: texts per second when a call embeds many texts
// (packed into batches of whole texts as separate sequences) against the reference of the same
// texts embedded one call each, on the same model, in the same run.
//
// Default model: a random-weight llama model with llama.cpp's llama-spm vocabulary (32k tokens;
// a generative model's embedding path still computes its logits, so the vocabulary size weighs
// in), "tiny" or "bench" shape. Needs `npm run build:ts` and the native addon.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { benchModel, lib } from "./bench-model.mjs";

const { values: opt } = parseArgs({
  options: {
    model: { type: "string" },
    size: { type: "string", default: "tiny" },
    texts: { type: "string", default: "256" },
    words: { type: "string", default: "12" },
    threads: { type: "string", default: "1" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (opt.help) {
  console.log("usage: npm run bench:embed -- [--model PATH] [--size tiny|bench] [--texts N] [--words N] [--threads N]");
  process.exit(0);
}

const { loadModel } = await lib("index.js");

const modelPath = opt.model ?? (await benchModel("llama-spm", opt.size));

const model = await loadModel(modelPath, { gpu: false });
const count = Number(opt.texts);
const words = [
  "river",
  "mountain",
  "quiet",
  "engine",
  "paper",
  "window",
  "garden",
  "signal",
  "copper",
  "violet",
  "harbor",
  "lantern",
];
const texts = Array.from(
  { length: count },
  (_, i) =>
    Array.from({ length: Number(opt.words) }, (_, w) => words[(i * 7 + w * 3) % words.length]).join(" ") + ` ${i}`,
);
const tokens = texts.reduce((n, t) => n + model.tokenize(t).length, 0);

const options = { threads: Number(opt.threads) };
await model.embed(texts.slice(0, 4), options); // creates the embedding context
const time = async (work) => {
  const start = performance.now();
  await work();
  return (performance.now() - start) / 1000;
};
const batched = await time(() => model.embed(texts, options));
const single = await time(async () => {
  for (const t of texts) await model.embed(t, options);
});

const row = (name, seconds) =>
  `| ${name.padEnd(26)} | ${(count / seconds).toFixed(1).padStart(9)} | ${(tokens / seconds).toFixed(0).padStart(9)} |`;
console.log(
  `model ${modelPath} (${model.info.embeddingSize} dimensions), ${count} texts, ${tokens} tokens, ` +
    `${options.threads} thread(s); load average ${loadavg()[0].toFixed(2)}`,
);
console.log("| mode                       |   texts/s |  tokens/s |");
console.log("| --- | ---: | ---: |");
console.log(row("one call, batched", batched));
console.log(row("reference: a call per text", single));
console.log(`batched / one per call: ${(single / batched).toFixed(2)}x`);
model.dispose();
