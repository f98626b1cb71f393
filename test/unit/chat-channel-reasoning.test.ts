// Reasoning written otherwise than the template renders it (channel formats' messages, a block after the
// prompt closed reasoning): the thought still goes to reasoning and the answer to content, whole and streamed.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate, ChatStreamParser, generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

function paramsOf(name: string, enableThinking: boolean, extraContext?: Record<string, unknown>) {
  const source = readFileSync(join(TEMPLATES_DIR, name), "utf8");
  const template = new ChatTemplate(source, { compat: "auto" });
  return generateChatParams(analyzeChatTemplate(source, { template }), template, {
    messages: [{ role: "user", content: "hi" }],
    enableThinking,
    ...(extraContext !== undefined ? { extraContext } : {}),
  });
}

const ROWS: {
  name: string;
  template: string;
  output: string;
  reasoning: RegExp;
  content: string;
  thinking?: boolean;
  extraContext?: Record<string, unknown>;
}[] = [
  {
    name: "Gemma 4: the answer opens a channel of its own instead of closing the thought",
    template: "google-gemma-4-31B-it.jinja",
    output: "<|channel>thought\nThe user said hi.\n<|channel>response\nHello! How can I help?",
    reasoning: /^The user said hi\.$/,
    content: "Hello! How can I help?",
  },
  {
    name: "Gemma 4: channels without the thought name, one after another, then the answer",
    template: "google-gemma-4-31B-it.jinja",
    output: "<|channel>first idea<channel|><|channel>second idea<channel|>Final answer.",
    reasoning: /^first idea\s+second idea$/,
    content: "Final answer.",
  },
  {
    name: "Gemma 4: a channel the output never closes is reasoning; a stray opener before a thought is skipped",
    template: "google-gemma-4-31B-it.jinja",
    output: "<|channel><|channel>thought\nStill thinking",
    reasoning: /^Still thinking$/,
    content: "",
  },
  {
    name: "Gemma 4: an empty channel between two pieces of the answer is skipped, the pieces join as written",
    template: "google-gemma-4-31B-it.jinja",
    output: "before<|channel><channel|>after",
    reasoning: /^$/,
    content: "beforeafter",
  },
  {
    name: "Gemma 4: a thought cut off inside its end marker is thought, the marker's start with it",
    template: "google-gemma-4-31B-it.jinja",
    output: "<|channel>thought\nlots of reasoning<chann",
    reasoning: /^lots of reasoning<chann$/,
    content: "",
  },
  {
    name: "Qwen3 with thinking off: a reasoning block the model writes anyway after the prompt's closed one",
    template: "Qwen-Qwen3-0.6B.jinja",
    output: "<think>Quick check.</think>The answer.",
    reasoning: /^Quick check\.$/,
    content: "The answer.",
    thinking: false,
  },
  {
    name: "Muse Glimmer: only reasoning messages, the first header without its space, no answer yet",
    template: "muse-glimmer.jinja",
    output: "to=self<|message|>first<|eom|><|start|>assistant to=self<|message|>second<|eom|>",
    reasoning: /^first\s+second$/,
    content: "",
  },
  {
    name: "MiniMax M3 with thinking_mode enabled: the prompt opens <mm:think>, the output closes it",
    template: "MiniMax-M3.jinja",
    output: "plan</mm:think>answer",
    reasoning: /^plan$/,
    content: "answer",
    extraContext: { thinking_mode: "enabled" },
  },
  {
    name: "Ministral 3: a newline before the [THINK] block",
    template: "mistralai-Ministral-3-14B-Reasoning-2512.jinja",
    output: "\n[THINK]Plan it.[/THINK]\nThe rest.",
    reasoning: /^Plan it\.$/,
    content: "The rest.",
  },
  {
    name: "GPT-OSS: an analysis message left without <|end|> before the answer's header",
    template: "openai-gpt-oss-120b.jinja",
    output: "<|channel|>analysis<|message|>Step by step.<|start|>assistant<|channel|>final<|message|>42<|return|>",
    reasoning: /^Step by step\.$/,
    content: "42",
  },
  {
    name: "GPT-OSS: newlines between the tokens of two analysis messages and the answer",
    template: "openai-gpt-oss-120b.jinja",
    output:
      "<|channel|>analysis\n<|message|>First.\n<|end|>\n<|channel|>analysis\n<|message|>Second.\n<|end|>\n" +
      "<|channel|>final\n<|message|>Result.\n<|return|>",
    reasoning: /^First\.\s+Second\.$/,
    content: "Result.",
  },
  {
    name: "GPT-OSS: an analysis header without <|message|>, then an answer without a channel",
    template: "openai-gpt-oss-120b.jinja",
    output: "<|channel|>analysis I must refuse.<|end|><|start|>assistant<|message|>I can't help with that.<|end|>",
    reasoning: /^I must refuse\.$/,
    content: "I can't help with that.",
  },
];

describe("channel formats: reasoning and answer as models write them", () => {
  it.each(ROWS)("$name", ({ template, output, reasoning, content, thinking, extraContext }) => {
    const params = paramsOf(template, thinking ?? true, extraContext);
    const whole = parseChatOutput(params, output);
    expect(whole.content).toBe(content);
    expect(whole.reasoning_content ?? "").toMatch(reasoning);
    const s = new ChatStreamParser(params);
    for (let i = 0; i < output.length; i += 3) s.feed(output.slice(i, i + 3));
    s.finish();
    expect(s.message()).toEqual(whole);
  });
});
