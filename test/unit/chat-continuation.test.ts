// Requests llama.cpp can express that toolwright now can too: continuing the final assistant
// message (prefill) and reasoning left inline (reasoningFormat "none"); plus the deviations of
// real model output the parser reads (a call ending reasoning, skipped call openers, text after
// calls, the turn's end marker). Table-driven over llama.cpp's templates.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  analyzeChatTemplate,
  ChatStreamParser,
  generateChatParams,
  parseChatOutput,
  type ChatRequest,
} from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { AssistantMessage, ChatMessage, ToolDefinition } from "../../src/types.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

function load(name: string) {
  const source = readFileSync(join(TEMPLATES_DIR, `${name}.jinja`), "utf8");
  const template = new ChatTemplate(source, { compat: "auto" });
  return { template, analysis: analyzeChatTemplate(source, { template }) };
}

const user: ChatMessage = { role: "user", content: "Hey there!" };
const tool: ToolDefinition = {
  type: "function",
  function: {
    name: "get_time",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

function chunked(params: ReturnType<typeof generateChatParams>, output: string, size: number): AssistantMessage {
  const stream = new ChatStreamParser(params, { generateCallId: (i) => `id${i}` });
  for (let i = 0; i < output.length; i += size) stream.feed(output.slice(i, i + size));
  stream.finish();
  return stream.message();
}

/** Whole and in 1..5-character chunks: the same message. */
function parseAll(params: ReturnType<typeof generateChatParams>, output: string): AssistantMessage {
  const whole = parseChatOutput(params, output, { generateCallId: (i) => `id${i}` });
  for (const size of [1, 2, 3, 5]) expect(chunked(params, output, size)).toEqual(whole);
  return whole;
}

// One template per reasoning style: prompt-opened, model-opened, dedicated formats, none.
const CONTINUATIONS = [
  { template: "Qwen3.5-4B", promptEnd: "<think>\nI'm", close: "\n</think>\n\n" },
  { template: "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", promptEnd: "<think>I'm", close: "</think>" },
  { template: "Kimi-K2-Thinking", promptEnd: "<think>I'm", close: "</think>" },
  { template: "mistralai-Ministral-3-14B-Reasoning-2512", promptEnd: "[THINK]I'm", close: "[/THINK]" },
  { template: "google-gemma-4-31B-it", promptEnd: "<|channel>thought\nI'm", close: "<channel|>" },
  {
    template: "muse-glimmer",
    promptEnd: "<|start|>assistant to=self<|message|>I'm",
    close: "<|eom|><|start|>assistant to=user<|message|>",
  },
  {
    template: "Kimi-K3",
    promptEnd: "<|open|>think<|sep|>I'm",
    close: "<|close|>think<|sep|><|open|>response<|sep|>",
  },
  {
    template: "openai-gpt-oss-120b",
    promptEnd: "<|channel|>analysis<|message|>I'm",
    close: "<|end|><|start|>assistant<|channel|>final<|message|>",
  },
];

describe("continueFinalMessage", () => {
  it.each(CONTINUATIONS)("$template: reasoning goes on, then the answer", ({ template, promptEnd, close }) => {
    const { template: tpl, analysis } = load(template);
    const params = generateChatParams(analysis, tpl, {
      messages: [user, { role: "assistant", content: "", reasoning_content: "I'm" }],
      continueFinalMessage: true,
    });
    expect(params.continuesFinalMessage).toBe(true);
    expect(params.prompt.endsWith(promptEnd)).toBe(true);
    const msg = parseAll(params, ` thinking${close}Hello, world!`);
    expect(msg.reasoning_content).toBe("I'm thinking");
    expect(msg.content).toBe("Hello, world!");
  });

  it.each(CONTINUATIONS)("$template: content goes on after the prefilled text", ({ template }) => {
    const { template: tpl, analysis } = load(template);
    const params = generateChatParams(analysis, tpl, {
      messages: [user, { role: "assistant", content: "Hello, ", reasoning_content: "I'm thinking" }],
      continueFinalMessage: "content",
    });
    expect(params.prompt.endsWith("Hello, ")).toBe(true);
    const msg = parseAll(params, "world!");
    expect(msg.content).toBe("Hello, world!");
    expect(msg.reasoning_content).toBe("I'm thinking");
  });

  it.each([
    ["Kimi-K3", "I'm<|close|>think<|sep|><|open|>response<|sep|>Hello, ", "<|close|>response<|sep|>"],
    ["Cohere2MoE", "I'm<|END_THINKING|><|START_TEXT|>Hello, ", "<|END_TEXT|>"],
    [
      "CohereForAI-c4ai-command-r7b-12-2024-tool_use",
      "I'm<|END_THINKING|><|START_RESPONSE|>Hello, ",
      "<|END_RESPONSE|>",
    ],
    ["upstage-Solar-Open-100B", "I'm<|end|><|begin|>assistant<|content|>Hello, ", "<|end|>"],
    ["ibm-granite-granite-3.3-2B-Instruct", "I'm</think><response>Hello, ", "</response>"],
    ["muse-glimmer", "I'm<|eom|><|start|>assistant to=user<|message|>Hello, ", "<|eot|>"],
    ["openai-gpt-oss-120b", "I'm<|end|><|start|>assistant<|channel|>final<|message|>Hello, ", "<|return|>"],
  ])("%s: continued content goes on after the format's content opener", (name, promptEnd, close) => {
    const { template: tpl, analysis } = load(name);
    const messages: ChatMessage[] = [user, { role: "assistant", content: "Hello, ", reasoning_content: "I'm" }];
    const params = generateChatParams(analysis, tpl, { messages, continueFinalMessage: "content" });
    expect(params.prompt.endsWith(promptEnd)).toBe(true);
    expect(parseAll(params, `world!${close}`)).toMatchObject({ content: "Hello, world!", reasoning_content: "I'm" });
  });

  it("GPT-OSS: continued content without reasoning goes on in the answer's channel", () => {
    const { template: tpl, analysis } = load("openai-gpt-oss-120b");
    const messages: ChatMessage[] = [user, { role: "assistant", content: "Hello, " }];
    const params = generateChatParams(analysis, tpl, { messages, continueFinalMessage: "content" });
    expect(params.prompt.endsWith("<|start|>assistant<|channel|>final<|message|>Hello, ")).toBe(true);
    expect(parseAll(params, "world!<|return|>")).toEqual({ role: "assistant", content: "Hello, world!" });
  });

  it("addGenerationPrompt: false after an assistant message continues it (transformers' convention)", () => {
    const { template, analysis } = load("Qwen-Qwen2.5-7B-Instruct");
    const params = generateChatParams(analysis, template, {
      messages: [user, { role: "assistant", content: "The answer is" }],
      addGenerationPrompt: false,
    });
    expect(params.continuesFinalMessage).toBe(true);
    expect(params.prompt.endsWith("<|im_start|>assistant\nThe answer is")).toBe(true);
    expect(parseAll(params, " 42.").content).toBe("The answer is 42.");
  });

  it("addGenerationPrompt: false after a user message renders the conversation as it is", () => {
    const { template, analysis } = load("Qwen-Qwen2.5-7B-Instruct");
    const params = generateChatParams(analysis, template, { messages: [user], addGenerationPrompt: false });
    expect(params.continuesFinalMessage).toBe(false);
    expect(params.generationPrompt).toBe("");
    expect(params.prompt.endsWith("Hey there!<|im_end|>\n")).toBe(true);
  });

  const { template, analysis } = load("Qwen3.5-4B");
  const BAD: {
    label: string;
    request: Partial<ChatRequest>;
    error: RegExp;
    type: typeof TypeError | typeof RangeError;
  }[] = [
    {
      label: "final message is not an assistant's",
      request: { messages: [user], continueFinalMessage: true },
      error: /needs a final assistant message.*messages\[0\] is a "user" message/,
      type: RangeError,
    },
    {
      label: "final message has calls",
      request: {
        messages: [
          user,
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{}" } }],
          },
        ],
        continueFinalMessage: true,
      },
      error: /cannot continue request\.messages\[1\]: it has tool_calls/,
      type: RangeError,
    },
    {
      label: "with a generation prompt",
      request: {
        messages: [user, { role: "assistant", content: "x" }],
        continueFinalMessage: true,
        addGenerationPrompt: true,
      },
      error: /exclude each other/,
      type: RangeError,
    },
    {
      label: "not a boolean or part name",
      request: { messages: [user], continueFinalMessage: "yes" as never },
      error: /continueFinalMessage must be a boolean, "content" or "reasoning", got "yes"/,
      type: TypeError,
    },
    {
      label: "addGenerationPrompt not a boolean",
      request: { messages: [user], addGenerationPrompt: 1 as never },
      error: /addGenerationPrompt must be a boolean, got 1/,
      type: TypeError,
    },
    {
      label: "unknown reasoningFormat",
      request: { messages: [user], reasoningFormat: "deepseek" as never },
      error: /reasoningFormat must be "auto" or "none", got "deepseek"/,
      type: RangeError,
    },
  ];
  it.each(BAD)("rejects: $label", ({ request, error, type }) => {
    expect(() => generateChatParams(analysis, template, request as ChatRequest)).toThrow(type);
    expect(() => generateChatParams(analysis, template, request as ChatRequest)).toThrow(error);
  });
});

describe('reasoningFormat: "none"', () => {
  const INLINE = [
    {
      template: "Qwen3.5-4B",
      output: "I'm\nthinking\n</think>\n\nHello!",
      content: "<think>\nI'm\nthinking\n</think>\n\nHello!",
    },
    {
      template: "mistralai-Ministral-3-14B-Reasoning-2512",
      output: "[THINK]I'm thinking[/THINK]Hello!",
      content: "[THINK]I'm thinking[/THINK]Hello!",
    },
    {
      template: "google-gemma-4-31B-it",
      output: "<|channel>thought\nI'm thinking<channel|>Hello!",
      content: "<|channel>thought\nI'm thinking<channel|>Hello!",
    },
    // Content markers are still taken off; the reasoning block keeps its own.
    {
      template: "CohereForAI-c4ai-command-r7b-12-2024-tool_use",
      output: "<|START_THINKING|>I'm thinking<|END_THINKING|><|START_RESPONSE|>Hello!<|END_RESPONSE|>",
      content: "<|START_THINKING|>I'm thinking<|END_THINKING|>Hello!",
    },
  ];
  it.each(INLINE)("$template: reasoning stays in the content, markers included", ({ template, output, content }) => {
    const { template: tpl, analysis } = load(template);
    const params = generateChatParams(analysis, tpl, { messages: [user], reasoningFormat: "none" });
    const msg = parseAll(params, output);
    expect(msg.content).toBe(content);
    expect(msg.reasoning_content).toBeUndefined();
  });

  it("the same output separates reasoning by default", () => {
    const { template, analysis } = load("Qwen3.5-4B");
    const msg = parseAll(
      generateChatParams(analysis, template, { messages: [user] }),
      "I'm\nthinking\n</think>\n\nHello!",
    );
    expect(msg).toMatchObject({ content: "Hello!", reasoning_content: "I'm\nthinking" });
  });

  it("the grammar does not change", () => {
    const { template, analysis } = load("Qwen3.5-4B");
    const request = { messages: [user], tools: [tool], toolChoice: "required" as const };
    expect(generateChatParams(analysis, template, { ...request, reasoningFormat: "none" }).grammar).toBe(
      generateChatParams(analysis, template, request).grammar,
    );
  });
});

describe("model output the parser reads anyway", () => {
  const CASES = [
    {
      label: "a call ends reasoning the prompt opened (no end marker)",
      template: "Qwen3.5-4B",
      output:
        "Let me " +
        "check.\n<tool_call>\n<function=get_time>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
      want: { reasoning_content: "Let me check.", calls: [["get_time", { city: "Paris" }]] },
    },
    {
      label: "a call-like text in reasoning that the model closes later stays reasoning",
      template: "Qwen3.5-4B",
      output:
        "Maybe <tool_call> " +
        "here.\n</think>\n\n<tool_call>\n<function=get_time>\n<parameter=city>\nOslo\n</parameter>\n" +
        "</function>\n</tool_call>",
      want: { reasoning_content: "Maybe <tool_call> here.", calls: [["get_time", { city: "Oslo" }]] },
    },
    {
      label: "a call without its per-call opener",
      template: "Qwen3-Coder",
      output: "Let me call it.\n<function=get_time>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
      want: { content: "Let me call it.", calls: [["get_time", { city: "Paris" }]] },
    },
    {
      label: "calls without the section marker, the last one unclosed",
      template: "Kimi-K2-Thinking",
      output:
        '<|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{"city": ' +
        '"Paris"}<|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>{"city": ' +
        '"Oslo"}',
      want: {
        calls: [
          ["get_time", { city: "Paris" }],
          ["get_time", { city: "Oslo" }],
        ],
      },
    },
    {
      label: "text after the calls is content",
      template: "inclusionai-ling-3.0-flash",
      output:
        "</think>\n<tool_call>get_time\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>\nDone.",
      want: { content: "Done.", calls: [["get_time", { city: "Paris" }]] },
    },
    {
      label: "the turn's end marker ends the output (Ling 3's <|role_end|>)",
      template: "inclusionai-ling-3.0-flash",
      output: "</think>\nHere is the answer.<|role_end|><|role_start|>user",
      want: { content: "Here is the answer." },
    },
  ];
  it.each(CASES)("$template: $label", ({ template, output, want }) => {
    const { template: tpl, analysis } = load(template);
    const params = generateChatParams(analysis, tpl, { messages: [user], tools: [tool], parallelToolCalls: true });
    const msg = parseAll(params, output);
    expect((msg.content ?? "") as string).toBe(want.content ?? "");
    if (want.reasoning_content !== undefined) expect(msg.reasoning_content).toBe(want.reasoning_content);
    expect((msg.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual(
      want.calls ?? [],
    );
  });

  it("the turn's end marker is a stop string where no format marker contains it", () => {
    const ling = load("inclusionai-ling-3.0-flash");
    expect(ling.analysis.assistantEnd).toBe("<|role_end|>");
    expect(generateChatParams(ling.analysis, ling.template, { messages: [user] }).additionalStops).toContain(
      "<|role_end|>",
    );
    // Kimi K3 closes its blocks with the same marker it ends a turn with: no stop there.
    const k3 = load("Kimi-K3");
    expect(generateChatParams(k3.analysis, k3.template, { messages: [user] }).parser.stopAt).toEqual([]);
  });
});
