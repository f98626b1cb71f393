/**
 * OpenAPI's `nullable: true` (Gemini function declarations, transformers' get_json_schema) is read
 * as a `null` type, as ajv reads it when it checks tool arguments: the rewrite itself (where it
 * looks, what it leaves alone), the grammar that follows from it, and the argument check, which no
 * longer refuses a schema that marks a subschema without `type`.
 */
import { describe, expect, it } from "vitest";
import { jsonSchemaToGbnf, matchGbnf } from "../../src/grammar/index.js";
import { withoutOpenApiNullable } from "../../src/grammar/schema/openapi-nullable.js";
import { executeToolCalls } from "../../src/session/tools.js";
import type { ChatTool } from "../../src/session/types.js";
import type { JsonSchema } from "../../src/types.js";

const REWRITES: { name: string; schema: JsonSchema; expected: JsonSchema }[] = [
  { name: "a typed value", schema: { type: "string", nullable: true }, expected: { type: ["string", "null"] } },
  {
    name: "a list of types",
    schema: { type: ["string", "integer"], nullable: true },
    expected: { type: ["string", "integer", "null"] },
  },
  {
    name: "null already listed",
    schema: { type: ["null", "string"], nullable: true },
    expected: { type: ["null", "string"] },
  },
  { name: "nullable: false", schema: { type: "string", nullable: false }, expected: { type: "string" } },
  { name: "no type: no effect", schema: { description: "d", nullable: true }, expected: { description: "d" } },
  {
    name: "an enum still has to list null",
    schema: { type: "string", enum: ["a"], nullable: true },
    expected: { type: ["string", "null"], enum: ["a"] },
  },
  {
    name: "nested: properties, items, anyOf, $defs, additionalProperties",
    schema: {
      type: "object",
      properties: {
        a: { type: "integer", nullable: true },
        b: { type: "array", items: { type: "number", nullable: true } },
        c: { anyOf: [{ type: "boolean", nullable: true }, { $ref: "#/$defs/D" }] },
        nullable: { type: "boolean" },
      },
      additionalProperties: { type: "object", nullable: true },
      $defs: { D: { type: "string", nullable: true } },
    },
    expected: {
      type: "object",
      properties: {
        a: { type: ["integer", "null"] },
        b: { type: "array", items: { type: ["number", "null"] } },
        c: { anyOf: [{ type: ["boolean", "null"] }, { $ref: "#/$defs/D" }] },
        nullable: { type: "boolean" },
      },
      additionalProperties: { type: ["object", "null"] },
      $defs: { D: { type: ["string", "null"] } },
    },
  },
  {
    name: "values are data, not schemas",
    schema: { type: "object", default: { nullable: true }, enum: [{ nullable: true }], const: { nullable: true } },
    expected: { type: "object", default: { nullable: true }, enum: [{ nullable: true }], const: { nullable: true } },
  },
];

describe("withoutOpenApiNullable", () => {
  it.each(REWRITES)("$name", ({ schema, expected }) => {
    const before = JSON.stringify(schema);
    expect(withoutOpenApiNullable(schema)).toEqual(expected);
    expect(JSON.stringify(schema)).toBe(before); // the caller's schema is not changed
  });

  it("returns the same object when nothing is marked", () => {
    const schema: JsonSchema = { type: "object", properties: { a: { type: ["string", "null"] } } };
    expect(withoutOpenApiNullable(schema)).toBe(schema);
  });
});

describe("the grammar of a nullable schema", () => {
  const cases: { schema: JsonSchema; accepts: string[]; rejects: string[] }[] = [
    { schema: { type: "string", nullable: true }, accepts: ['"a"', "null"], rejects: ["1"] },
    { schema: { type: "string" }, accepts: ['"a"'], rejects: ["null"] },
    { schema: { type: "string", enum: ["a"], nullable: true }, accepts: ['"a"'], rejects: ["null"] },
    {
      schema: { type: "object", properties: { n: { type: "integer", nullable: true } }, required: ["n"] },
      accepts: ['{"n": null}', '{"n": 3}'],
      rejects: ['{"n": "3"}'],
    },
  ];
  it.each(cases)("$schema", ({ schema, accepts, rejects }) => {
    const gbnf = jsonSchemaToGbnf(schema);
    for (const text of accepts) expect(matchGbnf(gbnf, text).ok, text).toBe(true);
    for (const text of rejects) expect(matchGbnf(gbnf, text).ok, text).toBe(false);
  });
});

describe("the argument check reads nullable as the grammar does", () => {
  const run = async (parameters: JsonSchema, args: string) => {
    const seen: unknown[] = [];
    const tools: ChatTool[] = [
      { type: "function", function: { name: "f", parameters }, execute: (a) => (seen.push(a), "ok") },
    ];
    const call = { id: "c1", type: "function" as const, function: { name: "f", arguments: args } };
    const { errors } = await executeToolCalls([call], tools, undefined);
    return { seen, errors: errors.map((e) => e.error.message) };
  };

  it("runs a call whose nullable argument is null, and refuses a value of another type", async () => {
    const parameters: JsonSchema = { type: "object", properties: { label: { type: "string", nullable: true } } };
    expect(await run(parameters, '{"label": null}')).toEqual({ seen: [{ label: null }], errors: [] });
    expect((await run(parameters, '{"label": 3}')).errors[0]).toMatch(/must be string,null/);
  });

  it("runs a tool whose schema marks a subschema without a type (ajv alone refuses the schema)", async () => {
    const parameters: JsonSchema = { type: "object", properties: { note: { description: "any", nullable: true } } };
    expect(await run(parameters, '{"note": null}')).toEqual({ seen: [{ note: null }], errors: [] });
  });
});
