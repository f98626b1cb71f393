// A marker learned with whitespace inside or around it matches the same marker written with
// other whitespace (doubled, dropped, a space for a newline), in the parser and in the grammar;
// the rest of the marker must still match exactly.
import { describe, expect, it } from "vitest";
import { generateChatParams, parseChatOutput } from "../src/chat/index.js";
import { matchGbnf } from "../src/grammar/gbnf-match.js";
import { TOOLS, USER, toolTemplates } from "./helpers/chat-roundtrip.js";
import { grammarInput } from "./helpers/grammar-input.js";

const templates = new Map(toolTemplates().map((t) => [t.name, t]));

describe.each([
  {
    template: "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
    // Learned: "get_weather\n```json\n{...}\n```"
    outputs: [
      "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n\n```json\n\n{\"city\": \"Paris\"}\n\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
      "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather ```json {\"city\": \"Paris\"} ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    ],
    bad: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```jso n\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
  },
  {
    template: "GLM-4.6.jinja",
    // Learned: "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>"
    outputs: [
      "<tool_call>get_weather\n\n<arg_key>city</arg_key>\n\n<arg_value>Paris</arg_value>\n\n</tool_call>",
      "<tool_call>get_weather <arg_key>city</arg_key> <arg_value>Paris</arg_value> </tool_call>",
    ],
    bad: "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_valu>\n</tool_call>",
  },
  {
    template: "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja",
    // Learned: "<|START_ACTION|>[\n    {...}\n]<|END_ACTION|>"
    outputs: ['<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}]<|END_ACTION|>'],
    bad: '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}]<|END_ACTIO|>',
  },
])("$template", ({ template, outputs, bad }) => {
  const t = templates.get(template)!;
  it.each(outputs.map((output) => ({ output, label: JSON.stringify(output).slice(0, 80) })))("reads and accepts $label", ({ output }) => {
    for (const toolChoice of ["auto", "required"] as const) {
      const params = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS, toolChoice, enableThinking: false });
      const got = parseChatOutput(params, output);
      expect(got.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([["get_weather", { city: "Paris" }]]);
      const text = grammarInput(params, output);
      expect(text, toolChoice).not.toBeNull();
      expect(matchGbnf(params.grammar!, text!).ok, toolChoice).toBe(true);
    }
  });

  it("still rejects a marker spelled otherwise", () => {
    const params = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS, toolChoice: "required", enableThinking: false });
    expect(matchGbnf(params.grammar!, grammarInput(params, bad) ?? bad).ok).toBe(false);
  });
});
