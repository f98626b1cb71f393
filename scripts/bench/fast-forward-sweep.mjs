// Fast-forward against step-by-step decoding on the e2e sweep's tool templates, at temperature 0:
// each template's forced call (tool_choice "required") with fastForward off, on and "checked", and with
// speculative decoding ("lookup": prompt lookup; "self": the model as its own draft, the ceiling of a draft
// that agrees; both on top of "checked"). Prints,
// per case and mode, whether the call is valid, whether it is identical to the one without fast-forward,
// the tokens generated and forced and the forward passes; then the totals. Needs `npm run build:ts`.
//   node scripts/bench/fast-forward-sweep.mjs [--vocab llama-spm] [--size tiny] [--templates a,b] [--prompts 3]
//     [--modes false,true,checked,lookup,self] [--flash-attention auto|on|off]
// Identity with step-by-step decoding depends on a token getting the same logits alone or in a batch: on the CPU,
// batches of generated tokens take ggml's reference attention for that (native/reference_kernels.h).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { benchModel, lib, ROOT } from "./bench-model.mjs";

const { values } = parseArgs({
  options: {
    vocab: { type: "string", default: "llama-spm" },
    size: { type: "string", default: "tiny" },
    templates: { type: "string" },
    prompts: { type: "string", default: "3" },
    // The modes to compare, the first being the reference (false,false shows run-to-run differences).
    modes: { type: "string", default: "false,true,checked" },
    "flash-attention": { type: "string", default: "auto" },
  },
});
const { ChatTemplate } = await lib("template/index.js");
const { ChatSession, loadModel } = await lib("session/index.js");
const { Context } = await lib("runtime/context.js");

// Every generation's stats, read once the chat returns (the chat's usage has no forward passes).
const generations = [];
const generate = Context.prototype.generate;
Context.prototype.generate = function (options) {
  const generation = generate.call(this, options);
  generations.push(generation);
  return generation;
};

const dir = join(ROOT, "deps", "llama.cpp", "models", "templates");
const only = values.templates?.split(",");
const templates = readdirSync(dir)
  .filter((f) => f.endsWith(".jinja"))
  .map((f) => f.slice(0, -6))
  .filter((name) => !only || only.includes(name))
  .filter((name) => {
    try {
      return new ChatTemplate(readFileSync(join(dir, `${name}.jinja`), "utf8"), { compat: "auto" }).caps
        .supportsToolCalls;
    } catch {
      return false;
    }
  })
  .sort();

const parameters = {
  type: "object",
  properties: {
    unit: { type: "string", enum: ["celsius", "fahrenheit"] },
    days: { type: "integer", minimum: 1, maximum: 3 },
    hourly: { type: "boolean" },
    city: { type: "string", maxLength: 3 },
  },
  required: ["unit", "days", "hourly", "city"],
  additionalProperties: false,
};
const tool = { type: "function", function: { name: "get_forecast", description: "Weather forecast", parameters } };
const PROMPTS = ["Forecast for Oslo?", "Will it rain in Rome tomorrow?", "Weather in Lima, hourly please", "Hi"].slice(
  0,
  Number(values.prompts),
);

function valid(r) {
  const calls = r.message.tool_calls ?? [];
  if (r.finishReason !== "tool_calls" || calls.length !== 1) return false;
  try {
    const args = JSON.parse(calls[0].function.arguments);
    return calls[0].function.name === "get_forecast" && Object.keys(args).length === 4;
  } catch {
    return false;
  }
}

// The message as compared between modes: content and calls, without the calls' generated ids.
function messageKey(r) {
  const calls = (r.message.tool_calls ?? []).map((c) => c.function);
  return JSON.stringify([r.message.content, r.message.reasoning_content, calls]);
}

async function chat(model, template, content, mode) {
  generations.length = 0;
  const started = performance.now();
  const chatter = sessionOf(model, mode);
  const fastForward = typeof mode === "boolean" ? mode : "checked";
  const r = await chatter.chat({
    messages: [{ role: "user", content }],
    template,
    tools: [tool],
    toolChoice: "required",
    enableThinking: false,
    reasoningBudget: 4,
    parallelToolCalls: false,
    maxTokens: 400,
    sampling: { temperature: 0, fastForward },
  });
  const ms = performance.now() - started;
  const sum = (key) => generations.reduce((n, g) => n + g.stats[key], 0);
  const prompt = generations.reduce((n, g) => n + g.stats.promptTokensEvaluated, 0);
  return { r, ms, tokens: sum("tokensGenerated"), forced: sum("forcedTokens"), passes: sum("forwardPasses"), prompt };
}

// Every mode runs in a session of its own (its own context, kept across cases as the model's own is), with
// flash attention as asked. Idle contexts do not busy-wait (poll 0): they would take the cores from the one at work.
const FLASH_MODES = { auto: undefined, on: true, off: false };
if (!(values["flash-attention"] in FLASH_MODES)) throw new RangeError("--flash-attention: auto|on|off");
const FLASH = FLASH_MODES[values["flash-attention"]];
const sessions = new Map();
function sessionOf(model, mode) {
  if (!sessions.has(mode)) {
    const speculative =
      mode === "lookup" ? { lookup: true } : mode === "self" ? { draft: model, minProbability: 0 } : undefined;
    const context = { poll: 0, ...(speculative ? { speculative } : {}) };
    sessions.set(
      mode,
      new ChatSession(model, { context: FLASH === undefined ? context : { ...context, flashAttention: FLASH } }),
    );
  }
  return sessions.get(mode);
}

// Per mode: cases, valid calls, identical to step-by-step (off), tokens, forced tokens, passes, ms.
const MODES = values.modes
  .split(",")
  .map((m) => (m === "checked" || m === "lookup" || m === "self" ? m : m === "true"));
const totals = MODES.map(() => ({ valid: 0, same: 0, tokens: 0, forced: 0, passes: 0, ms: 0 }));
let cases = 0;
// One model, each template given to chat() (as the e2e sweep's models have it in their file).
const model = await loadModel(await benchModel(values.vocab, values.size));
for (const template of templates) {
  const source = readFileSync(join(dir, `${template}.jinja`), "utf8");
  for (const content of PROMPTS) {
    cases++;
    // A first run evaluates the whole prompt in one batch, later ones reuse its cache and decode less at
    // once: batch shapes change the logits' last bits, which flips near ties of random weights. Every
    // compared run starts from the same warm cache.
    for (const mode of new Set(MODES)) await chat(model, source, content, mode);
    const runs = [];
    for (const mode of MODES) runs.push(await chat(model, source, content, mode));
    const off = messageKey(runs[0].r);
    const cells = [];
    for (const [i, mode] of MODES.entries()) {
      const run = runs[i];
      const t = totals[i];
      const same = messageKey(run.r) === off;
      t.valid += valid(run.r) ? 1 : 0;
      t.same += same ? 1 : 0;
      t.tokens += run.tokens;
      t.forced += run.forced;
      t.passes += run.passes;
      t.ms += run.ms;
      cells.push(
        `${String(mode).padEnd(7)} ${valid(run.r) ? "valid" : "INVALID"} ${same ? "=" : "≠"} ` +
          `${run.tokens}t ${run.forced}f ${run.passes}p`,
      );
    }
    console.log(`${template.slice(0, 44).padEnd(44)} ${cells.join(" | ")}`);
  }
}
for (const session of sessions.values()) session.dispose();
model.dispose();
console.log(
  `\n${cases} cases (${templates.length} templates × ${PROMPTS.length} prompts), temperature 0, ` +
    `flash attention ${values["flash-attention"]}`,
);
console.log("mode     valid  identical  tokens  forced  passes  passes vs off  ms");
const base = totals[0];
for (const [i, mode] of MODES.entries()) {
  const t = totals[i];
  console.log(
    `${String(mode).padEnd(8)} ${String(t.valid).padStart(5)}  ` +
      `${`${((100 * t.same) / cases).toFixed(1)}%`.padStart(9)}  ` +
      `${String(t.tokens).padStart(6)}  ${String(t.forced).padStart(6)}  ${String(t.passes).padStart(6)}  ` +
      `${(base.passes / t.passes).toFixed(2).padStart(12)}x  ${t.ms.toFixed(0)}`,
  );
}
