// Channels switched by role name: each part of an assistant turn is a message of its own under
// a suffixed role (reasoning under `assistant/think`, calls under `assistant -> tool/call`), and
// the prompt ends with the bare role header, so the model's first words pick the channel.
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate, ChatStreamParser, generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import { ChatTemplate } from "../../src/template/index.js";
import {
  SCENARIOS,
  TOOLS,
  USER,
  generatedPart,
  messageDifferences,
  type TemplateCase,
} from "../helpers/chat-roundtrip.js";
import { grammarInput } from "../helpers/grammar-input.js";

const CHANNELS =
  `{%- for m in messages -%}
{%- if m.role == 'assistant' -%}
{%- if m.reasoning_content %}<|start|>assistant/think
{{ m.reasoning_content }}<|close|>
{% endif -%}
{%- if m.content %}<|start|>assistant
{{ m.content }}<|close|>{% if m.tool_calls %}
{% else %}<|turn_end|>
{% endif %}{% endif -%}
{%- if m.tool_calls %}<|start|>assistant -> tool/call
[{% for c in m.tool_calls %}{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments }}}{% if not ` +
  `loop.last %}, {% endif %}{% endfor %}]<|close|><|turn_end|>
{% endif -%}
{%- else -%}<|start|>{{ m.role }}
{{ m.content }}<|close|>
{% endif -%}
{%- endfor -%}
{%- if add_generation_prompt %}<|start|>assistant{% endif -%}`;

const template = new ChatTemplate(CHANNELS, { compat: "auto" });
const t: TemplateCase = {
  name: "channels",
  source: CHANNELS,
  template,
  analysis: analyzeChatTemplate(CHANNELS, { template, cache: false }),
};

describe("channels switched by role name", () => {
  it("reasoning opens with the channel suffix and ends where the role header is written again", () => {
    expect(t.analysis.reasoning.start.trim()).toBe("/think");
    expect(t.analysis.reasoning.end.trim()).toBe("<|close|>\n<|start|>assistant");
    expect(t.analysis.content.end).toBe("<|close|>");
  });

  it.each(SCENARIOS.filter((s) => !s.parallel || template.caps.supportsParallelToolCalls))(
    "round trips: $name",
    (s) => {
      const params = generateChatParams(t.analysis, t.template, {
        messages: [USER],
        tools: TOOLS,
        enableThinking: s.enableThinking,
      });
      const g = generatedPart(t, s, params);
      if ("error" in g) throw new Error(g.error);
      expect(messageDifferences(s.message, parseChatOutput(params, g.output), g.output)).toEqual([]);
      if (!s.message.tool_calls) return;
      for (const toolChoice of ["auto", "required"] as const) {
        const p = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS, toolChoice });
        expect(matchGbnf(p.grammar!, grammarInput(p, g.output)!).ok, `${toolChoice}: ${JSON.stringify(g.output)}`).toBe(
          true,
        );
      }
    },
  );

  it("content, then calls under the role header written again", () => {
    const params = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS });
    const output =
      '\nLet me check.<|close|>\n<|start|>assistant -> tool/call\n[{"name": "get_weather", "arguments": ' +
      '{"city": "Paris"}}]<|close|>';
    const got = parseChatOutput(params, output);
    expect(String(got.content).trim()).toBe("Let me check.");
    expect(got.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["get_weather", { city: "Paris" }],
    ]);
  });

  it("streamed character by character, the same message", () => {
    const params = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS });
    const output =
      "/think\nNeed it.<|close|>\n<|start|>assistant\nLet me check.<|close|>\n<|start|>assistant -> " +
      'tool/call\n[{"name": "get_weather", "arguments": {"city": "Paris"}}]<|close|>';
    const ids = { generateCallId: (i: number) => `c${i}` };
    const parser = new ChatStreamParser(params, ids);
    for (const ch of output) parser.feed(ch);
    parser.finish();
    const whole = parseChatOutput(params, output, ids);
    expect(parser.message()).toEqual(whole);
    expect(String(whole.reasoning_content).trim()).toBe("Need it.");
    expect(String(whole.content).trim()).toBe("Let me check.");
    expect(whole.tool_calls).toHaveLength(1);
  });

  it("a JSON answer under response_format closes its channel", () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    const params = generateChatParams(t.analysis, t.template, {
      messages: [USER],
      responseFormat: { type: "json_schema", json_schema: { name: "w", schema } },
    });
    const output = '\n{"city": "Paris"}<|close|>';
    expect(JSON.parse(String(parseChatOutput(params, output).content))).toEqual({ city: "Paris" });
    expect(matchGbnf(params.grammar!, grammarInput(params, output)!).ok).toBe(true);
  });

  it("reasoning, then calls", () => {
    const params = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS });
    const output =
      '/think\nNeed the weather.<|close|>\n<|start|>assistant -> tool/call\n[{"name": "get_weather", ' +
      '"arguments": {"city": "Paris"}}]<|close|>';
    const got = parseChatOutput(params, output);
    expect(String(got.reasoning_content).trim()).toBe("Need the weather.");
    expect(got.tool_calls).toHaveLength(1);
  });
});

describe("templates that do not re-write the role header keep their analysis", () => {
  it("a ChatML template with <think> tags", () => {
    const chatml = `{%- for m in messages -%}<|im_start|>{{ m.role }}
{% if m.reasoning_content %}<think>
{{ m.reasoning_content }}
</think>

{% endif %}{{ m.content }}<|im_end|>
{% endfor -%}{%- if add_generation_prompt %}<|im_start|>assistant
{% endif -%}`;
    const a = analyzeChatTemplate(chatml, { cache: false });
    expect(a.reasoning.start.trim()).toBe("<think>");
    expect(a.reasoning.end.trim()).toBe("</think>");
  });
});
