// Fast-forward against step-by-step decoding on the e2e sweep's tool templates, at temperature 0:
// each template's forced call (tool_choice "required") with fastForward on and off. Prints, per
// template, whether both calls are valid, whether the outputs are identical, the tokens forced and
// the forward passes of each; then the totals. Needs `npm run build:ts`.
//   node scripts/bench/fast-forward-sweep.mjs [--vocab llama-spm] [--size tiny] [--templates a,b] [--prompts 3]
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { lib, ROOT } from "./bench-model.mjs";

const { values } = parseArgs({
  options: {
    vocab: { type: "string", default: "llama-spm" },
    size: { type: "string", default: "tiny" },
    templates: { type: "string" },
    prompts: { type: "string", default: "3" },
  },
});
const { createTestModel } = await lib("runtime/gguf/test-model.js");
const { ChatTemplate } = await lib("template/index.js");
const { loadModel } = await lib("session/index.js");
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

async function chat(model, content, fastForward) {
  generations.length = 0;
  const started = performance.now();
  const r = await model.chat({
    messages: [{ role: "user", content }],
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

const total = {
  cases: 0,
  validOn: 0,
  validOff: 0,
  same: 0,
  tokensOn: 0,
  tokensOff: 0,
  forced: 0,
  passesOn: 0,
  passesOff: 0,
  msOn: 0,
  msOff: 0,
};
const differ = [];
for (const template of templates) {
  const path = await benchModelFor(template);
  const model = await loadModel(path);
  try {
    for (const content of PROMPTS) {
      const off = await chat(model, content, false);
      const on = await chat(model, content, true);
      const same = JSON.stringify(on.r.message) === JSON.stringify(off.r.message);
      total.cases++;
      total.validOn += valid(on.r) ? 1 : 0;
      total.validOff += valid(off.r) ? 1 : 0;
      total.same += same ? 1 : 0;
      total.tokensOn += on.tokens;
      total.tokensOff += off.tokens;
      total.forced += on.forced;
      total.passesOn += on.passes;
      total.passesOff += off.passes;
      total.msOn += on.ms;
      total.msOff += off.ms;
      if (!same) differ.push(`${template} "${content}"`);
      console.log(
        `${template.padEnd(58)} valid ${valid(on.r) ? "y" : "n"}/${valid(off.r) ? "y" : "n"} ` +
          `same ${same ? "y" : "n"}  ` +
          `tokens ${on.tokens}/${off.tokens} forced ${on.forced} passes ${on.passes}/${off.passes}`,
      );
    }
  } finally {
    model.dispose();
  }
}
console.log(JSON.stringify(total));
console.log(`identical: ${total.same}/${total.cases} (${((100 * total.same) / total.cases).toFixed(1)}%)`);
console.log(`valid with fast-forward: ${total.validOn}/${total.cases}, without: ${total.validOff}/${total.cases}`);
console.log(
  `forward passes: ${total.passesOn} against ${total.passesOff} (${(total.passesOff / total.passesOn).toFixed(2)}x)`,
);

// The test model of the e2e sweep for a template (its vocabulary and size from the options).
async function benchModelFor(template) {
  const cache = join(ROOT, ".cache", "bench-models", "fast-forward");
  const path = join(cache, `${values.vocab}-${values.size}-${template}.gguf`);
  if (existsSync(path)) return path;
  mkdirSync(cache, { recursive: true });
  await createTestModel({
    vocabPath: join(ROOT, "deps", "llama.cpp", "models", `ggml-vocab-${values.vocab}.gguf`),
    size: values.size,
    seed: 1,
    chatTemplate: readFileSync(join(dir, `${template}.jinja`), "utf8"),
    outPath: path,
  });
  return path;
}
