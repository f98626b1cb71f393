/**
 * Every template that supports tool calls, on a tiny random-weight model: under tool_choice
 * "required" the output must be a call that parses and whose arguments validate against the
 * tool's schema (ajv); under "auto" the output must parse into a well-formed message. One call per
 * turn (parallelToolCalls false): the repetition of parallel calls is unbounded.
 *
 * Random weights give near-uniform logits, so any unbounded part of the grammar runs to
 * maxTokens: the tool schema is bounded (enum, boolean, small integer range, short string).
 * Vocabulary: llama-spm (32k), the cheapest mask for llama.cpp's grammar engine. One model per
 * template, shared by all seeds (the prompt is reused from the KV cache after the first seed).
 *
 * By default a representative set of templates runs with E2E_SEEDS (default 2) seeds; E2E_ALL=1
 * runs every tool template (about 60; with the llama.cpp grammar engine this takes far longer
 * than the suite's budget, so it is opt-in), E2E_TEMPLATES a comma list.
 *
 * Templates whose "required" grammar is bounded today must pass every seed. The others are
 * reported in the table: their required grammar still lets an optional reasoning block (or free
 * content) precede the call, so random weights run to maxTokens; for those the test only checks
 * that every COMPLETED call validates and that truncated output still parses.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { afterAll, describe, expect, it } from "vitest";
import { ChatTemplate } from "../src/template/index.js";
import { loadModel } from "../src/runtime/index.js";
import type { ChatTool } from "../src/chat/session/index.js";
import { ensureTestModel, LLAMA_MODELS_DIR } from "./helpers/test-models.js";

const SEEDS = Number(process.env.E2E_SEEDS ?? 2);
const MAX_TOKENS = Number(process.env.E2E_MAX_TOKENS ?? 160);
const REPRESENTATIVE = [
  "meta-llama-Llama-3.2-3B-Instruct",
  "Qwen-Qwen2.5-7B-Instruct",
  "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use",
  "Qwen-Qwen3-0.6B",
  "openai-gpt-oss-120b",
];
const ONLY = process.env.E2E_TEMPLATES?.split(",").filter(Boolean) ?? (process.env.E2E_ALL ? undefined : REPRESENTATIVE);
/**
 * Required grammar bounded (root: the calls alone, no free text or optional reasoning block
 * before them, as of the chat layer's 1d14814): every seed must give a valid call.
 */
const BOUNDED = new Set([
  "Apertus-8B-Instruct", "CohereForAI-c4ai-command-r-plus-tool_use", "GigaChat3-10B-A1.8B", "GigaChat3.1-10B-A1.8B",
  "Kimi-K2-Instruct", "MiMo-VL", "MiniMax-M1", "Mistral-Small-3.2-24B-Instruct-2506", "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use",
  "NousResearch-Hermes-3-Llama-3.1-8B-tool_use", "Qwen-QwQ-32B", "Qwen-Qwen2.5-7B-Instruct", "Qwen3-Coder",
  "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "deepseek-ai-DeepSeek-V3.1", "deepseek-ai-DeepSeek-V3.2", "fireworks-ai-llama-3-firefunction-v2",
  "ibm-granite-granite-4.0", "ibm-granite-granite-4.1", "meetkai-functionary-medium-v3.1", "meta-llama-Llama-3.1-8B-Instruct",
  "meta-llama-Llama-3.2-3B-Instruct", "meta-llama-Llama-3.3-70B-Instruct", "mistralai-Mistral-Nemo-Instruct-2407", "moonshotai-Kimi-K2",
  "tencent-Hy3", "unsloth-Apriel-1.5", "upstage-Solar-Open-100B",
]);

const templatesDir = join(LLAMA_MODELS_DIR, "templates");
const toolTemplates = readdirSync(templatesDir)
  .filter((f) => f.endsWith(".jinja"))
  .map((f) => f.slice(0, -".jinja".length))
  .filter((name) => {
    try {
      return new ChatTemplate(readFileSync(join(templatesDir, `${name}.jinja`), "utf8")).caps.supportsToolCalls;
    } catch {
      return false;
    }
  })
  .filter((name) => !ONLY || ONLY.includes(name))
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
const tool: ChatTool = { type: "function", function: { name: "get_forecast", description: "Weather forecast", parameters } };
const validate = new Ajv({ strict: false }).compile(parameters);

interface Outcome {
  template: string;
  ok: number;
  failures: string[];
}
const outcomes: Outcome[] = [];

afterAll(() => {
  const lines = outcomes.map((o) => `${o.ok === SEEDS ? "ok  " : BOUNDED.has(o.template) ? "FAIL" : "open"} ${o.template.padEnd(60)} ${o.ok}/${SEEDS}  ${o.failures.slice(0, 2).join(" | ")}`);
  console.log(`tool_choice required, ${toolTemplates.length} templates x ${SEEDS} seeds\n${lines.join("\n")}`);
});

describe.each(toolTemplates)("%s", (template) => {
  it("required: every seed makes a valid call; auto: the output parses", async () => {
    const model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template }));
    const outcome: Outcome = { template, ok: 0, failures: [] };
    outcomes.push(outcome);
    try {
      const messages = [{ role: "user" as const, content: "Forecast for Oslo?" }];
      for (let seed = 1; seed <= SEEDS; seed++) {
        // The budget closes forced-open reasoning (random weights never write the end marker).
        const r = await model.chat({ messages, tools: [tool], toolChoice: "required", parallelToolCalls: false, maxTokens: BOUNDED.has(template) ? MAX_TOKENS : 48, reasoningBudget: 4, sampling: { seed } });
        expect(["tool_calls", "length"]).toContain(r.finishReason);
        const call = r.message.tool_calls?.[0];
        let problem: string | undefined;
        if (r.finishReason === "length") problem = `length after ${r.usage.completionTokens} tokens: ${JSON.stringify(r.message.content ?? r.message.reasoning_content)?.slice(0, 60)}`;
        else if (!call) problem = `no call (${r.finishReason}, ${r.usage.completionTokens} tokens): ${JSON.stringify(r.message.content)?.slice(0, 80)}`;
        else if (call.function.name !== "get_forecast") problem = `wrong name ${call.function.name}`;
        else {
          let args: unknown;
          try {
            args = JSON.parse(call.function.arguments);
          } catch {
            problem = `arguments not JSON: ${call.function.arguments.slice(0, 80)}`;
          }
          if (!problem && !validate(args)) problem = `invalid arguments ${call.function.arguments.slice(0, 80)}: ${validate.errors?.[0]?.message}`;
        }
        if (problem) outcome.failures.push(`seed ${seed}: ${problem}`);
        else outcome.ok++;
      }
      // auto: whatever the model writes must come back as a well-formed message.
      const auto = await model.chat({ messages, tools: [tool], maxTokens: 24, sampling: { seed: 99 } });
      expect(auto.message.role).toBe("assistant");
      expect(auto.message.content === null || typeof auto.message.content === "string").toBe(true);
      for (const c of auto.message.tool_calls ?? []) expect(() => JSON.parse(c.function.arguments)).not.toThrow();
      if (BOUNDED.has(template)) expect(outcome.failures).toEqual([]);
      else expect(outcome.failures.filter((f) => !f.includes(": length after "))).toEqual([]);
    } finally {
      model.dispose();
    }
  });
});
