// Hostile JSON Schemas: 1,000 levels deep, 10k properties, 10k prefixItems, a malformed `$ref`
// fragment. Each converts or ends in a SchemaError naming the pointer — never a RangeError from
// a stack overflow or a URIError. Pure TypeScript: run in-process.
import { describe, expect, it } from "vitest";
import { jsonSchemaToGbnf, SchemaError } from "../../src/grammar/index.js";

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

  it("10k optional properties convert", () => {
    const properties = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, { type: "integer" }]));
    expect(jsonSchemaToGbnf({ type: "object", properties })).toContain("k9999");
  });

  it("10k required properties convert", () => {
    const properties = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, { type: "integer" }]));
    expect(jsonSchemaToGbnf({ type: "object", properties, required: Object.keys(properties) })).toContain("k9999");
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
