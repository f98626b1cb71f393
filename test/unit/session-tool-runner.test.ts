/**
 * The tool runner checks arguments against the tool's JSON Schema (ajv) before `execute`: a call
 * that is not JSON, breaks the schema, was cut off or names no tool is not executed; it and an
 * `execute` that throws are reported to the caller (errors) and to the model ("Error: ..." tool
 * message).
 */
import { describe, expect, it } from "vitest";
import { ToolwrightError } from "../../src/errors.js";
import { executeToolCalls } from "../../src/session/tools.js";
import type { ChatTool } from "../../src/session/types.js";
import type { ToolCall } from "../../src/types.js";

const schema = {
  type: "object",
  properties: {
    city: { type: "string", enum: ["Paris", "Oslo"] },
    days: { type: "integer", minimum: 1, maximum: 7, multipleOf: 2 },
    tags: { type: "array", uniqueItems: true },
  },
  required: ["city"],
  additionalProperties: false,
};

function call(args: string, extra: Partial<ToolCall> = {}, name = "get_weather"): ToolCall {
  return { id: "call_1", type: "function", function: { name, arguments: args }, ...extra };
}

const cases: { name: string; call: ToolCall; kind: string | null; code?: string; match?: RegExp }[] = [
  { name: "valid arguments", call: call('{"city":"Paris"}'), kind: null },
  { name: "valid with optional fields", call: call('{"city":"Oslo","days":4,"tags":["a","b"]}'), kind: null },
  {
    name: "not JSON",
    call: call('{"city":"Par'),
    kind: "invalid_arguments",
    code: "TOOLWRIGHT_TOOL_ARGUMENTS",
    match: /not valid JSON/,
  },
  {
    name: "missing required",
    call: call("{}"),
    kind: "invalid_arguments",
    code: "TOOLWRIGHT_TOOL_ARGUMENTS",
    match: /must have required property 'city'/,
  },
  {
    name: "empty arguments break required",
    call: call(""),
    kind: "invalid_arguments",
    code: "TOOLWRIGHT_TOOL_ARGUMENTS",
    match: /required property 'city'/,
  },
  {
    name: "enum",
    call: call('{"city":"Rome"}'),
    kind: "invalid_arguments",
    code: "TOOLWRIGHT_TOOL_ARGUMENTS",
    match: /arguments\/city must be equal to one of the allowed values/,
  },
  {
    name: "wrong type",
    call: call('{"city":"Paris","days":"2"}'),
    kind: "invalid_arguments",
    code: "TOOLWRIGHT_TOOL_ARGUMENTS",
    match: /arguments\/days must be integer/,
  },
  {
    name: "multipleOf (a grammar does not enforce it with bounds)",
    call: call('{"city":"Paris","days":3}'),
    kind: "invalid_arguments",
    match: /multiple of 2/,
  },
  {
    name: "uniqueItems (no grammar can enforce it)",
    call: call('{"city":"Paris","tags":["a","a"]}'),
    kind: "invalid_arguments",
    match: /duplicate items/,
  },
  {
    name: "additional property",
    call: call('{"city":"Paris","country":"FR"}'),
    kind: "invalid_arguments",
    match: /additional properties \("country"\)/,
  },
  { name: "not an object", call: call("[1]"), kind: "invalid_arguments", match: /must be object/ },
  {
    name: "cut off",
    call: call('{"city":"Pa', { incomplete: true }),
    kind: "incomplete",
    code: "TOOLWRIGHT_TOOL_INCOMPLETE",
    match: /cut off/,
  },
  {
    name: "cut off even when the prefix parses",
    call: call('{"city":"Paris"}', { incomplete: true }),
    kind: "incomplete",
    code: "TOOLWRIGHT_TOOL_INCOMPLETE",
  },
  { name: "unknown tool", call: call("{}", {}, "nope"), kind: "unknown_tool", code: "TOOLWRIGHT_TOOL_UNKNOWN" },
];

describe("executeToolCalls validates before execute", () => {
  it.each(cases)("$name", async ({ call: c, kind, code, match }) => {
    const seen: unknown[] = [];
    const tools: ChatTool[] = [
      {
        type: "function",
        function: { name: "get_weather", parameters: schema },
        execute: (args) => (seen.push(args), "ok"),
      },
    ];
    const { messages, errors } = await executeToolCalls([c], tools, undefined);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.tool_call_id).toBe("call_1");
    if (kind === null) {
      expect(errors).toEqual([]);
      expect(seen).toEqual([JSON.parse(c.function.arguments)]);
      expect(messages[0]!.content).toBe("ok");
      return;
    }
    expect(seen).toEqual([]); // never executed
    expect(errors).toHaveLength(1);
    const e = errors[0]!;
    expect(e).toMatchObject({ index: 0, toolCallId: "call_1", name: c.function.name, kind });
    expect(e.error).toBeInstanceOf(ToolwrightError);
    if (code) expect(e.error.code).toBe(code);
    if (match) expect(e.error.message).toMatch(match);
    expect(messages[0]!.content).toBe(`Error: ${e.error.message}`);
    if (kind === "invalid_arguments" && !/JSON/.test(e.error.message)) expect(e.details?.length).toBeGreaterThan(0);
  });

  it("reports an execute that throws or rejects to the caller and to the model", async () => {
    const boom = new Error("database down");
    const tools: ChatTool[] = [
      {
        type: "function",
        function: { name: "sync", parameters: { type: "object" } },
        execute: () => {
          throw boom;
        },
      },
      {
        type: "function",
        function: { name: "async", parameters: { type: "object" } },
        execute: async () => Promise.reject(new Error("timeout")),
      },
      { type: "function", function: { name: "fine" }, execute: () => ({ a: 1 }) },
    ];
    const calls = [call("{}", { id: "a" }, "sync"), call("{}", { id: "b" }, "async"), call("{}", { id: "c" }, "fine")];
    const { messages, errors } = await executeToolCalls(calls, tools, undefined);
    expect(messages.map((m) => m.content)).toEqual(["Error: database down", "Error: timeout", '{"a":1}']);
    expect(errors.map((e) => [e.index, e.toolCallId, e.kind, e.error.code])).toEqual([
      [0, "a", "execute_failed", "TOOLWRIGHT_TOOL_FAILED"],
      [1, "b", "execute_failed", "TOOLWRIGHT_TOOL_FAILED"],
    ]);
    expect(errors[0]!.error.cause).toBe(boom);
  });

  it("reports a parameters schema that cannot be compiled instead of executing unchecked", async () => {
    let ran = false;
    const tools: ChatTool[] = [
      {
        type: "function",
        function: { name: "f", parameters: { type: "object", properties: { a: { $ref: "#/nowhere" } } } },
        execute: () => (ran = true),
      },
    ];
    const { errors } = await executeToolCalls([call('{"a":1}', {}, "f")], tools, undefined);
    expect(ran).toBe(false);
    expect(errors[0]!.error.message).toMatch(/cannot be used to check/);
  });
});
