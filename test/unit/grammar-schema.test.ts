import { describe, expect, test } from "vitest";
import { type Relaxation, SchemaError, jsonSchemaToGbnf, matchGbnf, parseGbnf } from "../../src/grammar/index.js";
import type { SchemaToGbnfOptions } from "../../src/grammar/index.js";

interface Case {
  name: string;
  schema: unknown;
  accept: string[];
  reject: string[];
  options?: SchemaToGbnfOptions;
}

function run(cases: Case[]): void {
  test.each(cases.map((c) => [c.name, c] as const))("%s", (_, c) => {
    const g = jsonSchemaToGbnf(c.schema as never, c.options);
    expect(() => parseGbnf(g)).not.toThrow();
    for (const text of c.accept) expect({ text, ok: matchGbnf(g, text).ok }).toEqual({ text, ok: true });
    for (const text of c.reject) expect({ text, ok: matchGbnf(g, text).ok }).toEqual({ text, ok: false });
  });
}

describe("types", () => {
  run([
    {
      name: "string",
      schema: { type: "string" },
      accept: ['""', '"a \\"b\\" \\u00e9 😀"'],
      reject: ["1", '"a', "null"],
    },
    {
      name: "integer",
      schema: { type: "integer" },
      accept: ["0", "-12", "1234567890123"],
      reject: ["1.5", "01", "+1", '"1"'],
    },
    {
      name: "number",
      schema: { type: "number" },
      accept: ["0", "-1.5", "2e10", "1.0E-3"],
      reject: [".5", "1.", "NaN", "Infinity"],
    },
    {
      name: "boolean and null",
      schema: { type: ["boolean", "null"] },
      accept: ["true", "false", "null"],
      reject: ["0", '"true"'],
    },
    { name: "type array", schema: { type: ["string", "integer"] }, accept: ['"x"', "7"], reject: ["7.5", "[]"] },
    {
      name: "no type: any value",
      schema: {},
      accept: ['{"a": [1, {"b": null}]}', '"s"', "1e5"],
      reject: ["{a: 1}", "[1,]"],
    },
    { name: "true schema", schema: true, accept: ["[]", "3"], reject: ["tru"] },
  ]);
});

describe("enum and const", () => {
  run([
    {
      name: "string enum",
      schema: { enum: ["red", "green", 'say "hi"'] },
      accept: ['"red"', '"say \\"hi\\""'],
      reject: ['"blue"', "red"],
    },
    {
      name: "mixed enum",
      schema: { enum: [1, null, true, "1", [1, 2], { a: 1 }] },
      accept: ["1", "1.0", "null", "true", '"1"', "[1, 2]", "[1,2]", '{"a": 1}'],
      reject: ["2", "false", '{"a": 2}'],
    },
    { name: "const", schema: { const: "fixed" }, accept: ['"fixed"'], reject: ['"other"'] },
    { name: "enum filtered by type", schema: { type: "string", enum: ["a", 1] }, accept: ['"a"'], reject: ["1"] },
  ]);
});

describe("objects", () => {
  const base = { type: "object", properties: { a: { type: "integer" }, b: { type: "string" } }, required: ["a"] };
  run([
    {
      name: "required and optional, compact and json.dumps spacing",
      schema: base,
      accept: ['{"a": 1}', '{"a":1,"b":"x"}', '{"a": 1, "b": "x"}', '{\n  "a": 1,\n  "b": "x"\n}'],
      reject: ["{}", '{"b": "x"}', '{"a": "1"}', '{"a" : 1}'],
    },
    {
      name: "additionalProperties absent: allowed (JSON Schema default)",
      schema: base,
      accept: ['{"a": 1, "zzz": [1]}', '{"zzz": 0, "a": 1}'],
      reject: [],
    },
    {
      name: "additionalProperties absent with the strict option: forbidden",
      schema: base,
      options: { additionalProperties: false },
      accept: ['{"a": 1}'],
      reject: ['{"a": 1, "zzz": 1}'],
    },
    {
      name: "additionalProperties false",
      schema: { ...base, additionalProperties: false },
      accept: ['{"a": 1, "b": "x"}'],
      reject: ['{"a": 1, "c": 2}', '{"a": 1, "ab": 2}', '{"a": 1, "": 2}'],
    },
    {
      name: "additionalProperties schema",
      schema: { ...base, additionalProperties: { type: "boolean" } },
      accept: ['{"a": 1, "c": true}'],
      reject: ['{"a": 1, "c": 2}'],
    },
    {
      name: "declared properties keep their order with propertyOrder schema",
      schema: base,
      options: { propertyOrder: "schema" },
      accept: ['{"a": 1, "b": "x"}'],
      reject: ['{"b": "x", "a": 1}'],
    },
    {
      name: "any order by default",
      schema: base,
      accept: ['{"a": 1, "b": "x"}', '{"b": "x", "a": 1}'],
      reject: ['{"b": "x"}', '{"a": 1, "a": 2}'],
    },
    {
      name: "propertyOrder any",
      schema: { ...base, additionalProperties: false },
      options: { propertyOrder: "any" },
      accept: ['{"b": "x", "a": 1}', '{"a": 1}'],
      reject: ['{"b": "x"}', "{}"],
    },
    {
      name: "patternProperties",
      schema: { type: "object", patternProperties: { "^x-": { type: "integer" } }, additionalProperties: false },
      accept: ['{"x-a": 1, "x-b": 2}', "{}"],
      reject: ['{"x-a": "s"}', '{"y": 1}'],
    },
    {
      name: "patternProperties with additionalProperties schema",
      schema: {
        type: "object",
        properties: { id: { type: "string" } },
        patternProperties: { "^[0-9]+$": { type: "integer" } },
        additionalProperties: { type: "boolean" },
      },
      accept: ['{"id": "a", "12": 3, "flag": true}'],
      reject: ['{"12": true}', '{"flag": 3}', '{"id": 1}'],
    },
    {
      name: "propertyNames",
      schema: { type: "object", propertyNames: { pattern: "^[a-z]+$", maxLength: 3 } },
      accept: ['{"ab": 1}'],
      reject: ['{"Ab": 1}', '{"abcd": 1}'],
    },
    {
      name: "required key not declared",
      schema: { type: "object", required: ["k"], additionalProperties: { type: "integer" } },
      accept: ['{"k": 1}'],
      reject: ["{}", '{"k": "s"}'],
    },
    {
      name: "minProperties 1",
      schema: { type: "object", properties: { a: {}, b: {} }, additionalProperties: false, minProperties: 1 },
      accept: ['{"b": 1}'],
      reject: ["{}"],
    },
    {
      name: "property schema false",
      schema: { type: "object", properties: { a: false, b: {} } },
      accept: ['{"b": 1}'],
      reject: ['{"a": 1}'],
    },
    {
      name: "not required",
      schema: { type: "object", properties: { a: {}, b: {} }, not: { required: ["b"] } },
      accept: ['{"a": 1}'],
      reject: ['{"a": 1, "b": 2}'],
    },
  ]);
});

describe("arrays", () => {
  run([
    {
      name: "items and counts",
      schema: { type: "array", items: { type: "integer" }, minItems: 1, maxItems: 3 },
      accept: ["[1]", "[1, 2, 3]", "[ 1,2 ]"],
      reject: ["[]", "[1, 2, 3, 4]", '[1, "2"]', "[1,]"],
    },
    { name: "empty allowed", schema: { type: "array" }, accept: ["[]", '[1, "a", {}]'], reject: ["[", "[1 2]"] },
    {
      name: "prefixItems",
      schema: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false },
      accept: ['["a", 1]', '["a"]', "[]"],
      reject: ['["a", 1, 2]', '[1, "a"]'],
    },
    {
      name: "draft-4 tuple with additionalItems schema",
      schema: { type: "array", items: [{ const: 0 }], additionalItems: { type: "string" }, minItems: 2 },
      accept: ['[0, "x"]', '[0, "x", "y"]'],
      reject: ["[0]", "[0, 1]"],
    },
    { name: "maxItems 0", schema: { type: "array", maxItems: 0 }, accept: ["[]"], reject: ["[1]"] },
  ]);
});

describe("strings", () => {
  run([
    {
      name: "length counts code points and escapes as one",
      schema: { type: "string", minLength: 2, maxLength: 3 },
      accept: ['"ab"', '"😀😀"', '"a\\nb"'],
      reject: ['"a"', '"abcd"'],
    },
    {
      name: "pattern is a search, not a full match",
      schema: { type: "string", pattern: "[0-9]{3}" },
      accept: ['"ab123cd"', '"123"'],
      reject: ['"12"'],
    },
    {
      name: "anchored pattern",
      schema: { type: "string", pattern: "^[A-Z][a-z]*$" },
      accept: ['"Hello"'],
      reject: ['"hello"', '"Hello!"'],
    },
    {
      name: "alternatives with their own anchors",
      schema: { type: "string", pattern: "^a$|b$" },
      accept: ['"a"', '"xxb"'],
      reject: ['"ab!"', '"xa"'],
    },
    {
      name: "pattern with quotes and backslashes",
      schema: { type: "string", pattern: '^"[\\\\/]+"$' },
      accept: ['"\\"\\\\/\\""'],
      reject: ['"\\"x\\""'],
    },
    {
      name: "pattern and length together",
      schema: { type: "string", pattern: "^[a-z]+$", minLength: 2, maxLength: 4 },
      accept: ['"ab"', '"abcd"'],
      reject: ['"a"', '"abcde"', '"aB"'],
    },
    {
      name: "pattern with lookahead is relaxed, not rejected",
      schema: { type: "string", pattern: "^(?=.*[0-9])[a-z0-9]+$" },
      accept: ['"a1"', '"ab"'],
      reject: ['"A1"'],
    },
    {
      name: "format date",
      schema: { type: "string", format: "date" },
      accept: ['"2024-02-29"', '"2023-12-31"'],
      reject: ['"2023-02-29"', '"2024-04-31"', '"2024-1-01"'],
    },
    {
      name: "format time",
      schema: { type: "string", format: "time" },
      accept: ['"12:30:00Z"', '"23:59:59.123+02:00"'],
      reject: ['"24:00:00Z"', '"12:30"'],
    },
    {
      name: "format date-time",
      schema: { type: "string", format: "date-time" },
      accept: ['"2024-01-15T08:00:00Z"', '"2024-01-15t08:00:00.5-05:30"'],
      reject: ['"2024-01-15 08:00:00"', '"2024-01-15T08:00:00"'],
    },
    {
      name: "format uuid",
      schema: { type: "string", format: "uuid" },
      accept: ['"123e4567-e89b-12d3-a456-426614174000"'],
      reject: ['"123e4567e89b12d3a456426614174000"'],
    },
    {
      name: "format ipv4",
      schema: { type: "string", format: "ipv4" },
      accept: ['"192.168.0.255"'],
      reject: ['"256.1.1.1"', '"1.2.3"'],
    },
    {
      name: "format email (loose)",
      schema: { type: "string", format: "email" },
      accept: ['"a.b@example.com"'],
      reject: ['"no-at-sign"', '"a b@c"'],
    },
    {
      name: "not enum on strings",
      schema: { type: "string", not: { enum: ["no", "never"] } },
      accept: ['"yes"', '"nope"', '"n"'],
      reject: ['"no"', '"never"'],
    },
  ]);
});

describe("numbers", () => {
  run([
    {
      name: "integer range",
      schema: { type: "integer", minimum: -5, maximum: 120 },
      accept: ["-5", "0", "9", "99", "120"],
      reject: ["-6", "121", "1000", "-0.5"],
    },
    {
      name: "exclusive integer bounds (draft 6+)",
      schema: { type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 10 },
      accept: ["1", "9"],
      reject: ["0", "10"],
    },
    {
      name: "exclusive bounds (draft 4 booleans)",
      schema: { type: "integer", minimum: 0, exclusiveMinimum: true, maximum: 3, exclusiveMaximum: true },
      accept: ["1", "2"],
      reject: ["0", "3"],
    },
    {
      name: "integer with a fractional bound",
      schema: { type: "integer", minimum: 1.5 },
      accept: ["2", "1000000"],
      reject: ["1", "-3"],
    },
    {
      name: "number range",
      schema: { type: "number", minimum: 0.5, maximum: 2.25 },
      accept: ["0.5", "1", "2.25", "2.250", "0.75"],
      reject: ["0.49", "2.26", "-1", "3"],
    },
    {
      name: "number exclusive range",
      schema: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
      accept: ["0.5", "0.0001", "1e-05"],
      reject: ["0", "0.0", "1", "1.0"],
    },
    {
      name: "number minimum only: big exponents allowed",
      schema: { type: "number", minimum: 0 },
      accept: ["0", "1e+16", "3.5"],
      reject: ["-0.1", "-1e5"],
    },
    {
      name: "integer multipleOf",
      schema: { type: "integer", multipleOf: 3 },
      accept: ["0", "3", "12", "-9", "300"],
      reject: ["1", "10", "301"],
    },
    {
      name: "integer multipleOf within bounds",
      schema: { type: "integer", multipleOf: 5, minimum: 3, maximum: 27 },
      accept: ["5", "25"],
      reject: ["0", "30", "7"],
    },
    {
      name: "number multipleOf 0.01",
      schema: { type: "number", multipleOf: 0.01 },
      accept: ["1", "1.5", "1.25", "1.250"],
      reject: ["1.255"],
    },
  ]);

  test("integer ranges are exact across many bounds", () => {
    for (const [lo, hi] of [
      [0, 0],
      [7, 7],
      [-20, -3],
      [-120, 45],
      [99, 1001],
      [5, 995],
    ] as const) {
      const g = jsonSchemaToGbnf({ type: "integer", minimum: lo, maximum: hi });
      for (let v = lo - 30; v <= hi + 30; v++)
        expect({ v, ok: matchGbnf(g, String(v)).ok }).toEqual({ v, ok: v >= lo && v <= hi });
    }
  });

  test("decimal ranges are exact on sampled values", () => {
    const g = jsonSchemaToGbnf({ type: "number", minimum: -1.25, exclusiveMaximum: 3.5 });
    for (let i = -300; i <= 400; i += 7) {
      const v = i / 100;
      expect({ v, ok: matchGbnf(g, String(v)).ok }).toEqual({ v, ok: v >= -1.25 && v < 3.5 });
    }
  });
});

describe("combinators and references", () => {
  run([
    {
      name: "anyOf",
      schema: { anyOf: [{ type: "string" }, { type: "integer", minimum: 5 }] },
      accept: ['"x"', "5"],
      reject: ["4", "null"],
    },
    { name: "oneOf (as anyOf)", schema: { oneOf: [{ const: 1 }, { const: 2 }] }, accept: ["1", "2"], reject: ["3"] },
    {
      name: "anyOf with sibling properties",
      schema: {
        type: "object",
        properties: { kind: { type: "string" } },
        required: ["kind"],
        anyOf: [{ required: ["a"] }, { required: ["b"] }],
      },
      accept: ['{"kind": "k", "a": 1}', '{"kind": "k", "b": 1}'],
      reject: ['{"kind": "k"}'],
    },
    {
      name: "allOf merges properties and required",
      schema: {
        allOf: [
          { type: "object", properties: { a: { type: "integer" } }, required: ["a"] },
          { properties: { b: { type: "string" } }, required: ["b"] },
        ],
      },
      accept: ['{"a": 1, "b": "x"}'],
      reject: ['{"a": 1}', '{"b": "x"}'],
    },
    {
      name: "allOf: additionalProperties false of one branch applies to the other's keys",
      schema: { allOf: [{ properties: { a: {} }, additionalProperties: false }, { properties: { b: {} } }] },
      accept: ['{"a": 1}'],
      reject: ['{"a": 1, "b": 2}'],
    },
    {
      name: "allOf narrows numbers",
      schema: { allOf: [{ type: "integer", minimum: 0 }, { maximum: 3 }] },
      accept: ["0", "3"],
      reject: ["4", "-1"],
    },
    {
      name: "$defs and recursion",
      schema: {
        $defs: {
          node: {
            type: "object",
            properties: { v: { type: "integer" }, kids: { type: "array", items: { $ref: "#/$defs/node" } } },
            required: ["v"],
            additionalProperties: false,
          },
        },
        $ref: "#/$defs/node",
      },
      accept: ['{"v": 1, "kids": [{"v": 2}, {"v": 3, "kids": []}]}'],
      reject: ['{"v": 1, "kids": [{}]}'],
    },
    {
      name: "definitions, pointer escapes, root recursion",
      schema: {
        definitions: { "a/b": { type: "integer" } },
        type: "object",
        properties: { x: { $ref: "#/definitions/a~1b" }, self: { $ref: "#" } },
        additionalProperties: false,
      },
      accept: ['{"x": 1, "self": {"self": {}}}'],
      reject: ['{"x": "1"}', '{"self": {"x": true}}'],
    },
    {
      name: "$ref by $id and $anchor",
      schema: {
        $id: "https://example.com/root.json",
        $defs: { p: { $id: "positive.json", type: "integer", minimum: 1 }, s: { $anchor: "str", type: "string" } },
        type: "array",
        prefixItems: [{ $ref: "positive.json" }, { $ref: "#str" }],
      },
      accept: ['[1, "a"]'],
      reject: ['[0, "a"]', "[1, 2]"],
    },
    {
      name: "recursion through allOf in items",
      schema: {
        definitions: { t: { type: "array", items: { allOf: [{ $ref: "#/definitions/t" }] } } },
        $ref: "#/definitions/t",
      },
      accept: ["[[], [[]]]"],
      reject: ["[1]"],
    },
    { name: "not type", schema: { not: { type: ["string", "null"] } }, accept: ["1", "[]"], reject: ['"s"', "null"] },
    {
      name: "if/then/else on a discriminator",
      schema: {
        type: "object",
        properties: { kind: { enum: ["a", "b"] }, x: {}, y: {} },
        required: ["kind"],
        if: { properties: { kind: { const: "a" } } },
        then: { required: ["x"] },
        else: { required: ["y"] },
      },
      accept: ['{"kind": "a", "x": 1}', '{"kind": "b", "y": 1}', '{"kind": "b", "x": 0, "y": 1}'],
      reject: ['{"kind": "a", "y": 1}', '{"kind": "b", "x": 1}'],
    },
    {
      name: "if on a boolean flag",
      schema: { if: { properties: { on: { const: true } }, required: ["on"] }, then: { required: ["v"] } },
      accept: ['{"on": true, "v": 1}', '{"on": false}', "{}", "3"],
      reject: ['{"on": true}'],
    },
    {
      name: "draft-07: keywords beside $ref are ignored",
      schema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        definitions: { s: { type: "string" } },
        $ref: "#/definitions/s",
        maxLength: 1,
      },
      accept: ['"long"'],
      reject: ["1"],
    },
    {
      name: "draft-04: const and if/then are not keywords yet",
      schema: {
        $schema: "http://json-schema.org/draft-04/schema#",
        type: "object",
        properties: { k: { const: 1 } },
        if: { properties: { k: { const: 2 } } },
        then: { required: ["x"] },
      },
      accept: ['{"k": 5}', '{"k": 2}'],
      reject: ["[]"],
    },
    {
      name: "2020-12: keywords beside $ref apply",
      schema: { $defs: { s: { type: "string" } }, $ref: "#/$defs/s", maxLength: 1 },
      accept: ['"l"'],
      reject: ['"long"'],
    },
  ]);
});

describe("whitespace policy", () => {
  const schema = { type: "object", properties: { a: { type: "array", items: { type: "integer" } } } };
  run([
    {
      name: "flexible",
      schema,
      accept: ['{"a": [1, 2]}', '{"a":[1,2]}', '{\n    "a": [\n        1,\n        2\n    ]\n}'],
      reject: [' {"a": []}', '{"a": []} ', '{"a" :[]}', '{"a": [1 , 2]}'],
    },
    { name: "none", schema, options: { whitespace: "none" }, accept: ['{"a":[1,2]}'], reject: ['{"a": [1, 2]}'] },
    {
      name: "single",
      schema,
      options: { whitespace: "single" },
      accept: ['{"a": [1, 2]}', '{"a":[1,2]}'],
      reject: ['{\n"a": []}'],
    },
    {
      name: "spaced",
      schema: { ...schema, properties: { ...schema.properties, b: { type: "object" }, c: { enum: [{ x: [1, 2] }] } } },
      options: { whitespace: "spaced" },
      accept: ['{"a": [1, 2]}', '{"a": [], "b": {"k": [true, null]}}', '{"c": {"x": [1, 2]}}', "{}"],
      reject: ['{"a":[1,2]}', '{"a": [1,2]}', '{ "a": []}', '{"a": [] }', '{"a":  []}', '{"c": {"x":[1, 2]}}'],
    },
  ]);
});

describe("errors and relaxations", () => {
  test.each([
    [{ $ref: "#/definitions/missing" }, "#", "$ref"],
    [{ type: "object", properties: { a: { $ref: "other.json#/x" } } }, "#/properties/a", "$ref"],
    [{ type: "strnig" }, "#", "type"],
    [false, "#", "(schema)"],
    [{ type: "string", enum: [1, 2] }, "#", "enum"],
    [{ type: "integer", minimum: 5, maximum: 4 }, "#", "minimum/maximum"],
  ])("%j throws a SchemaError at %s (%s)", (schema, pointer, keyword) => {
    try {
      jsonSchemaToGbnf(schema as never);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(SchemaError);
      expect([(e as SchemaError).pointer, (e as SchemaError).keyword]).toEqual([pointer, keyword]);
    }
  });

  test.each([
    ["str", 'unknown type "str" (JSON Schema spells it "string")'],
    ["int", 'unknown type "int" (JSON Schema spells it "integer")'],
    ["float", 'unknown type "float" (JSON Schema spells it "number")'],
    ["Boolean", 'unknown type "Boolean" (JSON Schema spells it "boolean")'],
    ["strnig", 'unknown type "strnig"'],
  ])("a type named %j says how JSON Schema spells it", (type, message) => {
    const convert = () => jsonSchemaToGbnf({ type: "object", properties: { a: { type } } });
    expect(convert).toThrow(SchemaError);
    expect(convert).toThrow(message.endsWith(")") ? message : new RegExp(`${message}$`));
  });

  test("relaxations are reported with their pointer, or thrown in strict mode", () => {
    const schema = {
      type: "object",
      properties: {
        tags: { type: "array", uniqueItems: true },
        kind: {
          oneOf: [
            { type: "string", pattern: "^a" },
            { type: "string", pattern: "b$" },
          ],
        },
      },
    };
    const seen: Relaxation[] = [];
    jsonSchemaToGbnf(schema, { onRelaxation: (r) => seen.push(r) });
    expect(seen.map((r) => [r.kind, r.pointer])).toEqual(
      expect.arrayContaining([
        ["uniqueItems", "#/properties/tags"],
        ["oneOf", "#/properties/kind"],
      ]),
    );
    expect(() => jsonSchemaToGbnf(schema, { strict: true })).toThrow(SchemaError);
    // Restrictions (here: property order) never make strict mode throw.
    expect(() =>
      jsonSchemaToGbnf({ type: "object", properties: { a: {}, b: {} } }, { strict: true, propertyOrder: "schema" }),
    ).not.toThrow();
  });

  test("bad options are TypeError/RangeError naming the option", () => {
    expect(() => jsonSchemaToGbnf({}, { whitespace: "lots" as never })).toThrow(/whitespace/);
    expect(() => jsonSchemaToGbnf({}, { propertyOrder: "random" as never })).toThrow(/propertyOrder/);
    expect(() => jsonSchemaToGbnf(null as never)).toThrow(TypeError);
  });
});
