// Hostile JSON Schemas: 1,000 levels deep, 10k properties, 10k prefixItems, a 100,000-word
// pattern, unsatisfiable keyword pairs, a malformed `$ref` fragment. Each converts or ends in a
// SchemaError naming the pointer (and the budget, for the count budgets of schema-budget.ts) —
// never a RangeError from a stack overflow, a URIError, or minutes of work. Pure TypeScript: run
// in-process.
import { describe, expect, it } from "vitest";
import { compileGbnf, jsonSchemaToGbnf, SchemaError } from "../../src/grammar/index.js";

type Schema = Record<string, unknown>;
const nest = (depth: number, wrap: (s: Schema) => Schema): Schema => {
  let s: Schema = { type: "integer" };
  for (let i = 0; i < depth; i++) s = wrap(s);
  return s;
};
const deepCases: [string, (s: Schema) => Schema][] = [
  ["properties", (s) => ({ type: "object", properties: { a: s }, required: ["a"] })],
  ["items", (s) => ({ type: "array", items: s })],
  ["anyOf", (s) => ({ anyOf: [s, { type: "null" }] })],
  ["allOf", (s) => ({ allOf: [s] })],
  ["prefixItems", (s) => ({ type: "array", prefixItems: [s] })],
];

describe("schema converter bounds", () => {
  for (const [name, wrap] of deepCases) {
    it(`${name} nested 1,000 deep: converts or a SchemaError naming the pointer`, () => {
      let err: unknown;
      try {
        expect(jsonSchemaToGbnf(nest(1000, wrap))).toMatch(/^root ::=/m);
        return; // allOf merges flat: it works
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).pointer.startsWith("#/")).toBe(true);
      expect((err as Error).message).toMatch(/nested/);
    });
    it(`${name} nested 150 deep still converts`, () => {
      expect(jsonSchemaToGbnf(nest(150, wrap))).toMatch(/^root ::=/m);
    });
  }

  const propertiesOf = (n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, { type: "integer" }]));
  const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i.toString(36)}`).join("|");
  // Each over a count budget: refused before any grammar is built (a grammar this wide stalls
  // generation, one stack per alternative at every token), naming the pointer and the limit.
  it.each<[string, Schema, string, string, RegExp]>([
    ["10k optional properties", { type: "object", properties: propertiesOf(10_000) }, "#", "properties", /1000 per/],
    [
      "10k required properties",
      { type: "object", properties: propertiesOf(10_000), required: Object.keys(propertiesOf(10_000)) },
      "#",
      "properties",
      /10000 properties, more than 1000/,
    ],
    [
      "10k required keys declared nowhere, nested",
      { type: "object", properties: { a: { type: "object", required: Object.keys(propertiesOf(10_000)) } } },
      "#/properties/a",
      "properties",
      /1000 per object/,
    ],
    [
      "a pattern alternating 100,000 words",
      { type: "object", properties: { w: { type: "string", pattern: `^(${words(100_000)})$` } } },
      "#/properties/w",
      "pattern",
      /more than 20000 regex items/,
    ],
    [
      "10,000 words as a patternProperties key",
      { type: "object", patternProperties: { [`^(${words(10_000)})$`]: { type: "integer" } } },
      "#",
      "patternProperties",
      /20000 regex items/,
    ],
    [
      "10,000 words as propertyNames",
      { type: "object", propertyNames: { pattern: `^(${words(10_000)})$` } },
      "#/propertyNames",
      "propertyNames",
      /20000 regex items/,
    ],
    [
      "nested bounded repetitions",
      { type: "string", pattern: "^((a{1,1000}){1,1000}){1,1000}$" },
      "#",
      "pattern",
      /20000 regex items/,
    ],
  ])("%s: a SchemaError naming the pointer and the budget", (_name, schema, pointer, keyword, message) => {
    let err: unknown;
    try {
      jsonSchemaToGbnf(schema);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SchemaError);
    expect([(err as SchemaError).pointer, (err as SchemaError).keyword]).toEqual([pointer, keyword]);
    expect((err as Error).message).toMatch(message);
  });

  it.each<[string, Schema]>([
    ["1,000 required properties", { type: "object", properties: propertiesOf(1000), required: ["k0", "k999"] }],
    ["a pattern alternating 1,000 words", { type: "string", pattern: `^(${words(1000)})$` }],
    ["a pattern repeating up to 2000 times", { type: "string", pattern: "^[a-z]{1,2000}(-[0-9]{1,5})?$" }],
  ])("%s (within the budget) converts", (_name, schema) => {
    expect(jsonSchemaToGbnf(schema)).toMatch(/^root ::=/m);
  });

  it.each(["schema", "required-first", "any"] as const)(
    "1,000 optional properties, propertyOrder %s: a grammar the parsers accept (no `?` over 2000 rules)",
    (propertyOrder) => {
      const gbnf = jsonSchemaToGbnf({ type: "object", properties: propertiesOf(1000) }, { propertyOrder });
      expect(compileGbnf(gbnf).ruleIndex.size).toBeGreaterThan(1000);
    },
  );

  // Keyword pairs that leave nothing: a SchemaError naming the subschema, not a grammar that
  // drops (or mis-shapes) the value and lets the chat "succeed".
  it.each<[Schema, string, string]>([
    [{ minLength: 10, maxLength: 2 }, "#", "minLength/maxLength"],
    [
      { type: "object", properties: { a: { type: "array", minItems: 3, maxItems: 1 } } },
      "#/properties/a",
      "minItems/maxItems",
    ],
    [{ type: "array", items: { type: "number", minimum: 5, maximum: 4 } }, "#/items", "minimum/maximum"],
    [{ type: "object", minProperties: 4, maxProperties: 2 }, "#", "minProperties/maxProperties"],
    [{ type: "number", exclusiveMinimum: 1, exclusiveMaximum: 1 }, "#", "exclusiveMinimum/exclusiveMaximum"],
    [{ type: "integer", exclusiveMinimum: 1, exclusiveMaximum: 2 }, "#", "exclusiveMinimum/exclusiveMaximum"],
    [
      {
        type: "object",
        properties: { p: { type: "object", properties: { a: {} }, required: ["b"], additionalProperties: false } },
        required: ["p"],
      },
      "#/properties/p",
      "required",
    ],
  ])("%j: a SchemaError at %s (%s)", (schema, pointer, keyword) => {
    let err: unknown;
    try {
      jsonSchemaToGbnf(schema);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SchemaError);
    expect([(err as SchemaError).pointer, (err as SchemaError).keyword]).toEqual([pointer, keyword]);
  });

  it("10k prefixItems convert, into a grammar of shallow rules", () => {
    const g = jsonSchemaToGbnf({
      type: "array",
      prefixItems: Array.from({ length: 10_000 }, (_, i) => ({ const: i })),
    });
    expect(g).toContain("9999");
    // No rule's body nests hundreds of groups deep.
    const deepest = Math.max(...g.split("\n").map((line) => line.split("(").length - 1));
    expect(deepest).toBeLessThan(200);
  });

  it("a pattern with a 100,000-item class converts (the class is normalised once)", () => {
    const cls = Array.from({ length: 100_000 }, (_, i) => String.fromCodePoint(0x4e00 + i * 2)).join("");
    expect(jsonSchemaToGbnf({ type: "string", pattern: `^[${cls}]+$` })).toMatch(/^root ::=/m);
  });

  it.each(["#/definitions/~2/%ZZ", "#/%E0%A4%A", "#%"])(
    "a malformed $ref fragment %s: a SchemaError naming the pointer",
    (ref) => {
      expect(() => jsonSchemaToGbnf({ type: "object", properties: { a: { $ref: ref } }, definitions: {} })).toThrow(
        SchemaError,
      );
      try {
        jsonSchemaToGbnf({ type: "object", properties: { a: { $ref: ref } }, definitions: {} });
      } catch (e) {
        expect((e as SchemaError).pointer).toBe("#/properties/a");
        expect((e as Error).message).toContain(ref.slice(1, 5));
      }
    },
  );
});
