// What a template writes only for shapes the plain probes do not show: a turn's end marker written only
// when another message follows, and reasoning rendered only from content blocks (Apertus). The analysis
// must still find them, and the parser read what models write with them.
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

describe("a turn's end marker written only before the next message", () => {
  it.each([
    ["Apertus-8B-Instruct.jinja", "<|assistant_end|>"],
    ["tencent-Hy3.jinja", "<｜hy_eos:opensource｜>"],
  ])("%s: %s", (name, end) => {
    const { template, analysis } = load(name);
    expect(analysis.assistantEnd).toBe(end);
    const params = generateChatParams(analysis, template, { messages: [{ role: "user", content: "hi" }] });
    expect(parseChatOutput(params, `Hello.${end}`).content).toBe("Hello.");
  });

  it("ChatML still finds its own end marker after the content", () => {
    expect(load("Qwen-Qwen2.5-7B-Instruct.jinja").analysis.assistantEnd).toBe("<|im_end|>");
  });
});

describe("Apertus: reasoning rendered only from content blocks of type thoughts", () => {
  const { template, analysis } = load("Apertus-8B-Instruct.jinja");

  it("the template writes the markers the analysis sets around such a block", () => {
    const messages = [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: {
          blocks: [
            { type: "thoughts", text: "plan" },
            { type: "response", text: "ok" },
          ],
        },
      },
      { role: "user", content: "next" },
    ];
    const rendered = template.renderRaw({ messages, enable_thinking: true });
    expect(rendered).toContain(`${analysis.reasoning.start}plan${analysis.reasoning.end}`);
    expect(analysis.reasoning).toMatchObject({ mode: "TAG_BASED", start: "<|inner_prefix|>", end: "<|inner_suffix|>" });
  });

  it("reads what its models write: reasoning, then the answer", () => {
    const params = generateChatParams(analysis, template, {
      messages: [{ role: "user", content: "hi" }],
      enableThinking: true,
    });
    expect(parseChatOutput(params, "<|inner_prefix|>plan<|inner_suffix|>answer<|assistant_end|>")).toMatchObject({
      reasoning_content: "plan",
      content: "answer",
    });
  });
});
