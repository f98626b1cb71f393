/**
 * Capability detection on the llama.cpp test templates. Expectations are llama.cpp's own verdicts
 * (jinja::caps_get at the pinned commit) on the same files, except the rows marked "raises under
 * transformers": there the probe conversations raise in Python Jinja2's immutable sandbox
 * (list.append, an undefined `functions`, tojson of a generator), so nothing can be inferred
 * strictly; with `compat: "auto"` they render leniently and get llama.cpp's verdict (LENIENT).
 */
import { describe, expect, test } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ChatTemplate, type TemplateCaps } from "../../src/template/index.js";

const TEMPLATES = join(import.meta.dirname, "../../deps/llama.cpp/models/templates");

/** Flag order of the table strings below. */
const FLAGS: (keyof TemplateCaps)[] = [
  "supportsTools",
  "supportsToolCalls",
  "supportsParallelToolCalls",
  "supportsSystemRole",
  "supportsStringContent",
  "supportsTypedContent",
  "supportsObjectArguments",
  "supportsPreserveReasoning",
  "supportsReasoningEffort",
];

// prettier-ignore
const EXPECTED: [string, string][] = [
  ["Apertus-8B-Instruct", "111110100"],
  ["Apriel-1.6-15b-Thinker-fixed", "111111100"],
  ["Bielik-11B-v3.0-Instruct", "111110110"],
  ["ByteDance-Seed-OSS", "111110110"],
  ["Cohere2MoE", "111111111"],
  ["CohereForAI-c4ai-command-r-plus-tool_use", "111110100"],
  ["CohereForAI-c4ai-command-r7b-12-2024-tool_use", "111110100"],
  ["GLM-4.6", "111111100"],
  ["GLM-4.7-Flash", "111111110"],
  ["GigaChat3-10B-A1.8B", "110110100"],
  ["GigaChat3.1-10B-A1.8B", "110110100"],
  ["HuggingFaceTB-SmolLM3-3B", "000110000"],
  ["Kimi-K2-Instruct", "000111000"], // raises under transformers (list.append); llama.cpp: 111111100
  ["Kimi-K2-Thinking", "000111000"], // raises under transformers (list.append); llama.cpp: 111111100
  ["Kimi-K3", "111111110"],
  ["LFM2-8B-A1B", "100110000"],
  ["LFM2.5-8B-A1B", "111110100"],
  ["LFM2.5-Instruct", "100110000"],
  ["MiMo-VL", "111110100"],
  ["MiniMax-M1", "111111100"],
  ["MiniMax-M2", "111111100"],
  ["MiniMax-M3", "111111110"],
  ["Mistral-Small-3.2-24B-Instruct-2506", "111111100"],
  ["NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "111110110"],
  ["NVIDIA-Nemotron-Nano-v2", "111110100"],
  ["NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", "111110100"],
  ["NousResearch-Hermes-3-Llama-3.1-8B-tool_use", "111110100"],
  ["Qwen-QwQ-32B", "111110100"],
  ["Qwen-Qwen2.5-7B-Instruct", "111110100"],
  ["Qwen-Qwen3-0.6B", "111110100"],
  ["Qwen3-Coder", "111110100"],
  ["Qwen3.5-4B", "111111100"],
  ["Reka-Edge", "111111100"],
  ["Spark2.5", "111111110"],
  ["StepFun3.5-Flash", "111111100"],
  ["deepseek-ai-DeepSeek-R1-Distill-Llama-8B", "000110000"],
  ["deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "011110100"],
  ["deepseek-ai-DeepSeek-V3.1", "011110100"],
  ["deepseek-ai-DeepSeek-V3.2", "111110100"],
  ["deepseek-ai-DeepSeek-V4", "111110111"],
  ["deepseek-ai-DeepSeek-V4-Flash-0731", "111110111"],
  // Raises under transformers (`functions` undefined); llama.cpp: 011110100.
  ["fireworks-ai-llama-3-firefunction-v2", "000000000"],
  ["google-gemma-2-2b-it", "000010000"],
  ["google-gemma-4-31B-it", "111111100"],
  ["google-gemma-4-31B-it-interleaved", "111111100"],
  ["ibm-granite-granite-3.3-2B-Instruct", "100110000"],
  ["ibm-granite-granite-4.0", "111111100"],
  ["ibm-granite-granite-4.1", "111111100"],
  ["inclusionai-ling-3.0-flash", "111110110"],
  ["llama-cpp-deepseek-r1", "000110000"], // raises under transformers (tojson of a generator); llama.cpp: 111110100
  ["llama-cpp-rwkv-world", "000110000"],
  ["meetkai-functionary-medium-v3.1", "111110100"],
  ["meetkai-functionary-medium-v3.2", "111110000"],
  ["meta-llama-Llama-3.1-8B-Instruct", "110110100"],
  ["meta-llama-Llama-3.2-3B-Instruct", "110110100"],
  ["meta-llama-Llama-3.3-70B-Instruct", "110110100"],
  ["microsoft-Phi-3.5-mini-instruct", "000110000"],
  ["mistralai-Ministral-3-14B-Reasoning-2512", "111110100"],
  ["mistralai-Mistral-Nemo-Instruct-2407", "111110100"],
  ["moonshotai-Kimi-K2", "111111100"],
  ["muse-glimmer", "111111111"],
  ["openai-gpt-oss-120b", "110110101"],
  ["openbmb-MiniCPM5-1B", "111110100"],
  ["poolside-Laguna-S-2.1", "111110110"],
  ["poolside-Laguna-XS-2.1", "111110110"],
  ["poolside-Laguna-XS.2", "111110110"],
  ["tencent-Hy3", "111111101"],
  ["unsloth-Apriel-1.5", "111111100"],
  ["unsloth-mistral-Devstral-Small-2507", "111111100"],
  ["upstage-Solar-Open-100B", "111110101"],
];

/** llama.cpp's verdicts on the "raises under transformers" rows, reached with compat "auto". */
const LENIENT: Record<string, string> = {
  "Kimi-K2-Instruct": "111111100",
  "Kimi-K2-Thinking": "111111100",
  "fireworks-ai-llama-3-firefunction-v2": "011110100",
  "llama-cpp-deepseek-r1": "111110100",
};

function flags(caps: TemplateCaps): string {
  return FLAGS.map((f) => (caps[f] ? "1" : "0")).join("");
}

function load(name: string, options = {}): ChatTemplate {
  return new ChatTemplate(readFileSync(join(TEMPLATES, `${name}.jinja`), "utf8"), options);
}

describe.skipIf(!existsSync(TEMPLATES))("caps of known templates", () => {
  test.each(EXPECTED)("%s", (name, expected) => {
    expect(flags(load(name).caps)).toBe(expected);
  });

  test.each(EXPECTED)("%s with compat auto gets llama.cpp's verdict", (name, expected) => {
    expect(flags(load(name, { compat: "auto" }).caps)).toBe(LENIENT[name] ?? expected);
  });

  test("Kimi-K2 with allowMutation gets llama.cpp's verdict (its append/pop then work)", () => {
    expect(flags(load("Kimi-K2-Instruct", { allowMutation: true }).caps)).toBe("111111100");
  });

  test("requiresTypedContent only where string content fails and parts work", () => {
    for (const [name] of EXPECTED) {
      const caps = load(name).caps;
      expect(caps.requiresTypedContent).toBe(!caps.supportsStringContent && caps.supportsTypedContent);
    }
  });

  test("enable_thinking readers", () => {
    expect(load("Qwen-Qwen3-0.6B").caps.supportsEnableThinking).toBe(true);
    expect(load("meta-llama-Llama-3.1-8B-Instruct").caps.supportsEnableThinking).toBe(false);
  });
});

describe("caps of inline templates", () => {
  test("a template that only iterates content parts requires typed content", () => {
    const tpl = new ChatTemplate("{% for m in messages %}{% for p in m.content %}{{ p.text }}{% endfor %}{% endfor %}");
    expect(tpl.caps.supportsStringContent).toBe(false);
    expect(tpl.caps.supportsTypedContent).toBe(true);
    expect(tpl.caps.requiresTypedContent).toBe(true);
  });

  test("a template that ignores system messages has no system role", () => {
    const tpl = new ChatTemplate(
      "{% for m in messages if m.role != 'system' %}{{ m.role }}: {{ m.content }}\n{% endfor %}",
    );
    expect(tpl.caps.supportsSystemRole).toBe(false);
    expect(tpl.caps.supportsTools).toBe(false);
    expect(tpl.caps.supportsToolCalls).toBe(false);
  });

  test("string arguments vs object arguments", () => {
    const objectArgs = new ChatTemplate(
      "{% for m in messages %}{% for c in m.tool_calls or [] %}{% for k, v in c.function.arguments.items() " +
        "%}{{ k }}={{ v }}{% endfor %}{% endfor %}{% endfor %}{{ tools|tojson }}",
    );
    expect(objectArgs.caps.supportsObjectArguments).toBe(true);
    expect(objectArgs.caps.requiresObjectArguments).toBe(true);
    const stringArgs = new ChatTemplate(
      "{% for m in messages %}{% for c in m.tool_calls or [] %}{{ c.function.name }}{{ c.function.arguments " +
        "}}{% endfor %}{% endfor %}{{ tools|tojson }}",
    );
    expect(stringArgs.caps.supportsObjectArguments).toBe(false);
    expect(stringArgs.caps.supportsToolCalls).toBe(true);
    expect(stringArgs.caps.supportsParallelToolCalls).toBe(true);
  });
});
