/**
 * Every template that supports tool calls, on a tiny random-weight model: under tool_choice
 * "required" the output must be a call that parses and whose arguments validate against the
 * tool's schema (ajv), for every seed; under "auto" the output must parse into a well-formed
 * message.
 *
 * Random weights give near-uniform logits, so any unbounded part of the grammar would run to
 * maxTokens: the required grammar is the call alone (no content, no reasoning block when the
 * request does not think, bounded whitespace, bounded ids), the tool schema is bounded (enum,
 * boolean, small integer range, short string). Requests do not think (enableThinking false);
 * where the prompt forces reasoning open anyway, a small reasoning budget closes it. One call
 * per turn (bounded parallel calls are tested in e2e-chat).
 * Vocabulary: llama-spm (32k). One model per template, shared by all seeds.
 *
 * Every tool template runs in npm test (62 templates × 20 seeds: about 3 minutes on 2 cores).
 * E2E_TEMPLATES takes a comma list, E2E_SEEDS another seed count:
 *   E2E_TEMPLATES=Qwen-Qwen3-0.6B,MiniMax-M3 npx vitest run test/e2e-tool-sweep
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { afterAll, describe, expect, it } from "vitest";
import { ChatTemplate } from "../../src/template/index.js";
import { loadModel } from "../../src/session/index.js";
import type { ChatTool } from "../../src/session/index.js";
import { ensureTestModel, LLAMA_MODELS_DIR } from "../helpers/test-models.js";

const SEEDS = Number(process.env.E2E_SEEDS ?? 20);
/** Random weights spend many tokens on optional whitespace and on markers the vocabulary splits. */
const MAX_TOKENS = Number(process.env.E2E_MAX_TOKENS ?? 400);
const ONLY = process.env.E2E_TEMPLATES?.split(",").filter(Boolean);

const templatesDir = join(LLAMA_MODELS_DIR, "templates");
const toolTemplates = readdirSync(templatesDir)
  .filter((f) => f.endsWith(".jinja"))
  .map((f) => f.slice(0, -".jinja".length))
  .filter((name) => {
    try {
      // As the chat layer reads templates (compat "auto": Kimi K2, FireFunction v2 and others need it).
      return new ChatTemplate(readFileSync(join(templatesDir, `${name}.jinja`), "utf8"), { compat: "auto" }).caps
        .supportsToolCalls;
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
const tool: ChatTool = {
  type: "function",
  function: { name: "get_forecast", description: "Weather forecast", parameters },
};
const validate = new Ajv({ strict: false }).compile(parameters);

interface Outcome {
  template: string;
  ok: number;
  failures: string[];
}
const outcomes: Outcome[] = [];

afterAll(() => {
  const lines = outcomes.map(
    (o) =>
      `${o.ok === SEEDS ? "ok  " : "FAIL"} ${o.template.padEnd(60)} ${o.ok}/${SEEDS}  ` +
      `${o.failures.slice(0, 2).join(" | ")}`,
  );
  const passing = outcomes.filter((o) => o.ok === SEEDS).length;
  console.log(`tool_choice required, ${passing}/${outcomes.length} templates pass ${SEEDS} seeds\n${lines.join("\n")}`);
});

it.skipIf(ONLY !== undefined)("runs on all 62 templates that render tool calls", () => {
  expect(toolTemplates).toHaveLength(62);
});

describe.each(toolTemplates)("%s", (template) => {
  it("required: every seed makes a valid call; auto: the output parses", async () => {
    const model = await loadModel(await ensureTestModel({ vocab: "llama-spm", template }));
    const outcome: Outcome = { template, ok: 0, failures: [] };
    outcomes.push(outcome);
    try {
      const messages = [{ role: "user" as const, content: "Forecast for Oslo?" }];
      for (let seed = 1; seed <= SEEDS; seed++) {
        // Not thinking; the budget closes reasoning that the prompt forces open (random weights never end it).
        const r = await model.chat({
          messages,
          tools: [tool],
          toolChoice: "required",
          enableThinking: false,
          reasoningBudget: 4,
          parallelToolCalls: false,
          maxTokens: MAX_TOKENS,
          sampling: { seed },
        });
        const calls = r.message.tool_calls ?? [];
        let problem: string | undefined;
        if (r.finishReason !== "tool_calls")
          problem =
            `${r.finishReason} after ${r.usage.completionTokens} tokens: ` +
            `${JSON.stringify(r.message.content ?? r.message.reasoning_content)?.slice(0, 60)}`;
        else if (calls.length === 0) problem = `no call: ${JSON.stringify(r.message.content)?.slice(0, 80)}`;
        for (const call of calls) {
          if (problem) break;
          if (call.function.name !== "get_forecast") problem = `wrong name ${call.function.name}`;
          else {
            let args: unknown;
            try {
              args = JSON.parse(call.function.arguments);
            } catch {
              problem = `arguments not JSON: ${call.function.arguments.slice(0, 80)}`;
            }
            if (!problem && !validate(args))
              problem = `invalid arguments ${call.function.arguments.slice(0, 80)}: ${validate.errors?.[0]?.message}`;
          }
        }
        if (problem) outcome.failures.push(`seed ${seed}: ${problem}`);
        else outcome.ok++;
      }
      // auto: whatever the model writes must come back as a well-formed message.
      const auto = await model.chat({ messages, tools: [tool], maxTokens: 24, sampling: { seed: 99 } });
      expect(auto.message.role).toBe("assistant");
      expect(auto.message.content === null || typeof auto.message.content === "string").toBe(true);
      for (const c of auto.message.tool_calls ?? []) expect(() => JSON.parse(c.function.arguments)).not.toThrow();
      // Printed as each template finishes: the run shows its progress.
      console.log(
        `${outcome.ok === SEEDS ? "ok  " : "FAIL"} ${template} ${outcome.ok}/${SEEDS} ` +
          `${outcome.failures.slice(0, 2).join(" | ")}`,
      );
      expect(outcome.failures).toEqual([]);
    } finally {
      model.dispose();
    }
  }, 600_000);
});
