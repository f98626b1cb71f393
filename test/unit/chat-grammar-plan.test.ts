/**
 * The grammar plan of every request over llama.cpp's tool templates: its kind follows from the
 * request and from where the prompt leaves reasoning, and the flat grammar fields of ChatParams
 * are views of it.
 */
import { describe, expect, it } from "vitest";
import { type ChatParams, generateChatParams } from "../../src/chat/index.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import type { ChatRequest } from "../../src/chat/types.js";
import { TOOLS, USER, toolTemplates } from "../helpers/chat-roundtrip.js";

const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
const VARIANTS: { label: string; request: Partial<ChatRequest>; expected: (p: ChatParams) => string }[] = [
  { label: "no tools", request: {}, expected: () => "none" },
  { label: "tool_choice none", request: { tools: TOOLS, toolChoice: "none" }, expected: () => "none" },
  {
    label: "tool_choice auto",
    request: { tools: TOOLS, toolChoice: "auto" },
    // A format where no marker opens a call has no grammar under auto.
    expected: (p) => (p.grammar === null ? "none" : "lazy"),
  },
  {
    label: "tool_choice required",
    request: { tools: TOOLS, toolChoice: "required" },
    expected: (p) => (p.thinkingForcedOpen && p.reasoningEnd !== null ? "after-reasoning" : "strict"),
  },
  {
    label: "named tool",
    request: { tools: TOOLS, toolChoice: { type: "function", function: { name: TOOLS[0]!.function.name } } },
    expected: (p) => (p.thinkingForcedOpen && p.reasoningEnd !== null ? "after-reasoning" : "strict"),
  },
  {
    label: "response format",
    request: { responseFormat: { type: "json_schema", json_schema: { name: "answer", schema } } },
    expected: (p) => (p.thinkingForcedOpen && p.reasoningEnd !== null ? "after-reasoning" : "strict"),
  },
];

const templates = toolTemplates();

describe.each(VARIANTS)("$label", ({ request, expected }) => {
  it.each(templates.flatMap((t) => [true, false].map((thinking) => ({ t, thinking, name: `${t.name} ${thinking}` }))))(
    "$name",
    ({ t, thinking }) => {
      const p = generateChatParams(t.analysis, t.template, { messages: [USER], enableThinking: thinking, ...request });
      const plan = p.grammarPlan;
      expect(plan.kind).toBe(expected(p));
      expect(p.grammar).toBe(plan.kind === "none" ? null : plan.gbnf);
      expect(p.grammarLazy).toBe(plan.kind === "lazy" || plan.kind === "after-reasoning");
      switch (plan.kind) {
        case "lazy":
          expect(plan.guard).toBe(p.thinkingForcedOpen ? p.reasoningEnd : null);
          expect(p.grammarTriggers).toEqual(plan.triggers);
          break;
        case "after-reasoning":
          // The deferred grammar starts with the reasoning end, its one trigger.
          expect(plan.triggers).toEqual([{ type: "word", value: p.reasoningEnd }]);
          expect(matchGbnf(plan.gbnf, plan.reasoningEnd).prefixOk).toBe(true);
          break;
        case "strict":
          expect(plan.constrains).toBe(request.responseFormat ? "response-format" : "tool-calls");
          expect(p.grammarAfterReasoning).toBe(plan.afterReasoning);
          // Only where the model may open reasoning itself (not when the prompt opened or closed it).
          if (plan.afterReasoning !== null) expect(p.reasoningEnd !== null && !p.thinkingForcedOpen).toBe(true);
          break;
        case "none":
          expect(p.grammarTriggers).toEqual([]);
      }
    },
  );
});
