// Workarounds fire only on evidence that their model is there and never drop what the diffing
// found: a row keyed on a prologue that other families copy must not rewrite their format.
import { describe, expect, it } from "vitest";
import type { TemplateAnalysis } from "../../src/analysis/index.js";
import { analyzeChatTemplate, generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { workaroundProblem } from "../../src/analysis/workaround-evidence.js";
import { ChatTemplate } from "../../src/template/index.js";
import {
  SCENARIOS,
  TOOLS,
  USER,
  generatedPart,
  messageDifferences,
  type TemplateCase,
} from "../helpers/chat-roundtrip.js";

// The Functionary 3.1 row's feature (its tool-list prologue), on a template that writes
// DeepSeek-R1 calls, as functionary's DeepSeek-R1 templates do.
const PROLOGUE = `{%- if not tools is defined -%}{%- set tools = none -%}{%- endif -%}
{%- set has_code_interpreter = tools | selectattr("type", "equalto", "code_interpreter") | list | length > 0 -%}
{%- if tools %}<｜System｜>You have access to the following functions:
{% for t in tools %}{{ t | tojson }}
{% endfor %}{%- endif %}`;
const DEEPSEEK_CALLS = `${PROLOGUE}
{%- for message in messages -%}
{%- if message.role == 'user' -%}<｜User｜>{{ message.content }}
{%- elif message.role == 'assistant' -%}<｜Assistant｜>{% if message.content %}{{ message.content }}{% endif %}
{%- if message.tool_calls -%}<｜tool▁calls▁begin｜>
{%- for tc in message.tool_calls -%}<｜tool▁call▁begin｜>function<｜tool▁sep｜>{{ tc.function.name }}
\`\`\`json
{{ tc.function.arguments }}
\`\`\`<｜tool▁call▁end｜>{%- endfor -%}<｜tool▁calls▁end｜>{%- endif -%}<｜end▁of▁sentence｜>
{%- elif message.role == 'tool' -%}<｜tool▁output▁begin｜>{{ message.content }}<｜tool▁output▁end｜>
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}<｜Assistant｜>{%- endif -%}`;

function templateCase(source: string): TemplateCase {
  const template = new ChatTemplate(source, { compat: "auto" });
  return { name: "synthetic", source, template, analysis: analyzeChatTemplate(source, { template, cache: false }) };
}

describe("a shared prologue does not carry a family's workaround", () => {
  const t = templateCase(DEEPSEEK_CALLS);

  it("keeps the markers the diffing found", () => {
    expect(t.analysis.tools.format.sectionStart).toBe("<｜tool▁calls▁begin｜>");
    expect(t.analysis.tools.format.perCallStart).not.toContain("<function=");
  });

  it.each(SCENARIOS.filter((s) => s.message.tool_calls))("round trips: $name", (s) => {
    const params = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS });
    const g = generatedPart(t, s, params);
    if ("error" in g) throw new Error(g.error);
    expect(messageDifferences(s.message, parseChatOutput(params, g.output), g.output)).toEqual([]);
  });
});

describe("workaroundProblem", () => {
  const base = analyzeChatTemplate(DEEPSEEK_CALLS, { cache: false });
  const edit = (f: (a: TemplateAnalysis) => void): TemplateAnalysis => {
    const a = structuredClone(base) as TemplateAnalysis;
    f(a);
    return a;
  };
  it.each([
    { label: "nothing changed", change: () => {}, source: DEEPSEEK_CALLS, problem: null },
    {
      label: "a marker the source never writes",
      change: (a: TemplateAnalysis) => (a.tools.format.perCallStart = "<function="),
      source: DEEPSEEK_CALLS,
      problem: /never writes "<function="/,
    },
    {
      label: "a diffed marker dropped",
      change: (a: TemplateAnalysis) => (a.tools.format.sectionStart = ""),
      source: DEEPSEEK_CALLS,
      problem: /drops "<｜tool▁calls▁begin｜>"/,
    },
    {
      label: "an opener whose closing tag the source strips",
      change: (a: TemplateAnalysis) => ((a.reasoning.start = "<think>"), (a.reasoning.end = "</think>")),
      source: `${DEEPSEEK_CALLS}{{ x.split('</think>') }}`,
      problem: null,
    },
    {
      label: "a marker split across two fields",
      change: (a: TemplateAnalysis) => (
        (a.tools.format.perCallStart = "<｜tool▁call▁begin｜>function"),
        (a.tools.function.namePrefix = "<｜tool▁sep｜>")
      ),
      source: DEEPSEEK_CALLS,
      problem: null,
    },
  ])("$label", ({ change, source, problem }) => {
    const found = workaroundProblem(source, base, edit(change));
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });

  it("a row's declared overrides may go", () => {
    const dropped = edit((a) => (a.tools.format.sectionStart = ""));
    expect(workaroundProblem(DEEPSEEK_CALLS, base, dropped, ["<｜tool▁calls▁begin｜>"])).toBeNull();
  });
});
