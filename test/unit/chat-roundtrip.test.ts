// Round trip on every template that renders tool calls: render an assistant turn through the
// template, take what the model would have generated (see generatedPart), parse it with the
// parser generated for that template, and expect the same message back (texts trimmed,
// arguments compared as parsed JSON, ids where the format carries them).
import { describe, expect, it } from "vitest";
import { parseChatOutput } from "../../src/chat/index.js";
import type { ToolDefinition } from "../../src/types.js";
import {
  KNOWN_FAILURES,
  NULL_NOT_EXPRESSIBLE,
  SCENARIOS,
  TOOLS,
  USER,
  scenarioParams,
  generatedPart,
  messageDifferences,
  scenarioFor,
  toolTemplates,
  type Scenario,
  type TemplateCase,
} from "../helpers/chat-roundtrip.js";

const templates = toolTemplates();

function roundTrip(t: TemplateCase, s: Scenario, tools = TOOLS): { output: string; problems: string[] } {
  const params = scenarioParams(t, s, { tools });
  const g = generatedPart(t, s, params, tools);
  if ("error" in g) throw new Error(`the template cannot render the scenario: ${g.error}`);
  const got = parseChatOutput(params, g.output, { generateCallId: (i) => `generated${i}` });
  return { output: g.output, problems: messageDifferences(s.message, got, g.output) };
}

// Templates that cannot express null get the scenario's arguments without null members.
const cases = templates.flatMap((t) =>
  SCENARIOS.filter((s) => !s.parallel || t.template.caps.supportsParallelToolCalls).map((s) => ({
    label: `${t.name} | ${s.name}`,
    t,
    s: scenarioFor(t, s),
  })),
);

describe("round trip through every tool-calling template", () => {
  it("covers every template whose caps say it renders tool calls", () => {
    // 62, as in llama.cpp's caps (test/fixtures/analysis-oracle.json).
    expect(templates.length).toBe(62);
  });

  it.each(cases.filter((c) => !KNOWN_FAILURES[c.t.name]?.scenarios.includes(c.s.name)))("$label", ({ t, s }) => {
    const { output, problems } = roundTrip(t, s);
    expect(problems, `output: ${JSON.stringify(output)}`).toEqual([]);
  });
});

/** A tool `lookup` with these parameters, and a scenario that calls it with these arguments. */
function lookupCase(
  name: string,
  properties: Record<string, object>,
  args: Record<string, unknown>,
  required: string[] = [],
): { tool: ToolDefinition; scenario: Scenario } {
  const parameters = { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
  const tool: ToolDefinition = {
    type: "function",
    function: { name: "lookup", description: "Look a record up", parameters },
  };
  const call = {
    id: "call11223",
    type: "function" as const,
    function: { name: "lookup", arguments: JSON.stringify(args) },
  };
  return { tool, scenario: { name, message: { role: "assistant", content: "", tool_calls: [call] } } };
}

// Argument names with characters a grammar rule name cannot hold: each still gets a rule of its own
// (replacing such characters made "城市" and "天気" one rule, and the request threw).
const CJK = lookupCase(
  "argument names no rule name can hold",
  { 城市: { type: "string" }, 天気: { type: "string" }, user_id: { type: "string" } },
  { 城市: "北京", 天気: "晴れ", user_id: "u1" },
  ["城市"],
);

describe("argument names that are no rule name", () => {
  it.each(templates.map((t) => ({ label: t.name, t })))("$label", ({ t }) => {
    const { output, problems } = roundTrip(t, CJK.scenario, [CJK.tool]);
    expect(problems, `output: ${JSON.stringify(output)}`).toEqual([]);
  });
});

// Argument names with a space, a dot, a dash or an apostrophe, beside a typed argument: every template writes
// them so that they read back (quotes, colons and angle brackets in names are left out: Gemma 4 writes keys bare
// and Kimi K3 escapes them in attributes, so those cannot be told apart from the markup).
const ODD_KEYS = ["a b", "a.b", "a-b", "a'b"];
const ODD = lookupCase(
  "argument names with spaces and punctuation",
  { ...Object.fromEntries(ODD_KEYS.map((k) => [k, { type: "string" }])), n: { type: "integer" } },
  { ...Object.fromEntries(ODD_KEYS.map((k, i) => [k, `v ${i}`])), n: 2 },
);

describe("argument names with spaces and punctuation", () => {
  // Python keyword arguments cannot be such names (`a b='x'` is no Python): pythonic templates are left out.
  const keyed = templates.filter((t) => t.analysis.tools.format.mode !== "PYTHONIC");
  it("leaves out only the pythonic templates", () => {
    expect(templates.length - keyed.length).toBe(1);
  });

  it.each(keyed.map((t) => ({ label: t.name, t })))("$label", ({ t }) => {
    const { output, problems } = roundTrip(t, ODD.scenario, [ODD.tool]);
    expect(problems, `output: ${JSON.stringify(output)}`).toEqual([]);
  });
});

describe("no known failures, and every null exemption is real", () => {
  it("no round trip is excused", () => {
    expect(KNOWN_FAILURES).toEqual({});
    expect(cases).toHaveLength(
      templates.filter((t) => t.template.caps.supportsParallelToolCalls).length * SCENARIOS.length +
        templates.filter((t) => !t.template.caps.supportsParallelToolCalls).length * (SCENARIOS.length - 1),
    );
  });

  // An exemption must not hide a parser bug: the template itself must leave the null out.
  it.each(Object.keys(NULL_NOT_EXPRESSIBLE))("%s renders no trace of a null member", (name) => {
    const t = templates.find((x) => x.name === name)!;
    const message = {
      role: "assistant" as const,
      content: "",
      tool_calls: [
        {
          id: "c1",
          type: "function" as const,
          function: { name: "record", arguments: JSON.stringify({ text: "a", meta: { kept: 1, gone: null } }) },
        },
      ],
    };
    const rendered = t.template.render({ messages: [USER, message], tools: TOOLS, addGenerationPrompt: false });
    expect(rendered).toContain("kept");
    expect(rendered).not.toContain("gone");
  });

  it("every other template keeps null arguments in the round trip", () => {
    const every = SCENARIOS.find((s) => s.name === "arguments of every type")!;
    expect(every.message.tool_calls![0]!.function.arguments).toContain("null");
    for (const t of templates.filter((x) => !(x.name in NULL_NOT_EXPRESSIBLE)))
      expect(scenarioFor(t, every)).toBe(every);
  });
});
