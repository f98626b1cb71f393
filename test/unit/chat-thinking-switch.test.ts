// enableThinking on templates that read no enable_thinking but another variable that switches thinking
// (reasoning_effort, Kimi K3's thinking): the template is asked which does what the request wants (thinking-switch.ts);
// templates that read enable_thinking, a request that sets such a variable itself, and templates whose prompt none
// changes, render as before.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate, generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

function load(name: string) {
  const source = readFileSync(join(TEMPLATES_DIR, name), "utf8");
  const template = new ChatTemplate(source, { compat: "auto" });
  return { template, analysis: analyzeChatTemplate(source, { template }) };
}

function params(name: string, request: Record<string, unknown>) {
  const { template, analysis } = load(name);
  return generateChatParams(analysis, template, { messages: [{ role: "user", content: "hi" }], ...request });
}

describe("enableThinking through another variable that switches thinking", () => {
  it.each([
    // Hy3 thinks only when asked for an effort; Solar Open and Command A Reasoning stop at a low one or none.
    ["tencent-Hy3.jinja", true, "<｜hy_Assistant:opensource｜><think:opensource>"],
    ["tencent-Hy3.jinja", false, "<think:opensource></think:opensource>"],
    ["upstage-Solar-Open-100B.jinja", false, "<|begin|>assistant<|think|><|end|><|begin|>assistant"],
    ["Cohere2MoE.jinja", false, "<|START_THINKING|><|END_THINKING|>"],
    // Kimi K3 opens its response block instead of the think block.
    ["Kimi-K3.jinja", false, '<|open|>message role="assistant"<|sep|><|open|>response<|sep|>'],
  ])("%s, enableThinking %s: the prompt ends %j", (name, enableThinking, end) => {
    const p = params(name, { enableThinking });
    expect(p.generationPrompt.endsWith(end)).toBe(true);
    expect(p.thinkingForcedOpen).toBe(enableThinking && end.endsWith("<think:opensource>"));
  });

  it("Hy3 asked to think reads its reasoning", () => {
    const p = params("tencent-Hy3.jinja", { enableThinking: true });
    expect(parseChatOutput(p, "plan</think:opensource>It is sunny.")).toMatchObject({
      reasoning_content: "plan",
      content: "It is sunny.",
    });
  });

  it("Solar Open asked to think keeps its default effort (it thinks)", () => {
    expect(params("upstage-Solar-Open-100B.jinja", { enableThinking: true }).generationPrompt).toBe(
      "<|begin|>assistant",
    );
  });

  it("Kimi K3 asked not to think reads its answer and calls", () => {
    const p = params("Kimi-K3.jinja", { enableThinking: false });
    expect(parseChatOutput(p, "It is sunny.<|close|>response<|sep|>")).toEqual({
      role: "assistant",
      content: "It is sunny.",
    });
  });

  it("an effort the request sets wins", () => {
    const p = params("tencent-Hy3.jinja", { enableThinking: true, extraContext: { reasoning_effort: "no_think" } });
    expect(p.generationPrompt.endsWith("<think:opensource></think:opensource>")).toBe(true);
  });

  it.each([
    ["openai-gpt-oss-120b.jinja", "Reasoning: medium"],
    ["Qwen-Qwen3-0.6B.jinja", "<|im_start|>user\nhi<|im_end|>"],
  ])("%s renders as before: no effort changes its prompt, or it reads enable_thinking", (name, kept) => {
    for (const enableThinking of [true, false]) {
      const { template } = load(name);
      const p = params(name, { enableThinking });
      const direct = template.render({
        messages: [{ role: "user", content: "hi" }],
        enableThinking,
        addGenerationPrompt: true,
      });
      expect(p.prompt).toBe(direct);
      expect(p.prompt).toContain(kept);
    }
  });
});
