// What a template writes only for shapes the plain probes do not show: a turn's end marker written only
// when another message follows, reasoning rendered only from content blocks (Apertus) or as a message of
// its own (Solar Open). The analysis must still find them, and the parser read what models write with them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate, generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";
import { streamInChunks } from "../helpers/chunked-stream.js";

function load(name: string) {
  const source = readFileSync(join(TEMPLATES_DIR, name), "utf8");
  const template = new ChatTemplate(source, { compat: "auto" });
  return { template, analysis: analyzeChatTemplate(source, { template }) };
}

describe("a turn's end marker written only before the next message", () => {
  it.each([
    ["Apertus-8B-Instruct.jinja", "<|assistant_end|>", ""],
    ["tencent-Hy3.jinja", "<｜hy_eos:opensource｜>", ""],
    // No bracket pair delimits it: the marker segmenter sees `[e~[\n]~b]` as one. M2's prompt opens reasoning.
    ["MiniMax-M2.jinja", "[e~[", "</think>\n\n"],
    ["MiniMax-M3.jinja", "[e~[", ""],
  ])("%s: %s", (name, end, lead) => {
    const { template, analysis } = load(name);
    expect(analysis.assistantEnd).toBe(end);
    const params = generateChatParams(analysis, template, { messages: [{ role: "user", content: "hi" }] });
    expect(parseChatOutput(params, `${lead}Hello.${end}`).content).toBe("Hello.");
  });

  it("ChatML still finds its own end marker after the content", () => {
    expect(load("Qwen-Qwen2.5-7B-Instruct.jinja").analysis.assistantEnd).toBe("<|im_end|>");
  });

  it("text between turns that is no marker is no turn end (RWKV World's blank lines before `User:`)", () => {
    expect(load("llama-cpp-rwkv-world.jinja").analysis.assistantEnd).toBe("");
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

describe("Solar Open: reasoning rendered as a message of its own, before the answer's", () => {
  const { template, analysis } = load("upstage-Solar-Open-100B.jinja");
  const weather = {
    type: "function" as const,
    function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
  };
  const request = (extra: Record<string, unknown> = {}) =>
    generateChatParams(analysis, template, { messages: [{ role: "user", content: "hi" }], tools: [weather], ...extra });

  it("the template writes the markers the analysis sets around such a message", () => {
    const messages = [
      { role: "user", content: "hi" },
      { role: "assistant", reasoning: "plan", content: "ok" },
    ];
    const rendered = template.renderRaw({ messages, add_generation_prompt: false });
    expect(analysis.reasoning).toMatchObject({
      mode: "TAG_BASED",
      start: "<|think|>",
      end: "<|end|><|begin|>assistant",
    });
    expect(rendered).toContain(`${analysis.reasoning.start}plan${analysis.reasoning.end}<|content|>ok`);
  });

  it("generation does not stop at the answer's <|begin|>", () => {
    expect(request().additionalStops).not.toContain("<|begin|>");
  });

  it.each([
    ["reasoning, then the answer", "<|think|>plan<|end|><|begin|>assistant<|content|>It is sunny.<|end|>", {}],
    ["the answer alone", "<|content|>It is sunny.<|end|>", {}],
    ["reasoning whose end leaves out the answer's header", "<|think|>plan<|end|><|content|>It is sunny.<|end|>", {}],
    [
      "an answer after reasoning the prompt closed (low effort)",
      "<|content|>It is sunny.<|end|>",
      { extraContext: { reasoning_effort: "low" } },
    ],
  ])("reads %s", (_label, output, extra) => {
    const message = parseChatOutput(request(extra), output);
    expect(message.content).toBe("It is sunny.");
    expect(message.reasoning_content ?? null).toBe(output.startsWith("<|think|>") ? "plan" : null);
  });

  it("reads reasoning, then a call with its id", () => {
    const output =
      "<|think|>plan<|end|><|begin|>assistant<|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>" +
      'get_weather<|tool_call:args|>{"city": "Seoul"}<|tool_call:end|><|calls|>';
    const whole = parseChatOutput(request(), output);
    expect(whole).toMatchObject({
      reasoning_content: "plan",
      tool_calls: [{ id: "a1b2c3d4e5", function: { name: "get_weather", arguments: '{"city":"Seoul"}' } }],
    });
    for (const seed of [1, 2, 3]) expect(streamInChunks(request(), output, seed, 4).parser.message()).toEqual(whole);
  });

  it("reads an answer, then a call in a message of its own under the role header written again", () => {
    const output =
      "Let me check.<|end|><|begin|>assistant<|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>" +
      'get_weather<|tool_call:args|>{"city": "Seoul"}<|tool_call:end|><|calls|>';
    const whole = parseChatOutput(request(), output);
    expect(whole).toMatchObject({ content: "Let me check.", tool_calls: [{ function: { name: "get_weather" } }] });
    for (const seed of [1, 2, 3]) expect(streamInChunks(request(), output, seed, 4).parser.message()).toEqual(whole);
  });

  it("renders an earlier turn's reasoning_content in history, as the template renders `reasoning`", () => {
    const call = { id: "a1b2c3d4e5", type: "function" as const, function: { name: "get_weather", arguments: "{}" } };
    const { prompt } = generateChatParams(analysis, template, {
      tools: [weather],
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: null, reasoning_content: "plan", tool_calls: [call] },
        { role: "tool", tool_call_id: call.id, content: "sunny" },
      ],
    });
    expect(prompt).toContain("<|begin|>assistant<|think|>plan<|end|><|begin|>assistant<|tool_calls|>");
  });

  it("reasoning opened after content drops the answer's content opener too", () => {
    const params = generateChatParams(analysis, template, { messages: [{ role: "user", content: "hi" }] });
    const message = parseChatOutput(params, "Text <|think|>more<|end|><|begin|>assistant<|content|> More");
    expect(message).toMatchObject({ content: "Text  More", reasoning_content: "more" });
  });
});
