// The grammar spells a call's JSON as the template renders it: where every separator of the
// template's own call turn is spelled one way (tojson: `": "` and `", "`; or compact), the
// grammar allows that spelling only, so keys and separators are forced text; elsewhere it keeps
// free whitespace. The parser reads any spelling either way.
import { describe, expect, it } from "vitest";
import { generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { jsonStyleOf, templateJsonStyle } from "../../src/chat/template-json-style.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import { TOOLS, USER, toolTemplates } from "../helpers/chat-roundtrip.js";

const SPACED_ARGS = '{"text": "x", "list": [1, 2], "nested": {"flag": true}}';
const COMPACT_ARGS = '{"text":"x","list":[1,2],"nested":{"flag":true}}';

describe("jsonStyleOf", () => {
  it.each([
    {
      name: "tojson",
      turn: `<tool_call>\n{"name": "probe_tool", "arguments": ${SPACED_ARGS}}\n</tool_call>`,
      want: "spaced",
    },
    { name: "compact", turn: `>>>probe_tool\n${COMPACT_ARGS}`, want: "none" },
    { name: "compact envelope", turn: `{"name":"probe_tool","arguments":${SPACED_ARGS}}`, want: "flexible" },
    {
      name: "space inside a bracket",
      turn: `[ {"name": "probe_tool", "arguments": ${SPACED_ARGS}}]`,
      want: "flexible",
    },
    { name: "space before a colon", turn: `{"name" : "probe_tool", "arguments": ${SPACED_ARGS}}`, want: "flexible" },
    { name: "indented", turn: '{\n  "text": "x",\n  "list": [\n    1,\n    2\n  ]\n}', want: "flexible" },
    { name: "Python call", turn: "[probe_tool(text='x', list=[1, 2], nested={'flag': True})]", want: "flexible" },
    {
      name: "values in tags",
      turn: '<parameter=list>[1, 2]</parameter><parameter=nested>{"flag": true}',
      want: "flexible",
    },
    { name: "nothing rendered", turn: "", want: "flexible" },
  ])("$name: $want", ({ turn, want }) => expect(jsonStyleOf(turn)).toBe(want));
});

const TEMPLATES = {
  "Qwen-Qwen2.5-7B-Instruct.jinja": "spaced",
  "meta-llama-Llama-3.1-8B-Instruct.jinja": "spaced",
  // Writes the arguments string it is given: the spelling is the client's, not the template's.
  "meetkai-functionary-medium-v3.2.jinja": "flexible",
  "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja": "flexible",
  "Qwen3-Coder.jinja": "flexible",
} as const;
const templates = toolTemplates(undefined, (name) => name in TEMPLATES);

describe("templateJsonStyle", () => {
  it("finds every template of the table", () =>
    expect(templates.map((t) => t.name).sort()).toEqual(Object.keys(TEMPLATES).sort()));
  it.each(templates)("$name", (t) =>
    expect(templateJsonStyle(t.template)).toBe(TEMPLATES[t.name as keyof typeof TEMPLATES]),
  );
});

describe("a required call under Qwen 2.5's tojson spelling", () => {
  const t = templates.find((c) => c.name === "Qwen-Qwen2.5-7B-Instruct.jinja")!;
  const call = (args: string, sep: string) =>
    `<tool_call>\n{"name":${sep}"get_weather",${sep}"arguments":${sep}${args}}\n</tool_call>`;
  const spaced = call('{"city": "Paris", "days": 2}', " ");
  const compact = call('{"city":"Paris","days":2}', "");
  const params = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS, toolChoice: "required" });

  it("the grammar writes the template's spelling only", () => {
    expect(matchGbnf(params.grammar!, spaced).ok).toBe(true);
    expect(matchGbnf(params.grammar!, compact).ok).toBe(false);
    expect(matchGbnf(params.grammar!, spaced.replace('"city": ', '"city":  ')).ok).toBe(false);
  });

  it.each([
    ["spaced", spaced],
    ["compact", compact],
  ])("the parser reads the %s spelling", (_, output) => {
    const message = parseChatOutput(params, output);
    expect(message.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["get_weather", { city: "Paris", days: 2 }],
    ]);
  });

  it("a response_format answer keeps free whitespace", () => {
    const schema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };
    const answer = generateChatParams(t.analysis, t.template, {
      messages: [USER],
      responseFormat: { type: "json_schema", json_schema: { name: "answer", schema } },
    });
    for (const text of ['{"ok":true}', '{"ok": true}', '{\n  "ok": true\n}'])
      expect(matchGbnf(answer.grammar!, text).ok, text).toBe(true);
  });
});
