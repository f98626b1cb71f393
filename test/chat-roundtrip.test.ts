// Round trip on every template that renders tool calls: render an assistant turn through the
// template, take what the model would have generated (see generatedPart), parse it with the
// parser generated for that template, and expect the same message back (texts trimmed,
// arguments compared as parsed JSON, ids where the format carries them).
import { describe, expect, it } from "vitest";
import { generateChatParams, parseChatOutput } from "../src/chat/index.js";
import { KNOWN_FAILURES, SCENARIOS, TOOLS, USER, extraContext, generatedPart, messageDifferences, toolTemplates, type Scenario, type TemplateCase } from "./helpers/chat-roundtrip.js";

const templates = toolTemplates();

function roundTrip(t: TemplateCase, s: Scenario): { output: string; problems: string[] } {
  const params = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS, enableThinking: s.enableThinking, extraContext: extraContext(t, s) });
  const g = generatedPart(t, s, params);
  if ("error" in g) throw new Error(`the template cannot render the scenario: ${g.error}`);
  const got = parseChatOutput(params, g.output, { generateCallId: (i) => `generated${i}` });
  return { output: g.output, problems: messageDifferences(s.message, got, g.output) };
}

const cases = templates.flatMap((t) =>
  SCENARIOS.filter((s) => !s.parallel || t.template.caps.supportsParallelToolCalls).map((s) => ({ label: `${t.name} | ${s.name}`, t, s })),
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

describe("known failures: formats not parsed yet, or templates that lose part of the message", () => {
  const known = cases.filter((c) => KNOWN_FAILURES[c.t.name]?.scenarios.includes(c.s.name));
  it("are few", () => {
    expect(new Set(known.map((c) => c.t.name)).size).toBeLessThanOrEqual(1);
  });
  // Stays honest: once a known failure parses, this fails and the entry must go.
  it.each(known)("$label still fails", ({ t, s }) => {
    expect(roundTrip(t, s).problems).not.toEqual([]);
  });
});
