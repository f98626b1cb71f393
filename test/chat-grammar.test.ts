// The grammar agrees with the parser: both come from one PEG definition, so the GBNF grammar
// (run by the char-level matcher) must accept every output the parser maps correctly: with
// tool_choice auto (lazy grammar) the text from the trigger on, with tool_choice required the
// whole output (from the reasoning end when the grammar is deferred past forced-open
// reasoning) when the call comes first, and never content before the call. And a required call
// must not be satisfiable by plain text.
import { describe, expect, it } from "vitest";
import { generateChatParams, parseChatOutput, type ChatGrammarTrigger, type ChatParams } from "../src/chat/index.js";
import { matchGbnf } from "../src/grammar/gbnf-match.js";
import { KNOWN_FAILURES, SCENARIOS, type Scenario, TOOLS, USER, extraContext, generatedPart, messageDifferences, scenarioFor, toolTemplates } from "./helpers/chat-roundtrip.js";

/** The output from the first trigger on (what a lazy grammar sees), or null when none fires. */
function fromTrigger(output: string, triggers: ChatGrammarTrigger[]): string | null {
  let best = -1;
  for (const t of triggers) {
    let at = -1;
    if (t.type === "pattern") {
      const m = new RegExp(t.value).exec(output);
      if (m) at = m.index + (m[1] !== undefined ? m[0].indexOf(m[1]) : 0);
    } else at = output.indexOf(t.value);
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  return best < 0 ? null : output.slice(best);
}

/** What the grammar must accept of `output`. */
function grammarInput(params: ChatParams, output: string): string | null {
  return params.grammarLazy ? fromTrigger(output, params.grammarTriggers) : output;
}

const templates = toolTemplates();
const toolScenarios = SCENARIOS.filter((s) => s.message.tool_calls);

const cases = templates.flatMap((t) =>
  (["auto", "required"] as const).flatMap((toolChoice) =>
    toolScenarios
      .filter((s) => (!s.parallel || t.template.caps.supportsParallelToolCalls) && !KNOWN_FAILURES[t.name]?.scenarios.includes(s.name))
      .map((s) => ({ label: `${t.name} | ${toolChoice} | ${s.name}`, t, s: scenarioFor(t, s), toolChoice })),
  ),
);

describe("the grammar accepts what the parser reads back", () => {
  it.each(cases)("$label", ({ t, s, toolChoice }) => {
    const params = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS, toolChoice, enableThinking: s.enableThinking, extraContext: extraContext(t, s) });
    const g = generatedPart(t, s, params);
    if ("error" in g) throw new Error(g.error);
    expect(messageDifferences(s.message, parseChatOutput(params, g.output), g.output)).toEqual([]);
    expect(params.grammar).not.toBeNull();
    expect(params.grammarLazy).toBe(toolChoice === "auto" || params.thinkingForcedOpen);
    const text = grammarInput(params, g.output);
    expect(text, `no trigger of ${JSON.stringify(params.grammarTriggers)} in ${JSON.stringify(g.output)}`).not.toBeNull();
    const r = matchGbnf(params.grammar!, text!);
    const content = s.message.content;
    const hasContent = typeof content === "string" && content.trim() !== "";
    if (toolChoice === "required" && hasContent) {
      // "required" means the call comes first: text before it is exactly what the grammar rules
      // out (the parser still reads it back, checked above).
      expect(r.ok, `accepted content before a required call: ${JSON.stringify(text)}`).toBe(false);
    } else {
      expect(r.ok, `rejected after ${r.consumed} code points of ${JSON.stringify(text)}`).toBe(true);
    }
  });
});

describe("tool_choice required rejects plain content", () => {
  const supported = templates.filter((t) => !KNOWN_FAILURES[t.name]?.scenarios.includes("one call"));
  it.each(supported.map((t) => ({ label: t.name, t })))("$label", ({ t }) => {
    const params = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS, toolChoice: "required" });
    const plain = "The weather in Paris is sunny.";
    const text = params.grammarLazy ? `${params.reasoningEnd ?? ""}${plain}` : plain;
    if (params.grammarLazy) expect(fromTrigger(text, params.grammarTriggers)).not.toBeNull();
    const r = matchGbnf(params.grammar!, grammarInput(params, text)!);
    expect(r.ok).toBe(false);
    // ...and the parser keeps the text as content.
    expect(parseChatOutput(params, text).content).toBe(plain);
  });
});

describe("response_format json_schema: the answer is JSON matching the schema, reasoning unconstrained", () => {
  const schema = { type: "object", properties: { city: { type: "string" }, temp: { type: "number" } }, required: ["city", "temp"], additionalProperties: false };
  const answer: Scenario = { name: "json answer", message: { role: "assistant", content: '{"city": "Paris", "temp": 21.5}' } };
  // Formats whose plain answers do not round trip wrap answers in ways the parser does not know.
  it.each(templates.filter((t) => !KNOWN_FAILURES[t.name]?.scenarios.includes("reasoning and content")).map((t) => ({ label: t.name, t })))("$label", ({ t }) => {
    // Tools are offered too (some templates cannot render without): the schema takes precedence.
    const params = generateChatParams(t.analysis, t.template, {
      messages: [USER],
      tools: TOOLS,
      responseFormat: { type: "json_schema", json_schema: { name: "weather", schema } },
    });
    expect(params.grammar).not.toBeNull();
    const g = generatedPart(t, answer, params);
    if ("error" in g) throw new Error(g.error);
    const msg = parseChatOutput(params, g.output);
    expect(JSON.parse(String(msg.content))).toEqual({ city: "Paris", temp: 21.5 });
    expect(msg.tool_calls).toBeUndefined();
    const text = grammarInput(params, g.output);
    expect(text, JSON.stringify(g.output)).not.toBeNull();
    expect(matchGbnf(params.grammar!, text!).ok, JSON.stringify(text)).toBe(true);
    expect(matchGbnf(params.grammar!, grammarInput(params, g.output.replace("21.5", '"warm"'))!).ok).toBe(false);
  });
});
