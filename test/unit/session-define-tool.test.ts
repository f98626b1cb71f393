// defineTool at run time, schema libraries' objects as parameters (zod, through its Standard
// JSON Schema export), the clear errors for what is not a schema, and strict tools: the request
// fails when the grammar could not enforce the schema exactly, and the runner checks arguments
// against the schema with objects closed.
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { generateChatParams } from "../../src/chat/index.js";
import { parametersJsonSchema } from "../../src/chat/tool-schema.js";
import { SchemaError } from "../../src/grammar/index.js";
import { defineTool } from "../../src/index.js";
import { closedSchema } from "../../src/session/closed-schema.js";
import { planChat } from "../../src/session/options.js";
import { paramsFor } from "../../src/session/step.js";
import { executeToolCalls } from "../../src/session/tools.js";
import type { ChatTool } from "../../src/session/types.js";
import type { JsonSchema, ToolCall, ToolDefinition } from "../../src/types.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import { USER, generatedPart, toolTemplates } from "../helpers/chat-roundtrip.js";

const README_SCHEMA = {
  type: "object",
  properties: { city: { type: "string", maxLength: 40 } },
  required: ["city"],
} as const;
const call = (args: unknown, name = "get_weather"): ToolCall => ({
  id: "c1",
  type: "function",
  function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
});
const qwen = toolTemplates(undefined, (name) => name.startsWith("Qwen-Qwen3-0.6B"))[0]!;

describe("defineTool", () => {
  it("makes an OpenAI-shaped tool with its execute", async () => {
    const execute = async ({ city }: { city: string }) => ({ city, temperature: 21 });
    const tool = defineTool({
      name: "get_weather",
      description: "Weather",
      parameters: README_SCHEMA,
      strict: true,
      execute,
    });
    expect(tool).toEqual({
      type: "function",
      function: { name: "get_weather", description: "Weather", parameters: README_SCHEMA, strict: true },
      execute,
    });
    const bare = defineTool({ name: "f", parameters: { type: "object" } });
    expect(bare).toEqual({ type: "function", function: { name: "f", parameters: { type: "object" } } });
    expect("execute" in bare).toBe(false);
  });

  it.each([
    { name: "not an object", spec: 42, error: /^defineTool: spec must be an object, got 42$/ },
    {
      name: "unknown key",
      spec: { name: "f", parameters: {}, exectue: () => 1 },
      error: /unknown key "exectue" \(did you mean "execute"\?\)/,
    },
    { name: "no name", spec: { parameters: {} }, error: /^defineTool: spec.name must be a string, got undefined$/ },
    { name: "no parameters", spec: { name: "f" }, error: /^defineTool: spec.parameters is missing/ },
    {
      name: "execute not a function",
      spec: { name: "f", parameters: {}, execute: "run" },
      error: /^defineTool: spec.execute must be a function, got "run"$/,
    },
    {
      name: "strict not a boolean",
      spec: { name: "f", parameters: {}, strict: 1 },
      error: /^defineTool: spec.strict must be a boolean, got 1$/,
    },
    {
      name: "a function inside the schema",
      spec: { name: "f", parameters: { type: "object", properties: { city: String } } },
      error: new RegExp(
        /^defineTool: spec.parameters must be a JSON Schema \(plain JSON data\), /.source +
          /but defineTool: spec.parameters.properties.city is a function$/.source,
      ),
    },
  ])("rejects $name with a TypeError naming it", ({ spec, error }) => {
    expect(() => defineTool(spec as never)).toThrow(TypeError);
    expect(() => defineTool(spec as never)).toThrow(error);
  });
});

describe("zod schemas as parameters", () => {
  const zodWeather = z.object({ city: z.string().max(40), unit: z.enum(["c", "f"]).default("c") });

  it("convert with zod's own JSON Schema export (of the input: what the model writes), once per schema", () => {
    const json = parametersJsonSchema(zodWeather, "parameters");
    expect(json).toMatchObject({
      type: "object",
      properties: { city: { type: "string", maxLength: 40 }, unit: { enum: ["c", "f"], default: "c" } },
      required: ["city"],
    });
    expect(parametersJsonSchema(zodWeather, "parameters")).toBe(json);
  });

  it("reach the chat layer as JSON Schema: the grammar enforces it, undeclared keys included", () => {
    const tool = defineTool({
      name: "get_weather",
      parameters: zodWeather,
      execute: ({ city, unit }) => `${city}/${unit}`,
    });
    const plan = planChat({ messages: [USER], tools: [tool], toolChoice: "required", enableThinking: false }, "chat");
    const params = paramsFor(plan, { template: qwen.template, analysis: qwen.analysis } as never, [USER]);
    expect(params.prompt).toContain('"maxLength": 40');
    const tools = [
      {
        type: "function" as const,
        function: { name: "get_weather", parameters: parametersJsonSchema(zodWeather, "p") },
      },
    ];
    const accepts = (args: unknown) => {
      const message = { role: "assistant" as const, content: "", tool_calls: [call(args)] };
      const g = generatedPart(qwen, { name: "zod", message, enableThinking: false }, params, tools);
      if ("error" in g) throw new Error(g.error);
      return matchGbnf(params.grammar!, g.output).ok;
    };
    expect(accepts({ city: "Paris", unit: "f" })).toBe(true);
    expect(accepts({ city: "Paris", unit: "k" })).toBe(false);
    expect(accepts({ city: "x".repeat(41) })).toBe(false);
    expect(accepts({ city: "Paris", junk: 1 })).toBe(false);
  });

  it("run through zod's own validation: execute gets zod's output, zod's issues are reported", async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      name: "get_weather",
      parameters: zodWeather,
      execute: (args) => (seen.push(args), "ok"),
    });
    const good = await executeToolCalls([call({ city: "Paris" })], [tool], undefined);
    expect(good.errors).toEqual([]);
    expect(seen).toEqual([{ city: "Paris", unit: "c" }]);
    const bad = await executeToolCalls([call({ city: "x".repeat(41) })], [tool], undefined);
    expect(bad.errors).toHaveLength(1);
    expect(bad.errors[0]!.kind).toBe("invalid_arguments");
    expect(bad.errors[0]!.error.message).toMatch(
      /^the arguments of tool call "get_weather" do not match its parameters schema: arguments\/city: /,
    );
    expect(seen).toHaveLength(1);
  });

  it("transforms and refinements of the output are zod's: execute gets the transformed value", async () => {
    let got: unknown;
    const tool = defineTool({
      name: "n",
      parameters: z.object({ n: z.string().transform((s) => s.length) }),
      execute: ({ n }) => (got = n),
    });
    await executeToolCalls([call({ n: "abcd" }, "n")], [tool], undefined);
    expect(got).toBe(4);
  });
});

describe("a Standard JSON Schema without a validator (the interface does not require one)", () => {
  it("is checked by the runner against its exported JSON Schema", async () => {
    const jsonOnly = {
      "~standard": {
        version: 1 as const,
        vendor: "jsononly",
        jsonSchema: { input: () => ({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }) },
      },
    };
    const seen: unknown[] = [];
    const tool: ChatTool = {
      type: "function",
      function: { name: "get_weather", parameters: jsonOnly },
      execute: (args) => (seen.push(args), "ok"),
    };
    expect((await executeToolCalls([call({ city: "Paris" })], [tool], undefined)).errors).toEqual([]);
    const bad = await executeToolCalls([call({ city: 3 })], [tool], undefined);
    expect(bad.errors[0]?.error.message).toMatch(/arguments\/city must be string/);
    expect(seen).toEqual([{ city: "Paris" }]);
  });
});

describe("what is not a schema: a TypeError naming tools[i] and what was given", () => {
  const fakeStandard = { "~standard": { version: 1, vendor: "oldlib", validate: () => ({ value: {} }) } };
  it.each([
    {
      name: "a schema library's object without a JSON Schema export",
      parameters: fakeStandard,
      error: /^chat: options.tools\[0\].function.parameters is a oldlib schema without a JSON Schema export/,
    },
    {
      name: "a function",
      parameters: () => 1,
      error: new RegExp(
        /^chat: options.tools\[0\].function.parameters must be a JSON Schema object /.source +
          /\(or a zod or other Standard JSON Schema\), got a function$/.source,
      ),
    },
    {
      name: "a class instance inside",
      parameters: { type: "object", properties: { when: new Date(0) } },
      error: /options.tools\[0\].function.parameters.properties.when is a Date instance$/,
    },
    {
      name: "a cycle",
      parameters: (() => {
        const s: Record<string, unknown> = { type: "object" };
        s.properties = { self: s };
        return s;
      })(),
      error: /properties.self refers back to an enclosing object \(a cycle\)$/,
    },
    { name: "a number", parameters: 3, error: /got 3$/ },
  ])("$name", ({ parameters, error }) => {
    const run = () =>
      planChat(
        { messages: [USER], tools: [{ type: "function", function: { name: "get_weather", parameters } } as ChatTool] },
        "chat",
      );
    expect(run).toThrow(TypeError);
    expect(run).toThrow(error);
  });

  it("an undefined property counts as absent, as in JSON", () => {
    const parameters = {
      type: "object",
      description: undefined,
      properties: { city: { type: "string", description: undefined } },
    };
    expect(() =>
      planChat({ messages: [USER], tools: [{ type: "function", function: { name: "f", parameters } }] }, "chat"),
    ).not.toThrow();
    expect(() =>
      generateChatParams(qwen.analysis, qwen.template, {
        messages: [USER],
        tools: [{ type: "function", function: { name: "f", parameters } }],
      }),
    ).not.toThrow();
  });

  it("the chat layer names a schema library's object given to it directly", () => {
    const tools = [
      { type: "function" as const, function: { name: "f", parameters: z.object({ a: z.string() }) as never } },
    ];
    expect(() => generateChatParams(qwen.analysis, qwen.template, { messages: [USER], tools })).toThrow(
      new RegExp(
        /^generateChatParams: request.tools\[0\].function.parameters is a zod schema: /.source +
          /the chat layer takes JSON Schema \(convert it with parametersJsonSchema\(\); model.chat\(\) does\)$/.source,
      ),
    );
  });

  it("a zod schema the library cannot export names the library's reason", () => {
    const tool = { type: "function" as const, function: { name: "f", parameters: z.object({ when: z.date() }) } };
    expect(() => planChat({ messages: [USER], tools: [tool] }, "chat")).toThrow(
      /^chat: options.tools\[0\].function.parameters: the zod schema cannot be exported as JSON Schema: /,
    );
  });
});

describe("strict: true", () => {
  const strictTool = (parameters: Record<string, unknown>): ToolDefinition[] => [
    { type: "function", function: { name: "f", parameters, strict: true } },
  ];
  const params = (tools: ToolDefinition[]) =>
    generateChatParams(qwen.analysis, qwen.template, { messages: [USER], tools, toolChoice: "required" });

  it("a schema the grammar enforces exactly works as without strict", () => {
    expect(params(strictTool(README_SCHEMA)).grammar).not.toBeNull();
  });

  it.each([
    {
      name: "uniqueItems",
      schema: { type: "object", properties: { tags: { type: "array", uniqueItems: true } } },
      pointer: "#/properties/tags",
      keyword: "uniqueItems",
    },
    {
      name: "oneOf",
      schema: { type: "object", properties: { v: { oneOf: [{ type: "integer" }, { type: "number" }] } } },
      pointer: "#/properties/v",
      keyword: "oneOf",
    },
  ])(
    "a schema the grammar would relax ($name) fails the request with a SchemaError naming the tool",
    ({ schema, pointer, keyword }) => {
      let error: unknown;
      try {
        params(strictTool(schema));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SchemaError);
      expect(error).toMatchObject({ pointer, keyword, code: "TOOLWRIGHT_INVALID_SCHEMA" });
      expect((error as Error).message).toMatch(
        new RegExp(
          /request.tools\[0\] \("f"\) has strict: true, /.source +
            /but its schema cannot be enforced exactly: not expressible exactly/.source,
        ),
      );
      // Without strict the same schema is relaxed, and the tool runner checks what the grammar cannot.
      expect(params([{ type: "function", function: { name: "f", parameters: schema } }]).grammar).not.toBeNull();
    },
  );

  it("response_format json_schema with strict: true is checked the same way", () => {
    const run = (strict: boolean) =>
      generateChatParams(qwen.analysis, qwen.template, {
        messages: [USER],
        responseFormat: {
          type: "json_schema",
          json_schema: { name: "x", strict, schema: { type: "array", uniqueItems: true } },
        },
      });
    expect(() => run(true)).toThrow(/request.responseFormat.json_schema has strict: true/);
    expect(run(false).grammar).not.toBeNull();
  });

  it("strict must be a boolean", () => {
    expect(() =>
      planChat(
        { messages: [USER], tools: [{ type: "function", function: { name: "f", strict: "yes" } }] as never },
        "chat",
      ),
    ).toThrow(/^chat: options.tools\[0\].function.strict must be a boolean, got "yes"$/);
  });

  it("the runner rejects undeclared keys (as the grammar closes objects), unless the schema allows them", async () => {
    const run = async (strict: boolean, parameters: JsonSchema = README_SCHEMA) => {
      const tool: ChatTool = {
        type: "function",
        function: { name: "get_weather", parameters, strict },
        execute: () => "ok",
      };
      return (await executeToolCalls([call({ city: "Paris", junk: 1 })], [tool], undefined)).errors;
    };
    for (const strict of [true, false]) {
      const errors = await run(strict);
      expect(errors).toHaveLength(1);
      expect(errors[0]!.error.message).toMatch(/must NOT have additional properties \("junk"\)/);
    }
    expect(await run(false, { ...README_SCHEMA, additionalProperties: true })).toEqual([]);
  });

  it("a JSON Schema that says it is draft 2020-12 (zod's export) is validated by the runner", async () => {
    const tool: ChatTool = {
      type: "function",
      function: {
        name: "get_weather",
        parameters: { $schema: "https://json-schema.org/draft/2020-12/schema", ...README_SCHEMA },
      },
      execute: () => "ok",
    };
    expect((await executeToolCalls([call({ city: "Paris" })], [tool], undefined)).errors).toEqual([]);
    expect((await executeToolCalls([call({ city: 1 })], [tool], undefined)).errors[0]?.kind).toBe("invalid_arguments");
  });
});

describe("closedSchema: what a strict tool's arguments are checked against", () => {
  const props = { a: { type: "string" } };
  it.each([
    {
      name: "closes an object with properties",
      schema: { type: "object", properties: props },
      expected: { type: "object", properties: props, additionalProperties: false },
    },
    {
      name: "keeps additionalProperties as given",
      schema: { properties: props, additionalProperties: true },
      expected: { properties: props, additionalProperties: true },
    },
    { name: "leaves free-form objects open", schema: { type: "object" }, expected: { type: "object" } },
    {
      name: "closes nested objects and items",
      schema: { properties: { o: { properties: props }, l: { items: { properties: props } } } },
      expected: {
        properties: {
          o: { properties: props, additionalProperties: false },
          l: { items: { properties: props, additionalProperties: false } },
        },
        additionalProperties: false,
      },
    },
    {
      name: "leaves allOf members and their parent open (the grammar closes their union)",
      schema: { allOf: [{ properties: props }, { properties: { b: {} } }] },
      expected: { allOf: [{ properties: props }, { properties: { b: {} } }] },
    },
    {
      name: "closes anyOf branches of a parent without properties",
      schema: { anyOf: [{ properties: props }] },
      expected: { anyOf: [{ properties: props, additionalProperties: false }] },
    },
    {
      name: "leaves anyOf branches open beside properties",
      schema: { properties: props, anyOf: [{ properties: { b: {} } }] },
      expected: { properties: props, anyOf: [{ properties: { b: {} } }] },
    },
    {
      name: "leaves $ref targets open when a $ref has siblings",
      schema: { $defs: { x: { properties: props } }, properties: { v: { $ref: "#/$defs/x", properties: { b: {} } } } },
      expected: {
        $defs: { x: { properties: props } },
        properties: { v: { $ref: "#/$defs/x", properties: { b: {} } } },
        additionalProperties: false,
      },
    },
  ])("$name", ({ schema, expected }) => {
    expect(closedSchema(schema)).toEqual(expected);
  });
});
