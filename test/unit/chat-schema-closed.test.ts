// Tool parameters and response_format schemas as users mean them: the chat grammar writes only
// the properties a schema declares, unless it allows more (additionalProperties true or a
// schema). The converter alone keeps JSON Schema's default (extra properties allowed).
import { describe, expect, it } from "vitest";
import { generateChatParams } from "../../src/chat/index.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import { jsonSchemaToGbnf } from "../../src/grammar/index.js";
import type { ToolDefinition } from "../../src/types.js";
import { type Scenario, USER, generatedPart, toolTemplates } from "../helpers/chat-roundtrip.js";
import { grammarInput } from "../helpers/grammar-input.js";

/** The README's tool. */
const README_SCHEMA = { type: "object", properties: { city: { type: "string", maxLength: 40 } }, required: ["city"] };
const toolWith = (parameters: Record<string, unknown>): ToolDefinition[] => [
  { type: "function", function: { name: "get_weather", description: "Current weather in a city", parameters } },
];
const callWith = (args: Record<string, unknown>): Scenario => ({
  name: "one call",
  enableThinking: false,
  message: {
    role: "assistant",
    content: "",
    tool_calls: [
      { id: "call12345", type: "function", function: { name: "get_weather", arguments: JSON.stringify(args) } },
    ],
  },
});

const templates = toolTemplates();

/**
 * Whether the grammar of a required call to a tool of `parameters` accepts the template's rendering of a call with
 * `args`.
 */
function accepts(
  t: (typeof templates)[number],
  parameters: Record<string, unknown>,
  args: Record<string, unknown>,
): boolean | string {
  const tools = toolWith(parameters);
  const params = generateChatParams(t.analysis, t.template, {
    messages: [USER],
    tools,
    toolChoice: "required",
    enableThinking: false,
  });
  const g = generatedPart(t, callWith(args), params, tools);
  if ("error" in g) return g.error;
  const text = grammarInput(params, g.output);
  if (text === null) return `no trigger in ${JSON.stringify(g.output)}`;
  return matchGbnf(params.grammar!, text).ok;
}

describe("tool arguments: only declared keys unless the schema allows more", () => {
  it.each(templates.map((t) => ({ label: t.name, t })))("$label", ({ t }) => {
    expect(accepts(t, README_SCHEMA, { city: "Paris" })).toBe(true);
    expect(accepts(t, README_SCHEMA, { city: "Paris", junk: 1 })).toBe(false);
  });
});

describe("additionalProperties true lets a JSON-arguments format write other keys", () => {
  const json = templates.filter(
    (t) => accepts(t, { ...README_SCHEMA, additionalProperties: true }, { city: "Paris", junk: 1 }) === true,
  );
  it("covers most templates (formats with one tagged value per argument name only declared ones)", () => {
    expect(json.length).toBeGreaterThan(templates.length / 2);
  });
  it.each(json.map((t) => ({ label: t.name, t })))(
    "$label: an additionalProperties schema constrains the other keys' values",
    ({ t }) => {
      const schema = { ...README_SCHEMA, additionalProperties: { type: "integer" } };
      expect(accepts(t, schema, { city: "Paris", junk: 1 })).toBe(true);
      expect(accepts(t, schema, { city: "Paris", junk: "x" })).toBe(false);
    },
  );
});

describe("response_format: only declared keys unless the schema allows more", () => {
  const t = templates.find((x) => x.name.startsWith("Qwen-Qwen3-0.6B"))!;
  const grammarFor = (schema: Record<string, unknown>) =>
    generateChatParams(t.analysis, t.template, {
      messages: [USER],
      responseFormat: { type: "json_schema", json_schema: { name: "w", schema } },
      enableThinking: false,
    }).grammar!;
  it.each([
    { name: "README schema", schema: README_SCHEMA, text: '{"city": "Paris"}', ok: true },
    {
      name: "README schema, an undeclared key",
      schema: README_SCHEMA,
      text: '{"city": "Paris", "junk": 1}',
      ok: false,
    },
    {
      name: "additionalProperties true",
      schema: { ...README_SCHEMA, additionalProperties: true },
      text: '{"city": "Paris", "junk": 1}',
      ok: true,
    },
    {
      name: "nested object, undeclared key",
      schema: { type: "object", properties: { at: { type: "object", properties: { lat: { type: "number" } } } } },
      text: '{"at": {"lat": 1, "x": 2}}',
      ok: false,
    },
    { name: "free-form object (no properties)", schema: { type: "object" }, text: '{"anything": 1}', ok: true },
    {
      name: "patternProperties",
      schema: { type: "object", properties: { a: {} }, patternProperties: { "^x-": { type: "integer" } } },
      text: '{"a": 1, "x-b": 2}',
      ok: true,
    },
  ])("$name", ({ schema, text, ok }) => {
    expect(matchGbnf(grammarFor(schema), text).ok).toBe(ok);
  });

  it("the converter alone keeps JSON Schema's default: an undeclared key is allowed", () => {
    expect(matchGbnf(jsonSchemaToGbnf(README_SCHEMA), '{"city": "Paris", "junk": 1}').ok).toBe(true);
    expect(
      matchGbnf(jsonSchemaToGbnf(README_SCHEMA, { additionalProperties: false }), '{"city": "Paris", "junk": 1}').ok,
    ).toBe(false);
  });
});
