// A tool schema in OpenAPI's dialect marks an optional value `nullable: true` (transformers'
// get_json_schema writes `{"type": "string", "nullable": true}` for `label: str | None`). On every
// tool template, a call that passes null for such an argument must fit the required grammar and read
// back as null, whole and streamed, as it does for `{"type": ["string", "null"]}`.
import { describe, expect, it } from "vitest";
import { ChatStreamParser, accumulateDeltas, generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import type { ToolDefinition } from "../../src/types.js";
import {
  NULL_NOT_EXPRESSIBLE,
  USER,
  generatedPart,
  toolTemplates,
  withoutNullMembers,
} from "../helpers/chat-roundtrip.js";
import { grammarInput } from "../helpers/grammar-input.js";

const TOOLS: ToolDefinition[] = [
  {
    type: "function",
    function: {
      name: "set_alarm",
      description: "Set an alarm",
      parameters: {
        type: "object",
        properties: { hour: { type: "integer" }, label: { type: "string", nullable: true } },
        required: ["hour"],
      },
    },
  },
];

const ids = { generateCallId: (i: number) => `call${i}` };

describe("OpenAPI nullable arguments: written and read as null", () => {
  it.each(toolTemplates().map((t) => ({ name: t.name, t })))("$name", ({ t }) => {
    const args =
      t.name in NULL_NOT_EXPRESSIBLE ? withoutNullMembers({ hour: 7, label: null }) : { hour: 7, label: null };
    const call = { id: "call12345", type: "function" as const, function: { name: "set_alarm", arguments: "" } };
    call.function.arguments = JSON.stringify(args);
    const message = { role: "assistant" as const, content: "", tool_calls: [call] };
    const request = { messages: [USER], tools: TOOLS, enableThinking: false };
    const params = generateChatParams(t.analysis, t.template, { ...request, toolChoice: "required" });
    const g = generatedPart(t, { name: "set_alarm", enableThinking: false, message }, params, TOOLS);
    if ("error" in g) throw new Error(g.error);
    const text = grammarInput(params, g.output);
    expect(text, "a trigger fires").not.toBeNull();
    expect(matchGbnf(params.grammar!, text!).ok, g.output).toBe(true);
    const whole = parseChatOutput(params, g.output, ids);
    expect(JSON.parse(whole.tool_calls?.[0]?.function.arguments ?? "null"), g.output).toEqual(args);
    const parser = new ChatStreamParser(params, ids);
    const deltas = [...g.output].flatMap((ch) => parser.feed(ch));
    expect(accumulateDeltas([...deltas, ...parser.finish()])).toEqual(whole);
  });
});
