// A content prefix: a template that writes a fixed label before an answer's text but not before
// tool calls (Hunyuan's "助手：") has it learned as the content start and stripped by the parser.
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate, generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import { TOOLS, USER } from "../helpers/chat-roundtrip.js";

const prefixed = (label: string) =>
  `{%- for m in messages -%}
{%- if m.role == 'user' -%}<|user|>{{ m.content }}<|end|>
{%- elif m.role == 'assistant' -%}<|assistant|>
{%- if m.tool_calls -%}<tool_calls>[{% for c in m.tool_calls %}{"name": "{{ c.function.name }}", "arguments": {{ ` +
  `c.function.arguments }}}{% if not loop.last %}, {% endif %}{% endfor %}]</tool_calls>
{%- else -%}${label}{{ m.content }}{%- endif -%}<|end|>
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}`;

describe.each([
  { label: "助手：", name: "a CJK label" },
  { label: "Answer: ", name: "a label and a space" },
])("$name", ({ label }) => {
  const source = prefixed(label);
  const template = new ChatTemplate(source, { compat: "auto" });
  const analysis = analyzeChatTemplate(source, { template, cache: false });
  const params = generateChatParams(analysis, template, { messages: [USER], tools: TOOLS });

  it("is learned as the content start", () => {
    expect(analysis.content.start.trim()).toBe(label.trim());
    expect(analysis.content.end).toBe("");
  });

  it.each([
    { output: `${label}The answer is 4.`, content: "The answer is 4." },
    { output: "The answer is 4.", content: "The answer is 4." },
    // Only the first label is the template's: what follows belongs to the text.
    { output: `${label}Answer: keep this one`, content: "Answer: keep this one" },
  ])("content $output", ({ output, content }) => {
    const got = parseChatOutput(params, output);
    expect(String(got.content).trim()).toBe(content);
    expect(got.tool_calls ?? []).toEqual([]);
  });

  it("tool calls still parse", () => {
    const got = parseChatOutput(
      params,
      '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>',
    );
    expect(got.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["get_weather", { city: "Paris" }],
    ]);
  });
});

describe("no label is learned from a template without one", () => {
  it("plain content stays plain", () => {
    const source = prefixed("");
    const analysis = analyzeChatTemplate(source, { cache: false });
    expect(analysis.content.mode).toBe("PLAIN");
    expect(analysis.content.start).toBe("");
  });
});
