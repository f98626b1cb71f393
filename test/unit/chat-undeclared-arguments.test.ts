// Tagged arguments a tool's schema does not name: JSON where the value reads whole as JSON, unless the schema types
// every other argument as a string (`additionalProperties: {type: "string"}`): then the text, `42` and `null` too.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate, generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

const tool = (name: string, extra: object) => ({
  type: "function" as const,
  function: { name, parameters: { type: "object", properties: {}, ...extra } },
});
const TOOLS = [tool("save_config", { additionalProperties: { type: "string" } }), tool("save_any", {})];

/** Each format's call of `name` with arguments `code` = 42 and `empty` = null, as its template writes them. */
const ROWS = [
  {
    template: "GLM-4.7-Flash.jinja",
    call: (name: string) =>
      `<tool_call>${name}<arg_key>code</arg_key><arg_value>42</arg_value>` +
      "<arg_key>empty</arg_key><arg_value>null</arg_value></tool_call>",
  },
  {
    template: "Qwen3-Coder.jinja",
    call: (name: string) =>
      `<tool_call>\n<function=${name}>\n<parameter=code>\n42\n</parameter>\n<parameter=empty>\nnull\n</parameter>\n` +
      "</function>\n</tool_call>",
  },
  {
    template: "MiniMax-M2.jinja",
    call: (name: string) =>
      `</think>\n\n<minimax:tool_call>\n<invoke name="${name}">\n<parameter name="code">42</parameter>\n` +
      '<parameter name="empty">null</parameter>\n</invoke>\n</minimax:tool_call>',
  },
];

function argumentsOf(template: string, output: string): unknown {
  const source = readFileSync(join(TEMPLATES_DIR, template), "utf8");
  const t = new ChatTemplate(source, { compat: "auto" });
  const params = generateChatParams(analyzeChatTemplate(source, { template: t }), t, {
    messages: [{ role: "user", content: "Save it" }],
    tools: TOOLS,
    enableThinking: false,
  });
  const calls = parseChatOutput(params, output).tool_calls ?? [];
  expect(calls).toHaveLength(1);
  return JSON.parse(calls[0]!.function.arguments) as unknown;
}

describe("arguments a tool's schema does not name", () => {
  it.each(ROWS)("$template: text where additionalProperties says string", ({ template, call }) => {
    expect(argumentsOf(template, call("save_config"))).toEqual({ code: "42", empty: "null" });
  });

  it.each(ROWS)("$template: JSON where the schema says nothing of them", ({ template, call }) => {
    expect(argumentsOf(template, call("save_any"))).toEqual({ code: 42, empty: null });
  });
});
