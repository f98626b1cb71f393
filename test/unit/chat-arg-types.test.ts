// Tagged argument values are typed by their schema, unions and nullable types included: a raw
// `null` for {"type": ["string", "null"]} is JSON null, `42` for ["string", "integer"] or an
// anyOf of string and integer is 42, and a plain string type keeps "42" a string. Each template
// renders the call; whole parsing and chunked streaming must both give the arguments back.
import { describe, expect, it } from "vitest";
import {
  ChatStreamParser,
  accumulateDeltas,
  generateChatParams,
  parseChatOutput,
  type ChatParams,
} from "../../src/chat/index.js";
import type { JsonSchema, ToolDefinition } from "../../src/types.js";
import {
  NULL_NOT_EXPRESSIBLE,
  USER,
  generatedPart,
  toolTemplates,
  withoutNullMembers,
} from "../helpers/chat-roundtrip.js";

interface TypeCase {
  name: string;
  schema: JsonSchema;
  value: unknown;
  /** Definitions the schema refers to ($defs of the tool's parameters). */
  defs?: Record<string, JsonSchema>;
}

const TYPES: TypeCase[] = [
  { name: "nullable string, null", schema: { type: ["string", "null"] }, value: null },
  { name: "nullable string, text", schema: { type: ["string", "null"] }, value: "Paris" },
  { name: "string or integer, 42", schema: { type: ["string", "integer"] }, value: 42 },
  { name: "string or integer, text", schema: { type: ["string", "integer"] }, value: "4x2" },
  { name: "anyOf string | integer, 42", schema: { anyOf: [{ type: "string" }, { type: "integer" }] }, value: 42 },
  { name: "oneOf string | boolean, true", schema: { oneOf: [{ type: "string" }, { type: "boolean" }] }, value: true },
  { name: "anyOf string | null, null", schema: { anyOf: [{ type: "string" }, { type: "null" }] }, value: null },
  { name: "plain string, '42'", schema: { type: "string" }, value: "42" },
  { name: "plain string, 'null'", schema: { type: "string" }, value: "null" },
  { name: "mixed enum, 1", schema: { enum: ["auto", 1] }, value: 1 },
  { name: "mixed enum, 'auto'", schema: { enum: ["auto", 1] }, value: "auto" },
  {
    name: "$ref to integer | string, 3",
    schema: { $ref: "#/$defs/Level" },
    defs: { Level: { type: ["integer", "string"] } },
    value: 3,
  },
  {
    name: "$ref to integer | string, 'high'",
    schema: { $ref: "#/$defs/Level" },
    defs: { Level: { type: ["integer", "string"] } },
    value: "high",
  },
];

const ids = { generateCallId: (i: number) => `call${i}` };

function streamed(params: ChatParams, output: string, chunk: number) {
  const parser = new ChatStreamParser(params, ids);
  const deltas = [];
  for (let i = 0; i < output.length; i += chunk) deltas.push(...parser.feed(output.slice(i, i + chunk)));
  deltas.push(...parser.finish());
  return accumulateDeltas(deltas);
}

const tagged = toolTemplates().filter((t) => t.analysis.tools.format.mode === "TAG_WITH_TAGGED");
const cases = tagged.flatMap((t) => TYPES.map((c) => ({ label: `${t.name} | ${c.name}`, t, c })));

describe("tagged values are typed by their schema (whole and streamed)", () => {
  it.each(cases)("$label", ({ t, c }) => {
    const tools: ToolDefinition[] = [
      {
        type: "function",
        function: {
          name: "put",
          description: "Store a value",
          parameters: {
            type: "object",
            ...(c.defs ? { $defs: c.defs } : {}),
            properties: { v: c.schema, n: { type: "integer" } },
            required: ["v", "n"],
          },
        },
      },
    ];
    // A template that cannot write null leaves the member out (see NULL_NOT_EXPRESSIBLE).
    const args = t.name in NULL_NOT_EXPRESSIBLE ? withoutNullMembers({ v: c.value, n: 1 }) : { v: c.value, n: 1 };
    const call = {
      id: "call12345",
      type: "function" as const,
      function: { name: "put", arguments: JSON.stringify(args) },
    };
    const params = generateChatParams(t.analysis, t.template, { messages: [USER], tools, enableThinking: false });
    const g = generatedPart(
      t,
      { name: "put", enableThinking: false, message: { role: "assistant", content: "", tool_calls: [call] } },
      params,
      tools,
    );
    if ("error" in g) throw new Error(g.error);
    const whole = parseChatOutput(params, g.output, ids);
    expect(JSON.parse(whole.tool_calls?.[0]?.function.arguments ?? "null"), g.output).toEqual(args);
    for (const chunk of [1, 3]) expect(streamed(params, g.output, chunk), `chunks of ${chunk}`).toEqual(whole);
  });
});
