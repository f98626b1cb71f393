// The end of reasoning as models write it. A reasoning end marker the model writes twice in a row closes its block
// once: the repeat is not content (as SGLang's and rtp-llm's tests read it). Where the prompt closed reasoning itself
// (a request that does not think), a marker the model writes is its text (as vLLM's and Ollama's tests read it). An
// output that ends inside reasoning, even partway through what could have been its end marker, leaves all of it
// reasoning (as mlx-openai-server's tests read it); one that runs into a call opener and never closes ends there,
// tools or not (as TensorRT-LLM's tests read Nemotron 3). Whole and in every chunking.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ChatStreamParser,
  accumulateDeltas,
  analyzeChatTemplate,
  generateChatParams,
  parseChatOutput,
} from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

const CASES = [
  {
    name: "the model opens and closes reasoning, then writes its end again",
    template: "Qwen-Qwen3-0.6B.jinja",
    enableThinking: true,
    output: "<think>Plan it.</think></think>Paris.",
    want: { reasoning: "Plan it.", content: "Paris." },
  },
  {
    name: "the prompt opens reasoning, the model closes it twice",
    template: "deepseek-ai-DeepSeek-V4.jinja",
    enableThinking: true,
    output: "Plan it.</think></think>Paris.",
    want: { reasoning: "Plan it.", content: "Paris." },
  },
  {
    name: "an end marker after whitespace is text",
    template: "Qwen-Qwen3-0.6B.jinja",
    enableThinking: true,
    output: "<think>Plan it.</think>\nThe </think> tag ends it.",
    want: { reasoning: "Plan it.", content: "The </think> tag ends it." },
  },
  {
    name: "the prompt closed reasoning: the model's end marker is its text",
    template: "Qwen3.5-4B.jinja",
    enableThinking: false,
    output: "</think>Paris.",
    want: { reasoning: undefined, content: "</think>Paris." },
  },
  {
    name: "the output ends partway through the end marker: reasoning",
    template: "Qwen-Qwen3-0.6B.jinja",
    enableThinking: true,
    output: "<think>Plan it.</thi",
    want: { reasoning: "Plan it.</thi", content: "" },
  },
  {
    name: "reasoning never closed ends at a call opener, tools or not: the markup is content",
    template: "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja",
    enableThinking: true,
    output: "I need weather<tool_call><function=get_weather><parameter=city>NYC</parameter></function></tool_call>",
    want: {
      reasoning: "I need weather",
      content: "<tool_call><function=get_weather><parameter=city>NYC</parameter></function></tool_call>",
    },
  },
  {
    name: "a Gemma 4 thought that runs into a call and never closes ends there, tools or not",
    template: "google-gemma-4-31B-it.jinja",
    enableThinking: true,
    output: '<|channel>thought\nLet me look.<|tool_call>call:search{q:<|"|>a<|"|>}<tool_call|>',
    want: { reasoning: "Let me look.", content: '<|tool_call>call:search{q:<|"|>a<|"|>}<tool_call|>' },
  },
  {
    name: "a call opener the model closes reasoning after is reasoning",
    template: "Qwen3.5-4B.jinja",
    enableThinking: true,
    output: "Maybe <tool_call> here.</think>Paris.",
    want: { reasoning: "Maybe <tool_call> here.", content: "Paris." },
  },
  {
    name: "the prompt opens reasoning, the output ends on a `<`",
    template: "Qwen3.5-4B.jinja",
    enableThinking: true,
    output: "Plan it. a <",
    want: { reasoning: "Plan it. a <", content: "" },
  },
];

function paramsOf(template: string, enableThinking: boolean) {
  const source = readFileSync(join(TEMPLATES_DIR, template), "utf8");
  const t = new ChatTemplate(source, { compat: "auto" });
  return generateChatParams(analyzeChatTemplate(source, { template: t }), t, {
    messages: [{ role: "user", content: "Where?" }],
    enableThinking,
  });
}

describe("the end of reasoning as models write it", () => {
  it.each(CASES)("$name", ({ template, enableThinking, output, want }) => {
    const params = paramsOf(template, enableThinking);
    const whole = parseChatOutput(params, output);
    expect({ reasoning: whole.reasoning_content, content: whole.content }).toEqual(want);
    for (let size = 1; size <= 6; size++) {
      const s = new ChatStreamParser(params);
      const deltas = [];
      for (let i = 0; i < output.length; i += size) deltas.push(...s.feed(output.slice(i, i + size)));
      deltas.push(...s.finish());
      expect(s.message(), `chunks of ${size}`).toEqual(whole);
      expect(accumulateDeltas(deltas), `deltas, chunks of ${size}`).toEqual(whole);
    }
  });
});
