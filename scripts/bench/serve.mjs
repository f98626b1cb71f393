#!/usr/bin/env node
// npm run bench:serve — `toolwright serve` against llama.cpp's own `llama-server`, built from the
// same llama.cpp source, on the same model file, over loopback HTTP.
//
// Both servers run as child processes with the same --parallel, the same threads (generation and
// batch), the same context size per sequence (4096) and the same batch size (llama-server's
// default 2048, micro-batch 512). For each concurrency level, the same requests (distinct
// prompts, greedy decoding, non-streaming /v1/chat/completions) go to each server in turn, and
// the table shows requests/s, generated tokens/s (from usage.completion_tokens) and p50/p99
// latency, with the tokens/s ratio toolwright / llama-server (1.00 = as fast as llama-server).
//
// Before the levels, each server answers --parallel requests at once (the warm-up, one on each
// sequence), then 8 requests of --max-tokens one after another (toolwright's JS is compiled as it runs:
// without this its first level ran ~5% slower in its first trial), so the levels measure the steady
// state; the warm-up's mean latency is printed. A request
// that lands on a sequence while another holds more of its prompt starts from a copy of that prefix
// (native/batch_copy.cc); llama-server keeps prompts in a host-memory cache and restores from it.
//
// The same work both ways: the same prompts, max_tokens and temperature 0, and the generated
// tokens are counted per server (a level whose totals differ says so). At temperature 0 llama-server
// still runs its default sampler chain (top-k 40, top-p 0.95, min-p 0.05, then the greedy pick)
// over the vocabulary; toolwright takes the argmax. Both pick the same token.
//
// The machine may be shared: another process that takes a core stalls every thread barrier of a
// decode for a time slice, which swings a run by several times. So each level runs --trials
// trials per server, alternating which server goes first (the server that goes first in a trial ran
// 2-4% faster than the one after it, either way round, in 8 alternating pairs at concurrency 1: an even
// number of trials gives each server the first place equally often), and each server's row is its best
// trial (the one least disturbed); the load average before and after is printed. "per trial" is the
// median of each trial's ratio: a trial runs the two servers back to back, so a machine whose speed
// drifts between trials moves both alike; the range of those ratios is printed beside it.
//
// Needs `npm run build:ts`, the native addon, and llama-server, built into .cache/llama-server:
//   cmake -S deps/llama.cpp -B .cache/llama-server/build -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
//     -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_COMMON=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_TESTS=OFF \
//     -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DGGML_OPENMP=OFF
//     (on x86-64 also -DCMAKE_C_FLAGS and -DCMAKE_CXX_FLAGS "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16", as the addon)
//   cmake --build .cache/llama-server/build --target llama-server -j 2
// (--build-llama-server runs these two commands.) The load average is printed: the machine may be shared.
import { availableParallelism, loadavg } from "node:os";
import { benchFail, parseBenchArgs } from "./bench-args.mjs";
import { benchModel, freePort, LLAMA_SERVER, plannedServers, startServer } from "./servers.mjs";

const HELP = `usage: npm run bench:serve -- [options]

  --model PATH          benchmark this GGUF (it must have a chat template) instead of the bench model
  --size NAME           generated model size: tiny, bench, 1b or 8b (default bench: ~0.5B, qwen2 vocabulary)
  --template NAME       chat template of the generated model (default Qwen-Qwen2.5-7B-Instruct)
  --concurrency LIST    concurrency levels (default 1,4,8,16)
  --requests N          requests per level (default: 2 x the level, at least 8)
  --max-tokens N        tokens per request (default 32; greedy decoding)
  --parallel N          sequences per server (llama-server --parallel; default 16)
  --threads N           CPU threads of each server (default min(cores, 8), toolwright's default)
  --trials N            trials per level and server, alternating; the best is shown (default 4)
  --gpu-layers N        layers each server offloads to a GPU (default: each server's own default)
  --build-llama-server  configure and build llama-server first
  --only NAME           run one server: toolwright or llama-server
`;

const opt = parseBenchArgs("serve", HELP, {
  model: { type: "string" },
  size: { type: "string", default: "bench" },
  template: { type: "string", default: "Qwen-Qwen2.5-7B-Instruct" },
  concurrency: { type: "string", default: "1,4,8,16" },
  requests: { type: "string" },
  "max-tokens": { type: "string", default: "32" },
  parallel: { type: "string", default: "16" },
  threads: { type: "string", default: String(Math.min(availableParallelism(), 8)) },
  trials: { type: "string", default: "4" },
  "gpu-layers": { type: "string" },
  "build-llama-server": { type: "boolean", default: false },
  only: { type: "string" },
});
const fail = (message) => benchFail("serve", message);

function positive(name, text = opt[name]) {
  if (!/^\d+$/.test(text) || Number(text) < 1) fail(`--${name} must be a positive integer, got "${text}"`);
  return Number(text);
}

const levels = opt.concurrency.split(",").map((c) => positive("concurrency", c));
const maxTokens = positive("max-tokens");
const parallel = positive("parallel");
const threads = positive("threads");
const trials = positive("trials");
const gpuLayers = opt["gpu-layers"];
if (gpuLayers !== undefined && !/^\d+$/.test(gpuLayers)) fail(`--gpu-layers must be an integer, got "${gpuLayers}"`);
/** Tokens of context per sequence, both servers. */
const CONTEXT_PER_SEQUENCE = 4096;
/** llama-server's default logical batch (its micro-batch is 512, as toolwright's). */
const BATCH = 2048;

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Runs `count` requests at `concurrency`; returns req/s, tokens/s, p50/p99 ms, generated and cached tokens. */
async function load(url, concurrency, count, level, tokensPerRequest = maxTokens) {
  let next = 0;
  let tokens = 0;
  let cached = 0;
  const latencies = [];
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const t = performance.now();
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          model: "bench",
          messages: [{ role: "user", content: `Request ${level}-${i}: tell me about topic number ${i}.` }],
          max_tokens: tokensPerRequest,
          temperature: 0,
          seed: i,
        }),
      });
      const body = /** @type {{ usage: Usage }} */ (await res.json());
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
      latencies.push(performance.now() - t);
      tokens += body.usage.completion_tokens;
      cached += body.usage.prompt_tokens_details?.cached_tokens ?? 0;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rps: count / seconds,
    tps: tokens / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    mean: latencies.reduce((a, b) => a + b, 0) / latencies.length,
    tokens,
    cached,
  };
}

/** @typedef {{ completion_tokens: number, prompt_tokens_details?: { cached_tokens?: number } }} Usage */

const { runLlama, runToolwright, cli } = plannedServers(opt, fail);
const modelPath = await benchModel(opt);

const servers = [];
if (runToolwright) {
  const port = await freePort();
  const args = [cli, "serve", modelPath, "--port", String(port), "--max-tokens", String(Math.max(maxTokens, 4096))];
  args.push("--parallel", String(parallel), "--threads", String(threads), "--threads-batch", String(threads));
  args.push("--context-size", String(CONTEXT_PER_SEQUENCE), "--batch-size", String(BATCH), "--alias", "bench");
  if (gpuLayers !== undefined) args.push("--gpu-layers", gpuLayers);
  servers.push({
    name: "toolwright",
    parallel,
    ...(await startServer("toolwright serve", process.execPath, args, port, fail)),
  });
}
if (runLlama) {
  const port = await freePort();
  // --ctx-size is split among the slots: each gets CONTEXT_PER_SEQUENCE tokens.
  const args = [
    "-m",
    modelPath,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--parallel",
    String(parallel),
    "--ctx-size",
    String(CONTEXT_PER_SEQUENCE * parallel),
    "--batch-size",
    String(BATCH),
    "--threads",
    String(threads),
    "--threads-batch",
    String(threads),
    "--jinja",
    "--no-webui",
  ];
  if (gpuLayers !== undefined) args.push("--n-gpu-layers", gpuLayers);
  servers.push({
    name: "llama-server",
    parallel,
    ...(await startServer("llama-server", LLAMA_SERVER, args, port, fail)),
  });
}

console.log(
  `model ${modelPath}, ${maxTokens} tokens per request (greedy), threads ${threads} (generation and ` +
    `batch), load average ${loadavg()[0].toFixed(2)}`,
);
console.log(
  `both: --parallel ${parallel}, ${CONTEXT_PER_SEQUENCE} tokens of context per sequence, batch ${BATCH} ` +
    `(micro-batch 512), best of ${trials} alternating trials per level`,
);
console.log(
  "differs: llama-server is C++ end to end (HTTP, template, tokenizer, sampler); toolwright renders the " +
    "template and parses the output in JS, and samples greedy by argmax",
);
const results = [];
try {
  // Every sequence warm (see the header): --parallel short requests at once, one on each sequence.
  for (const s of servers) {
    const w = await load(s.url, parallel, parallel, "warmup", 4);
    const steady = await load(s.url, 1, 8, "steady");
    console.log(
      `warm-up ${s.name}: ${parallel} requests of 4 tokens at once, mean ${w.mean.toFixed(0)} ms; ` +
        `8 of ${maxTokens} tokens one after another, mean ${steady.mean.toFixed(0)} ms`,
    );
  }
  for (const level of levels) {
    const count = opt.requests ? positive("requests") : Math.max(8, 2 * level);
    const row = { level, count };
    /** toolwright / llama-server tokens/s of each trial: the two runs of a trial are back to back. */
    const trialRatios = [];
    for (let t = 0; t < trials; t++) {
      const order = t % 2 === 0 ? servers : [...servers].reverse();
      const trial = {};
      for (const s of order) {
        const r = await load(s.url, level, count, `${level}.${t}`);
        trial[s.name] = r;
        if (!row[s.name] || r.tps > row[s.name].tps) row[s.name] = r;
      }
      if (trial.toolwright && trial["llama-server"]) trialRatios.push(trial.toolwright.tps / trial["llama-server"].tps);
    }
    results.push(row);
    const f = (r) =>
      r
        ? `${r.rps.toFixed(2).padStart(7)} ${r.tps.toFixed(1).padStart(8)} ${r.p50.toFixed(0).padStart(7)} ` +
          `${r.p99.toFixed(0).padStart(7)}`
        : "      -        -       -       -";
    if (results.length === 1) {
      console.log(`\n${"".padEnd(9)}| ${"toolwright".padEnd(32)}| ${"llama-server".padEnd(32)}| ratio`);
      console.log(
        `conc  req | ${"req/s    tok/s  p50 ms  p99 ms".padEnd(32)}| ` +
          `${"req/s    tok/s  p50 ms  p99 ms".padEnd(32)}| tok/s  per trial`,
      );
    }
    const tw = row.toolwright;
    const ll = row["llama-server"];
    const ratio = tw && ll ? (tw.tps / ll.tps).toFixed(2) : "-";
    const sorted = [...trialRatios].sort((a, b) => a - b);
    // The median: of an even number, the mean of the middle two.
    const middle = sorted.slice(Math.floor((sorted.length - 1) / 2), Math.floor(sorted.length / 2) + 1);
    const perTrial = sorted.length > 0 ? (middle.reduce((a, b) => a + b, 0) / middle.length).toFixed(2) : "-";
    // Not the same work: the servers generated different numbers of tokens for the same requests.
    const differs = tw && ll && tw.tokens !== ll.tokens ? `, tokens differ: ${tw.tokens} vs ${ll.tokens}` : "";
    const cached = servers.map((s) => `${s.name} ${row[s.name].cached}`).join(", ");
    // How far the trials spread: a ratio inside that range says nothing about which server is faster.
    const spread = sorted.length > 1 ? `trials ${sorted[0].toFixed(2)}-${sorted.at(-1).toFixed(2)}; ` : "";
    console.log(
      `${String(level).padStart(4)} ${String(count).padStart(4)} | ${f(tw)} | ${f(ll)} | ${ratio}   ` +
        `${perTrial.padStart(9)}   (${spread}load ` +
        `${loadavg()[0].toFixed(2)}; cached prompt tokens: ${cached}${differs})`,
    );
  }
  const one = results.find((r) => r.level === 1);
  const eight = results.find((r) => r.level === 8);
  if (one && eight) {
    for (const s of servers)
      console.log(
        `${s.name}: throughput at concurrency 8 = ${(eight[s.name].tps / one[s.name].tps).toFixed(2)}x concurrency 1`,
      );
  }
  console.log(`load average ${loadavg()[0].toFixed(2)}`);
} finally {
  for (const s of servers) await s.stop();
}
