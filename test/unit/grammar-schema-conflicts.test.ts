import { describe, expect, test } from "vitest";
import { SchemaError, jsonSchemaToGbnf } from "../../src/grammar/index.js";
import { checkKeywordConflicts } from "../../src/grammar/schema/keyword-conflicts.js";
import { patternWeight } from "../../src/grammar/schema/schema-budget.js";
import { parseRegex } from "../../src/grammar/regex/regex-parse.js";

type Schema = Record<string, unknown>;

const errorOf = (f: () => unknown): SchemaError => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(SchemaError);
    return e as SchemaError;
  }
  return expect.unreachable("no SchemaError");
};

describe("checkKeywordConflicts: keyword pairs of one object that leave nothing", () => {
  test.each<[Schema, string, RegExp]>([
    [{ minLength: 10, maxLength: 2 }, "minLength/maxLength", /minLength 10 exceeds maxLength 2/],
    [{ type: ["string", "null"], minLength: 1, maxLength: 0 }, "minLength/maxLength", /no string/],
    [{ minItems: 3, maxItems: 1 }, "minItems/maxItems", /minItems 3 exceeds maxItems 1/],
    [{ contains: {}, minContains: 2, maxContains: 1 }, "minContains/maxContains", /no array/],
    [{ minProperties: 4, maxProperties: 2 }, "minProperties/maxProperties", /no object/],
    [{ required: ["a", "b", "a", "c"], maxProperties: 2 }, "required/maxProperties", /3 required properties/],
    [{ minimum: 5, maximum: 4 }, "minimum/maximum", /leave no number/],
    [{ minimum: 5, maximum: 5, exclusiveMaximum: true }, "minimum/maximum", /leave no number/],
    [{ minimum: 5, exclusiveMinimum: true, maximum: 5 }, "minimum/maximum", /leave no number/],
    [{ exclusiveMinimum: 3, maximum: 3 }, "exclusiveMinimum/maximum", /leave no number/],
    [{ minimum: 3, exclusiveMaximum: 3 }, "minimum/exclusiveMaximum", /leave no number/],
    [{ exclusiveMinimum: 2, exclusiveMaximum: 1 }, "exclusiveMinimum/exclusiveMaximum", /leave no number/],
    [{ type: "integer", minimum: 1.2, maximum: 1.8 }, "minimum/maximum", /leave no integer/],
    [{ type: "integer", exclusiveMinimum: 1, exclusiveMaximum: 2 }, "exclusiveMinimum/exclusiveMaximum", /no integer/],
    // The tighter of two lower bounds is the one compared.
    [{ minimum: 1, exclusiveMinimum: 7, maximum: 6 }, "exclusiveMinimum/maximum", /exclusiveMinimum 7/],
  ])("%j: %s", (schema, keyword, message) => {
    const err = errorOf(() => checkKeywordConflicts(schema, "#/x"));
    expect([err.pointer, err.keyword]).toEqual(["#/x", keyword]);
    expect(err.message).toMatch(message);
  });

  test.each<Schema>([
    { minLength: 2, maxLength: 2 },
    { minimum: 5, maximum: 5 },
    { type: "number", exclusiveMinimum: 1, exclusiveMaximum: 2 },
    { type: ["integer", "number"], minimum: 1.2, maximum: 1.8 },
    { type: "integer", minimum: 1, exclusiveMaximum: 2 },
    { exclusiveMinimum: true, exclusiveMaximum: true, minimum: 1, maximum: 2 },
    { required: ["a", "b"], maxProperties: 2 },
    { minContains: 3, maxContains: 1 }, // without contains, both are ignored
    // Keywords of a type the object excludes never apply.
    { type: "integer", minLength: 10, maxLength: 2 },
    { type: "string", minimum: 5, maximum: 4, minItems: 3, maxItems: 1, minProperties: 2, maxProperties: 1 },
    { minLength: "10", maxLength: 2 },
  ])("%j: satisfiable, accepted", (schema) => {
    expect(() => checkKeywordConflicts(schema, "#")).not.toThrow();
  });
});

describe("unsatisfiable schemas name the subschema that leaves nothing", () => {
  test.each<[Schema, string, string, RegExp]>([
    // In one object: the pair check, wherever the object sits.
    [{ properties: { code: { minLength: 10, maxLength: 2 } } }, "#/properties/code", "minLength/maxLength", /exceeds/],
    [{ $defs: { n: { minimum: 9, maximum: 1 } }, items: { $ref: "#/$defs/n" } }, "#/$defs/n", "minimum/maximum", /no/],
    [
      { anyOf: [{ type: "string" }, { type: "array", minItems: 2, maxItems: 1 }] },
      "#/anyOf/1",
      "minItems/maxItems",
      /2/,
    ],
    // Merged from several objects: the first merged location, when the whole schema is empty.
    [{ type: "string", allOf: [{ minLength: 10 }, { maxLength: 2 }] }, "#", "minLength/maxLength", /10 exceeds/],
    [
      {
        type: "object",
        properties: { a: { type: "array", allOf: [{ minItems: 3 }, { maxItems: 1 }] } },
        required: ["a"],
      },
      "#/properties/a",
      "minItems/maxItems",
      /minItems 3 exceeds maxItems 1/,
    ],
    [
      { type: "object", properties: { a: {} }, required: ["b"], additionalProperties: false },
      "#",
      "required",
      /property "b" is not allowed/,
    ],
    [
      { type: "object", properties: { a: {} }, additionalProperties: false, minProperties: 2 },
      "#",
      "minProperties",
      /minProperties 2, but only 1/,
    ],
    [{ type: "integer", allOf: [{ minimum: 5 }, { maximum: 4 }] }, "#", "minimum/maximum", /no integer/],
    [{ type: "string", enum: [1, 2] }, "#", "enum", /no enum\/const value/],
    [{ type: "string", allOf: [{ type: "integer" }] }, "#", "(schema)", /no type/],
  ])("%j: a SchemaError at %s (%s)", (schema, pointer, keyword, message) => {
    const err = errorOf(() => jsonSchemaToGbnf(schema));
    expect([err.pointer, err.keyword]).toEqual([pointer, keyword]);
    expect(err.message).toMatch(message);
    expect(err.message).toMatch(/no JSON value satisfies this schema|no \w+ satisfies both|leave no/);
  });

  test("a dead branch among live ones is dropped, not an error (the schema stays satisfiable)", () => {
    const schema = { anyOf: [{ type: "string", allOf: [{ minLength: 3 }, { maxLength: 1 }] }, { type: "null" }] };
    expect(jsonSchemaToGbnf(schema)).toMatch(/null/);
    const optional = {
      type: "object",
      properties: { a: { type: "integer", allOf: [{ minimum: 3 }, { maximum: 1 }] } },
    };
    expect(jsonSchemaToGbnf(optional)).toMatch(/^root ::= "\{"/m);
  });

  test("merged length bounds that cross no longer leave a fixed-length string grammar", () => {
    // Before: char{10}, strings the schema rejects. Now the string type is dropped; numbers remain.
    const g = jsonSchemaToGbnf({ type: ["string", "number"], allOf: [{ minLength: 10 }, { maxLength: 2 }] });
    expect(g).not.toMatch(/char\{10\}/);
    expect(g).toMatch(/^root ::= number/m);
  });
});

describe("patternWeight", () => {
  test.each<[string, number]>([
    ["a", 1],
    ["abc", 4],
    ["a|b", 3],
    ["a{3}", 4],
    ["(?:ab){2,5}", 1 + 3 * 5],
    ["a{2,}", 1 + 3],
    ["a{0,5000}", 1 + 1], // above 2000: unbounded, as the grammar writes it
    ["[a-z\\d]{1,2000}", 2001],
  ])("%s weighs %i", (source, weight) => {
    expect(patternWeight(parseRegex(source))).toBe(weight);
  });

  test("stops counting past the cap", () => {
    expect(patternWeight(parseRegex("((a{1,2000}){1,2000}){1,2000}"), 100)).toBeGreaterThan(100);
    expect(patternWeight(parseRegex("((a{1,2000}){1,2000}){1,2000}"), 100)).toBeLessThan(1e12);
  });
});
