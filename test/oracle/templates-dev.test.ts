// The templates-dev set (public chat templates from outside llama.cpp's test set, in the shared
// data): the analysis never throws, every template whose caps say it renders tool calls round
// trips every scenario (whole and streamed in chunks), and the grammar accepts what the parser
// reads back (tool_choice auto and required). Same checks as chat-roundtrip.test.ts / chat-grammar.test.ts, over
// templates the analysis was not developed against.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  analyzeChatTemplate,
  ChatStreamParser,
  accumulateDeltas,
  generateChatParams,
  parseChatOutput,
  type ChatDelta,
} from "../../src/chat/index.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import { ChatTemplate } from "../../src/template/index.js";
import {
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
import { grammarInput } from "../helpers/grammar-input.js";
import { UNREADABLE_VALUES } from "../helpers/pythonic-templates.js";
import { sharedData } from "../helpers/shared-data.js";

const DIR = sharedData("templates-dev");

/**
 * Templates whose rendered calls no parser can read back (a property of the template, see
 * pythonic-templates.ts): their tool-call round trips are excused, and checked to still fail.
 */
const UNREADABLE: ReadonlySet<string> = new Set(Object.keys(UNREADABLE_VALUES));

/**
 * Round trips that fail for another reason, and why. Checked to still fail, so an entry goes
 * stale once the round trip works.
 */
const KNOWN_FAILURES: Record<string, { scenarios: string[]; reason: string }> = {};

const excused = (t: { name: string }, s: Scenario) =>
  (UNREADABLE.has(t.name) && s.message.tool_calls !== undefined) ||
  (KNOWN_FAILURES[t.name]?.scenarios.includes(s.name) ?? false);

const templates: TemplateCase[] = DIR === null ? [] : toolTemplates(DIR);
const applicable = (t: TemplateCase) =>
  SCENARIOS.filter((s) => !s.parallel || t.template.caps.supportsParallelToolCalls).map((s) => scenarioFor(t, s));

function roundTrip(t: TemplateCase, s: Scenario): { output: string; problems: string[] } {
  const params = scenarioParams(t, s);
  const g = generatedPart(t, s, params);
  if ("error" in g) throw new Error(`the template cannot render the scenario: ${g.error}`);
  const got = parseChatOutput(params, g.output, { generateCallId: (i) => `generated${i}` });
  return { output: g.output, problems: messageDifferences(s.message, got, g.output) };
}

/** Problems of the grammar with the scenario's output under `toolChoice` (none: it accepts). */
function grammarProblems(t: TemplateCase, s: Scenario, toolChoice: "auto" | "required"): string[] {
  const params = scenarioParams(t, s, { toolChoice });
  const g = generatedPart(t, s, params);
  if ("error" in g) return [g.error];
  const problems = messageDifferences(s.message, parseChatOutput(params, g.output), g.output);
  if (params.grammar === null) return [...problems, "no grammar"];
  const text = grammarInput(params, g.output);
  if (text === null)
    return [...problems, `no trigger of ${JSON.stringify(params.grammarTriggers)} in ${JSON.stringify(g.output)}`];
  const r = matchGbnf(params.grammar, text);
  return r.ok ? problems : [...problems, `rejected after ${r.consumed} code points of ${JSON.stringify(text)}`];
}

describe.skipIf(DIR === null)("templates-dev: analysis", () => {
  const names =
    DIR === null
      ? []
      : readdirSync(DIR)
          .filter((f) => f.endsWith(".jinja"))
          .sort();
  it.each(names)("%s analyses without throwing", (name) => {
    const source = readFileSync(join(DIR!, name), "utf8");
    const a = analyzeChatTemplate(source, { template: new ChatTemplate(source, { compat: "auto" }), cache: false });
    expect(a.tools.format.mode).toBeTypeOf("string");
  });

  it("has tool-calling templates to round trip", () => {
    expect(templates.length).toBeGreaterThan(0);
  });
});

const roundTrips = templates.flatMap((t) => applicable(t).map((s) => ({ label: `${t.name} | ${s.name}`, t, s })));

describe.skipIf(DIR === null)("templates-dev: round trip", () => {
  it.each(roundTrips.filter(({ t, s }) => !excused(t, s)))("$label", ({ t, s }) => {
    const { output, problems } = roundTrip(t, s);
    expect(problems, `output: ${JSON.stringify(output)}`).toEqual([]);
  });
});

const grammarCases = templates.flatMap((t) =>
  (["auto", "required"] as const).flatMap((toolChoice) =>
    applicable(t)
      .filter((s) => s.message.tool_calls)
      .map((s) => ({ label: `${t.name} | ${toolChoice} | ${s.name}`, t, s, toolChoice })),
  ),
);

describe.skipIf(DIR === null)("templates-dev: the grammar accepts what the parser reads back", () => {
  it.each(grammarCases.filter(({ t, s }) => !excused(t, s)))("$label", ({ t, s, toolChoice }) => {
    expect(grammarProblems(t, s, toolChoice)).toEqual([]);
  });
});

describe.skipIf(DIR === null)("templates-dev: tool_choice required rejects plain content", () => {
  it.each(templates.filter((t) => !UNREADABLE.has(t.name)).map((t) => ({ label: t.name, t })))("$label", ({ t }) => {
    const params = generateChatParams(t.analysis, t.template, {
      messages: [USER],
      tools: TOOLS,
      toolChoice: "required",
    });
    const plain = "The weather in Paris is sunny.";
    const text = params.grammarLazy ? `${params.reasoningEnd ?? ""}${plain}` : plain;
    expect(matchGbnf(params.grammar!, grammarInput(params, text) ?? text).ok).toBe(false);
    expect(parseChatOutput(params, text).content).toBe(plain);
  });
});

describe.skipIf(DIR === null)("templates-dev: response_format json_schema constrains the answer", () => {
  const schema = {
    type: "object",
    properties: { city: { type: "string" }, temp: { type: "number" } },
    required: ["city", "temp"],
    additionalProperties: false,
  };
  const answer: Scenario = {
    name: "json answer",
    message: { role: "assistant", content: '{"city": "Paris", "temp": 21.5}' },
  };
  it.each(templates.map((t) => ({ label: t.name, t })))("$label", ({ t }) => {
    const params = generateChatParams(t.analysis, t.template, {
      messages: [USER],
      tools: TOOLS,
      responseFormat: { type: "json_schema", json_schema: { name: "weather", schema } },
    });
    const g = generatedPart(t, answer, params);
    if ("error" in g) throw new Error(g.error);
    expect(JSON.parse(String(parseChatOutput(params, g.output).content))).toEqual({ city: "Paris", temp: 21.5 });
    const text = grammarInput(params, g.output);
    expect(text, JSON.stringify(g.output)).not.toBeNull();
    expect(matchGbnf(params.grammar!, text!).ok, JSON.stringify(text)).toBe(true);
    expect(matchGbnf(params.grammar!, grammarInput(params, g.output.replace("21.5", '"warm"'))!).ok).toBe(false);
  });
});

/** The output fed in chunks of 1..maxChunk characters (deterministic sizes). */
function streamed(
  t: TemplateCase,
  s: Scenario,
  maxChunk: number,
): { whole: unknown; message: unknown; deltas: unknown } {
  const ids = { generateCallId: (i: number) => `call${i}` };
  const params = scenarioParams(t, s);
  const g = generatedPart(t, s, params);
  if ("error" in g) throw new Error(g.error);
  const parser = new ChatStreamParser(params, ids);
  const deltas: ChatDelta[] = [];
  for (let i = 0, k = 1; i < g.output.length; i += k, k = 1 + ((k * 7 + i) % maxChunk))
    deltas.push(...parser.feed(g.output.slice(i, i + k)));
  deltas.push(...parser.finish());
  return { whole: parseChatOutput(params, g.output, ids), message: parser.message(), deltas: accumulateDeltas(deltas) };
}

describe.skipIf(DIR === null)("templates-dev: chunked streaming gives the whole-output message", () => {
  it.each(roundTrips.filter(({ t, s }) => !excused(t, s)))("$label", ({ t, s }) => {
    for (const maxChunk of [1, 8]) {
      const r = streamed(t, s, maxChunk);
      expect(r.message, `chunks up to ${maxChunk}`).toEqual(r.whole);
      expect(r.deltas, `chunks up to ${maxChunk}`).toEqual(r.whole);
    }
  });
});

describe.skipIf(DIR === null)("templates-dev: excused failures still fail", () => {
  const stale = roundTrips.filter(({ t, s }) => excused(t, s));
  it.each(stale)("$label", ({ t, s }) => {
    let failed: boolean;
    try {
      failed = roundTrip(t, s).problems.length > 0;
    } catch {
      failed = true;
    }
    expect(failed, "passes now: remove it from UNREADABLE_VALUES / KNOWN_FAILURES").toBe(true);
  });

  it("every known failure names a template of the set and a reason", () => {
    for (const [name, f] of Object.entries(KNOWN_FAILURES)) {
      expect(templates.map((t) => t.name)).toContain(name);
      expect(f.reason.length).toBeGreaterThan(20);
    }
    for (const name of UNREADABLE) expect(templates.map((t) => t.name)).toContain(name);
  });
});
