// A call syntax the system prompt teaches but the history does not render (Phi-4-mini teaches
// `functools[{"name": …}]`, its history shows bare JSON objects): both parse, and the grammar
// accepts both.
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate, generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import { ChatTemplate } from "../../src/template/index.js";
import { TOOLS, USER } from "../helpers/chat-roundtrip.js";
import { grammarInput } from "../helpers/grammar-input.js";

const teaching = (instructions: string) =>
  `{%- for m in messages -%}
{%- if m.role == 'user' -%}<|sys|>${instructions}
{% for t in tools %}{{ t | tojson }}
{% endfor %}<|end|><|usr|>{{ m.content }}<|end|>
{%- elif m.role == 'assistant' -%}<|bot|>{% if m.content %}{{ m.content }}{% elif m.tool_calls %}{% for c in ` +
  `m.tool_calls %}{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments }}}{% if not ` +
  `loop.last %},{% endif %}{% endfor %}{% endif %}<|end|>
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}<|bot|>{%- endif -%}`;

const TEACHES = teaching(
  'To call functions, write calltool[{"name": [function name], "arguments": [arguments as JSON]}, ...]',
);

function setup(source: string) {
  const template = new ChatTemplate(source, { compat: "auto" });
  return { template, analysis: analyzeChatTemplate(source, { template, cache: false }) };
}

describe("a taught call list besides the rendered bare calls", () => {
  const { template, analysis } = setup(TEACHES);
  const bare = '{"name": "get_weather", "arguments": {"city": "Paris"}}';

  it("the opener is learned", () => {
    expect(analysis.tools.format.mode).toBe("JSON_NATIVE");
    expect(analysis.tools.format.taughtListStart).toBe("calltool");
  });

  it.each([
    { label: "the taught list", output: `calltool[${bare}]`, calls: 1 },
    {
      label: "the taught list with two calls",
      output: `calltool[${bare}, ${bare.replace("Paris", "Tokyo")}]`,
      calls: 2,
    },
    { label: "the bare call the history renders", output: bare, calls: 1 },
  ])("$label parses, and the grammar accepts it", ({ output, calls }) => {
    for (const toolChoice of ["auto", "required"] as const) {
      const params = generateChatParams(analysis, template, { messages: [USER], tools: TOOLS, toolChoice });
      const got = parseChatOutput(params, output);
      expect(got.tool_calls?.map((c) => c.function.name)).toEqual(Array(calls).fill("get_weather"));
      expect(String(got.content ?? "").trim()).toBe("");
      const text = grammarInput(params, output);
      expect(text, toolChoice).not.toBeNull();
      expect(matchGbnf(params.grammar!, text!).ok, `${toolChoice}: ${output}`).toBe(true);
    }
  });

  it("plain text stays content", () => {
    const params = generateChatParams(analysis, template, { messages: [USER], tools: TOOLS });
    expect(parseChatOutput(params, "calltool is what I would use.").content).toBe("calltool is what I would use.");
  });
});

describe("what is not a taught opener", () => {
  it.each([
    {
      label: "a tool list written against a tag",
      instructions:
        'Tools: <tools>[{% for t in tools %}{"name": "{{ t.function.name }}", "arguments": {}}{% endfor %}]</tools>',
    },
    {
      label: "instructions without an example of the arguments",
      instructions: 'Reply with calltool[{"name": [function name]}]',
    },
    { label: "no instructions", instructions: "You may call tools." },
  ])("$label", ({ instructions }) => {
    expect(setup(teaching(instructions)).analysis.tools.format.taughtListStart).toBe("");
  });
});
