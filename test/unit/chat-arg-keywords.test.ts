// Every schema keyword is enforced in every argument format: a call (tool_choice "required", or
// "auto" once its lazy grammar is triggered) may only write an argument's enum or const values,
// also where the schema gives no "type" and where the values mix strings with other JSON; raw
// strings keep their pattern, format and length; nested objects and arrays keep their members'
// keywords (in JSON, Python literals and Gemma 4's syntax alike). Each template renders a call
// with an allowed value and one with a value outside the schema; the grammar must accept the
// first and reject the second (tagged formats write strings unquoted and pick the value grammar
// per argument, which is where a keyword used to be lost).
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate, generateChatParams } from "../../src/chat/index.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { JsonSchema, ToolDefinition } from "../../src/types.js";
import { USER, generatedPart, toolTemplates, type TemplateCase } from "../helpers/chat-roundtrip.js";
import { grammarInput } from "../helpers/grammar-input.js";

interface KeywordCase {
  name: string;
  schema: JsonSchema;
  allowed: unknown[];
  outside: unknown;
  /** Definitions the schema refers to ($defs of the tool's parameters). */
  defs?: Record<string, JsonSchema>;
}

const KEYWORDS: KeywordCase[] = [
  { name: "string enum, no type", schema: { enum: ["fast", "slow"] }, allowed: ["fast", "slow"], outside: "medium" },
  { name: "number enum, no type", schema: { enum: [1, 2, 3] }, allowed: [1, 3], outside: 5 },
  { name: "string const, no type", schema: { const: "on" }, allowed: ["on"], outside: "off" },
  { name: "number const, no type", schema: { const: 7 }, allowed: [7], outside: 8 },
  { name: "mixed enum", schema: { enum: ["auto", 1] }, allowed: ["auto", 1], outside: 9 },
  {
    name: "anyOf of consts",
    schema: { anyOf: [{ const: "low" }, { const: 10 }] },
    allowed: ["low", 10],
    outside: "high",
  },
  {
    name: "typed string enum",
    schema: { type: "string", enum: ["fast", "slow"] },
    allowed: ["slow"],
    outside: "medium",
  },
  { name: "nullable enum", schema: { type: ["string", "null"], enum: ["a", null] }, allowed: ["a"], outside: "z" },
  { name: "string pattern", schema: { type: "string", pattern: "^[a-z]+$" }, allowed: ["abc"], outside: "ABC1" },
  { name: "string format", schema: { type: "string", format: "date" }, allowed: ["2024-01-02"], outside: "yesterday" },
  // One character short even where the template's newline before the value could count as text.
  { name: "string minLength", schema: { type: "string", minLength: 3 }, allowed: ["abcd"], outside: "a" },
  { name: "integer maximum", schema: { type: "integer", maximum: 10 }, allowed: [7], outside: 12 },
  {
    name: "nested object enum",
    schema: { type: "object", properties: { k: { enum: ["a", "b"] } }, required: ["k"] },
    allowed: [{ k: "a" }],
    outside: { k: "z" },
  },
  {
    // Gemma 4's template writes such a key bare, as it writes every key.
    name: "nested object enum under a key with spaces",
    schema: { type: "object", properties: { "first pick": { enum: ["a", "b"] } }, required: ["first pick"] },
    allowed: [{ "first pick": "b" }],
    outside: { "first pick": "z" },
  },
  {
    name: "array items enum",
    schema: { type: "array", items: { enum: ["a", "b"] } },
    allowed: [["a", "b"]],
    outside: ["z"],
  },
  {
    name: "enum through $ref",
    schema: { $ref: "#/$defs/Mode" },
    defs: { Mode: { enum: ["fast", "slow"] } },
    allowed: ["fast"],
    outside: "medium",
  },
];

/**
 * Templates whose prompt cannot render a schema, and why (the tool list is part of the prompt:
 * without it there is no request to constrain).
 */
const UNRENDERABLE: Record<string, { cases: string[]; reason: string }> = {
  "CohereForAI-c4ai-command-r-plus-tool_use.jinja": {
    cases: ["nullable enum"],
    reason: 'rendering the tool list raises "recursed too deeply" on a list of types',
  },
  "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja": {
    cases: ["nullable enum"],
    reason: 'rendering the tool list raises "recursed too deeply" on a list of types',
  },
  "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja": {
    cases: ["nullable enum"],
    reason: 'rendering the tool list raises "recursed too deeply" on a list of types',
  },
};

function toolFor(schema: JsonSchema, defs?: Record<string, JsonSchema>): ToolDefinition[] {
  return [
    {
      type: "function",
      function: {
        name: "pick",
        description: "Pick a mode",
        parameters: {
          type: "object",
          ...(defs ? { $defs: defs } : {}),
          properties: { mode: schema },
          required: ["mode"],
        },
      },
    },
  ];
}

/** The request for a call to `pick` under `k`'s schema: its tools and chat params (grammar included). */
function request(t: TemplateCase, toolChoice: "auto" | "required", k: KeywordCase) {
  const tools = toolFor(k.schema, k.defs);
  const params = generateChatParams(t.analysis, t.template, {
    messages: [USER],
    tools,
    toolChoice,
    enableThinking: false,
  });
  return { tools, params };
}

/** Whether the request's grammar accepts the template's rendering of a call with `mode: value`. */
function accepts(t: TemplateCase, { tools, params }: ReturnType<typeof request>, value: unknown): boolean {
  const call = {
    id: "call12345",
    type: "function" as const,
    function: { name: "pick", arguments: JSON.stringify({ mode: value }) },
  };
  const g = generatedPart(
    t,
    { name: "pick", enableThinking: false, message: { role: "assistant", content: "", tool_calls: [call] } },
    params,
    tools,
  );
  if ("error" in g) throw new Error(g.error);
  const text = grammarInput(params, g.output);
  if (text === null) throw new Error(`no trigger fires in ${JSON.stringify(g.output)}`);
  return matchGbnf(params.grammar!, text).ok;
}

/**
 * Formats no reference template uses (Python call expressions), from the test fixtures whose
 * turns the round-trip helper can cut the model's part from (a bare `[...]` list it cannot).
 */
const PYTHONIC_FIXTURES = fileURLToPath(new URL("../fixtures/pythonic/", import.meta.url));
function fixtureTemplates(): TemplateCase[] {
  return readdirSync(PYTHONIC_FIXTURES)
    .filter((f) => f.endsWith(".jinja"))
    .sort()
    .map((name) => {
      const source = readFileSync(PYTHONIC_FIXTURES + name, "utf8");
      const template = new ChatTemplate(source, { compat: "auto" });
      return {
        name: `fixtures/pythonic/${name}`,
        source,
        template,
        analysis: analyzeChatTemplate(source, { template }),
      };
    })
    .filter((t) => t.template.caps.supportsToolCalls && rendersCall(t));
}

function rendersCall(t: TemplateCase): boolean {
  const tools = toolFor({ type: "integer" });
  const params = generateChatParams(t.analysis, t.template, {
    messages: [USER],
    tools,
    toolChoice: "required",
    enableThinking: false,
  });
  const call = { id: "call12345", type: "function" as const, function: { name: "pick", arguments: '{"mode": 1}' } };
  const g = generatedPart(
    t,
    { name: "pick", enableThinking: false, message: { role: "assistant", content: "", tool_calls: [call] } },
    params,
    tools,
  );
  return "output" in g && g.output.includes("pick(");
}

const templates = [...toolTemplates(), ...fixtureTemplates()];
const cases = templates.flatMap((t) =>
  KEYWORDS.filter((k) => !UNRENDERABLE[t.name]?.cases.includes(k.name)).flatMap((k) =>
    (["required", "auto"] as const).map((toolChoice) => ({
      label: `${t.name} | ${t.analysis.tools.format.mode} | ${toolChoice} | ${k.name}`,
      t,
      k,
      toolChoice,
    })),
  ),
);

describe("a forced call's grammar enforces the schema's keywords in every argument format", () => {
  it.each(cases)("$label", ({ t, k, toolChoice }) => {
    // One request per case: the params depend on the schema and tool_choice only, not on the value.
    const req = request(t, toolChoice, k);
    for (const v of k.allowed) expect(accepts(t, req, v), `rejected ${JSON.stringify(v)}`).toBe(true);
    expect(accepts(t, req, k.outside), `accepted ${JSON.stringify(k.outside)}`).toBe(false);
  });
});

describe("the templates listed as unable to render a schema still are", () => {
  it.each(Object.entries(UNRENDERABLE).flatMap(([name, u]) => u.cases.map((c) => ({ name, c }))))(
    "$name | $c",
    ({ name, c }) => {
      const t = templates.find((x) => x.name === name)!;
      const k = KEYWORDS.find((x) => x.name === c)!;
      expect(() =>
        generateChatParams(t.analysis, t.template, {
          messages: [USER],
          tools: toolFor(k.schema, k.defs),
          toolChoice: "required",
        }),
      ).toThrow();
    },
  );
});
