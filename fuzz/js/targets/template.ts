// Fuzz target: the Jinja template engine (src/template/: lexer, parser, evaluator). The input is a
// template's source; it is compiled and rendered with a conversation that has tools, a tool call and
// a tool result, in strict or llama.cpp-compatible mode. Expected: a rendered prompt or a
// TemplateError-family error; a TypeError, a stack overflow or a hang is a finding.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ChatTemplate, TemplateError, TemplateRuntimeError, TemplateSyntaxError } from "../../../src/template/index.js";
import type { ChatMessage, ToolDefinition } from "../../../src/types.js";
import { expectOnly } from "../expect.js";

const EXPECTED = [TemplateError, TemplateSyntaxError, TemplateRuntimeError];

const TOOLS: ToolDefinition[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Weather of a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];

const MESSAGES: ChatMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Weather in Paris?" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
  },
  { role: "tool", tool_call_id: "call_1", content: "sunny" },
  { role: "user", content: [{ type: "text", text: "Thanks" }] },
];

const fixedNow = () => new Date(Date.UTC(2025, 0, 2, 3, 4, 5));

export function fuzz(data: Buffer): void {
  const source = data.toString("utf8");
  const compat = data.length % 2 === 0 ? "auto" : "strict";
  try {
    const template = new ChatTemplate(source, { compat, now: fixedNow, bosToken: "<s>", eosToken: "</s>" });
    template.render({ messages: MESSAGES, tools: TOOLS, addGenerationPrompt: true, enableThinking: true });
    if (data.length % 3 === 0) void template.caps;
  } catch (e) {
    expectOnly(e, EXPECTED);
  }
}

/** llama.cpp's test templates and the shared templates-dev set. */
export function seeds(root: string, shared: string): [string, Uint8Array][] {
  const out: [string, Uint8Array][] = [];
  const dirs = [join(root, "deps/llama.cpp/models/templates"), join(shared, "templates-dev")];
  for (const dir of dirs) {
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith(".jinja"));
    } catch {}
    for (const n of names) out.push([n, readFileSync(join(dir, n))]);
  }
  return out;
}
