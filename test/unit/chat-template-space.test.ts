// The grammar's whitespace bound covers what the template renders itself: templates that
// indent their markers (whitespace from their own source layout, rendered verbatim) get
// grammars that accept those runs; others keep the tight default.
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate, generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { CHAT_SPACE } from "../../src/chat/generate.js";
import { templateSpace, whitespaceRuns } from "../../src/chat/template-space.js";
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

describe("whitespaceRuns", () => {
  it.each([
    { text: "a b", want: { inline: 1, lines: 0, indent: 0 } },
    { text: "<a>            <b>", want: { inline: 12, lines: 0, indent: 0 } },
    { text: "<a>    \n\n        <b>", want: { inline: 4, lines: 2, indent: 8 } },
    { text: "<a>\r\n\t<b> <c>", want: { inline: 1, lines: 1, indent: 1 } },
    { text: "", want: { inline: 0, lines: 0, indent: 0 } },
  ])("$text", ({ text, want }) => expect(whitespaceRuns(text)).toEqual(want));
});

// Markers indented by the template's own layout (trim_blocks eats the line breaks): 16 spaces
// before each call, 12 after the last.
const INDENTED = `{%- for m in messages -%}
{%- if m.role == 'user' -%}<|user|>{{ m.content }}<|end|>
{%- elif m.role == 'assistant' -%}<|assistant|>{{ m.content or '' }}
{%- if m.tool_calls %}{% for c in m.tool_calls %}
                <call>{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments }}}</call>{% endfor %}
            {% endif %}<|end|>
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}`;

describe("a template that indents its markers", () => {
  const template = new ChatTemplate(INDENTED, { compat: "auto" });
  const t: TemplateCase = {
    name: "indented",
    source: INDENTED,
    template,
    analysis: analyzeChatTemplate(INDENTED, { template, cache: false }),
  };

  it("widens the bound to the runs it renders", () => {
    const space = templateSpace(template, CHAT_SPACE);
    expect(space.inline).toBe(16);
    expect(space.lines).toBe(CHAT_SPACE.lines);
  });

  const cases = (["auto", "required"] as const).flatMap((toolChoice) =>
    SCENARIOS.filter((s) => s.message.tool_calls && (!s.parallel || template.caps.supportsParallelToolCalls)).map(
      (s) => ({ label: `${toolChoice} | ${s.name}`, s, toolChoice }),
    ),
  );
  it.each(cases)("the grammar accepts the rendered calls: $label", ({ s, toolChoice }) => {
    const params = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS, toolChoice });
    const g = generatedPart(t, s, params);
    if ("error" in g) throw new Error(g.error);
    expect(g.output).toContain(" ".repeat(16));
    expect(messageDifferences(s.message, parseChatOutput(params, g.output), g.output)).toEqual([]);
    const r = matchGbnf(params.grammar!, grammarInput(params, g.output)!);
    expect(r.ok, `rejected after ${r.consumed} of ${JSON.stringify(g.output)}`).toBe(true);
  });

  it("still bounds whitespace beyond what the template renders", () => {
    const params = generateChatParams(t.analysis, t.template, {
      messages: [USER],
      tools: [TOOLS[0]!],
      toolChoice: "required",
    });
    const call = '<call>{"name": "get_weather", "arguments": {"city": "Paris"}}</call>';
    expect(matchGbnf(params.grammar!, `${" ".repeat(16)}${call}`).ok).toBe(true);
    expect(matchGbnf(params.grammar!, `${" ".repeat(40)}${call}`).ok).toBe(false);
  });
});

describe("templates that render no wide runs keep the default bound", () => {
  it("a template without tool calls", () => {
    expect(templateSpace(new ChatTemplate("{% for m in messages %}{{ m.content }}{% endfor %}"), CHAT_SPACE)).toEqual(
      CHAT_SPACE,
    );
  });
});
