// A marker learned with whitespace inside or around it matches the same marker written with
// other whitespace (doubled, dropped, a space for a newline) in the parser; the rest of the marker
// must still match exactly. The grammar writes a marker's inner whitespace as learned: the stop
// words that find a marker in free text (lazy triggers, the content scan) are the learned marker,
// so a constrained model must not write a variant of it.
import { describe, expect, it } from "vitest";
import { generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import { TOOLS, USER, toolTemplates } from "../helpers/chat-roundtrip.js";
import { grammarInput } from "../helpers/grammar-input.js";

const CASES = [
  {
    template: "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
    // Learned: "get_weather\n```json\n{...}\n```"
    canonical:
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": ' +
      '"Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    outputs: [
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n\n```json\n\n{"city": ' +
        '"Paris"}\n\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather ```json {"city": "Paris"} ' +
        "```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    ],
    otherSpace:
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather ```json {"city": "Paris"} ' +
      "```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    bad:
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```jso n\n{"city": ' +
      '"Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  },
  {
    template: "GLM-4.6.jinja",
    // Learned: "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>"
    canonical: "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
    outputs: [
      "<tool_call>get_weather\n\n<arg_key>city</arg_key>\n\n<arg_value>Paris</arg_value>\n\n</tool_call>",
      "<tool_call>get_weather <arg_key>city</arg_key> <arg_value>Paris</arg_value> </tool_call>",
      // Whitespace inside the name's tags, newlines included.
      "<tool_call>get_weather\n<arg_key>\n city\n</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
      // The whitespace written as escape sequences (a backslash and a letter).
      "<tool_call>get_weather\\n<arg_key>city</arg_key>\\n<arg_value>Paris</arg_value>\\r\\n\\t</tool_call>",
    ],
    otherSpace: "<tool_call>get_weather\\n<arg_key>city</arg_key>\\n<arg_value>Paris</arg_value>\\n</tool_call>",
    bad: "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_valu>\n</tool_call>",
  },
  {
    template: "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja",
    // Learned: "<|START_ACTION|>[\n    {...}\n]<|END_ACTION|>"
    canonical:
      '<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": ' +
      '"Paris"}}\n]<|END_ACTION|>',
    outputs: [
      '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": ' +
        '"Paris"}}]<|END_ACTION|>',
    ],
    bad:
      '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": ' +
      '"Paris"}}]<|END_ACTIO|>',
  },
];

const templates = new Map(
  toolTemplates(undefined, (name) => CASES.some((c) => c.template === name)).map((t) => [t.name, t]),
);

describe.each(CASES)("$template", ({ template, canonical, outputs, bad, otherSpace }) => {
  const t = templates.get(template)!;
  const paramsFor = (toolChoice: "auto" | "required") =>
    generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS, toolChoice, enableThinking: false });
  const accepts = (params: ReturnType<typeof paramsFor>, output: string) => {
    const text = grammarInput(params, output);
    return text !== null && matchGbnf(params.grammar!, text).ok;
  };

  it.each([canonical, ...outputs].map((output) => ({ output, label: JSON.stringify(output).slice(0, 80) })))(
    "reads $label",
    ({ output }) => {
      for (const toolChoice of ["auto", "required"] as const) {
        const got = parseChatOutput(paramsFor(toolChoice), output);
        expect(got.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
          ["get_weather", { city: "Paris" }],
        ]);
      }
    },
  );

  it("the grammar accepts the marker as learned", () => {
    for (const toolChoice of ["auto", "required"] as const)
      expect(accepts(paramsFor(toolChoice), canonical), toolChoice).toBe(true);
  });

  it("the grammar rejects a marker spelled otherwise, or with other whitespace than learned", () => {
    const params = paramsFor("required");
    expect(accepts(params, bad)).toBe(false);
    if (otherSpace !== undefined) expect(accepts(params, otherSpace)).toBe(false);
  });
});
