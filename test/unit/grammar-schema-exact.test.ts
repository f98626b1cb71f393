import { Ajv } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { describe, expect, test } from "vitest";
import {
  type Relaxation,
  type SchemaToGbnfOptions,
  jsonSchemaToGbnf,
  matchGbnf,
  parseGbnf,
} from "../../src/grammar/index.js";

// Keywords the converter makes exact: each case lists instances the grammar must accept and
// must reject; ajv (the validator the session uses) confirms every label, and the conversion
// must report no superset relaxation for the keyword.
interface Case {
  name: string;
  schema: Record<string, unknown>;
  accept: string[];
  reject: string[];
  options?: SchemaToGbnfOptions;
  /** Rejected on purpose though valid JSON Schema instances (a restriction, or keys JSON.parse would merge). */
  rejectValid?: boolean;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const ajv2019 = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });

function run(cases: Case[], exactKinds: Relaxation["kind"][]): void {
  test.each(cases.map((c) => [c.name, c] as const))("%s", (_, c) => {
    const seen: Relaxation[] = [];
    const g = jsonSchemaToGbnf(c.schema as never, { ...c.options, onRelaxation: (r) => seen.push(r) });
    expect(() => parseGbnf(g)).not.toThrow();
    const source = JSON.stringify(c.schema);
    const validate = /"format"/.test(source) ? null : (/"dependent/.test(source) ? ajv2019 : ajv).compile(c.schema);
    for (const text of c.accept) {
      if (validate) expect({ text, valid: validate(JSON.parse(text)) }).toEqual({ text, valid: true });
      expect({ text, ok: matchGbnf(g, text).ok }).toEqual({ text, ok: true });
    }
    for (const text of c.reject) {
      if (validate && !c.rejectValid)
        expect({ text, valid: validate(JSON.parse(text)) }).toEqual({ text, valid: false });
      expect({ text, ok: matchGbnf(g, text).ok }).toEqual({ text, ok: false });
    }
    expect(seen.filter((r) => exactKinds.includes(r.kind))).toEqual([]);
  });
}

describe("propertyOrder", () => {
  const schema = {
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "string" }, c: { type: "boolean" } },
    required: ["b"],
    additionalProperties: false,
  };
  const all = [
    '{"a": 1, "b": "x", "c": true}',
    '{"c": true, "b": "x", "a": 1}',
    '{"b": "x", "a": 1}',
    '{"a": 1, "c": true, "b": "x"}',
  ];
  const orders: [SchemaToGbnfOptions["propertyOrder"], boolean[]][] = [
    ["any", [true, true, true, true]],
    [undefined, [true, true, true, true]],
    ["schema", [true, false, false, false]],
    ["required-first", [false, false, true, false]],
  ];
  test.each(orders)("propertyOrder %s", (propertyOrder, expected) => {
    const g = jsonSchemaToGbnf(schema as never, propertyOrder ? { propertyOrder } : {});
    expect(all.map((t) => matchGbnf(g, t).ok)).toEqual(expected);
  });

  run(
    [
      {
        name: "any order: no repeated key, required enforced",
        schema,
        rejectValid: true,
        accept: ['{"b": "x"}', '{"c": false, "b": ""}'],
        reject: ['{"b": "x", "b": "y"}', '{"a": 1, "b": "x", "a": 2}', '{"a": 1}', "{}"],
      },
      {
        name: "any order with extra properties anywhere",
        rejectValid: true,
        schema: {
          type: "object",
          properties: { a: { type: "integer" }, b: { type: "string" } },
          additionalProperties: { type: "null" },
        },
        accept: ['{"z": null, "b": "x", "y": null, "a": 1}', "{}"],
        reject: ['{"z": 1}', '{"a": 1, "a": 1}'],
      },
      {
        name: "required-first: optional keys after the required ones",
        schema: { ...schema, required: ["c"] },
        options: { propertyOrder: "required-first" },
        rejectValid: true,
        accept: ['{"c": true, "a": 1, "b": "x"}', '{"c": true}'],
        reject: ['{"a": 1, "c": true}'],
      },
    ],
    ["duplicateKeys"],
  );

  test("more members than tracked as a set: any order still, repeated keys reported", () => {
    const props = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, { type: "integer" }]));
    const seen: Relaxation[] = [];
    const g = jsonSchemaToGbnf({ type: "object", properties: props, required: ["k0"] } as never, {
      onRelaxation: (r) => seen.push(r),
    });
    expect(matchGbnf(g, '{"k8": 1, "k0": 2}').ok).toBe(true);
    expect(matchGbnf(g, '{"k8": 1}').ok).toBe(false);
    expect(seen.map((r) => r.kind)).toContain("duplicateKeys");
  });
});

test("strict: any order is exact (a set) up to 8 members, an error beyond", () => {
  const object = (n: number) => ({
    type: "object",
    properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, { type: "integer" }])),
  });
  const g = jsonSchemaToGbnf(object(7) as never, { strict: true });
  expect(matchGbnf(g, '{"k6": 1, "k0": 2}').ok).toBe(true);
  expect(matchGbnf(g, '{"k6": 1, "k6": 2}').ok).toBe(false);
  expect(() => jsonSchemaToGbnf(object(10) as never, { strict: true })).toThrow(/key may repeat|repeat/);
  expect(() => jsonSchemaToGbnf(object(10) as never, { strict: true, propertyOrder: "schema" })).not.toThrow();
});

describe("minProperties / maxProperties by counting", () => {
  run(
    [
      {
        name: "maxProperties with extra properties",
        schema: { type: "object", additionalProperties: { type: "integer" }, maxProperties: 2 },
        accept: ["{}", '{"a": 1}', '{"a": 1, "b": 2}'],
        reject: ['{"a": 1, "b": 2, "c": 3}'],
      },
      { name: "maxProperties 0", schema: { type: "object", maxProperties: 0 }, accept: ["{}"], reject: ['{"a": 1}'] },
      {
        name: "minProperties over optional members, schema order",
        schema: { type: "object", properties: { a: {}, b: {}, c: {} }, additionalProperties: false, minProperties: 2 },
        options: { propertyOrder: "schema" },
        accept: ['{"a": 1, "c": 3}', '{"a": 1, "b": 2, "c": 3}'],
        reject: ['{"b": 2}', "{}"],
      },
      {
        name: "min and max in any order with extras",
        schema: { type: "object", properties: { a: {}, b: {} }, required: ["a"], minProperties: 2, maxProperties: 3 },
        accept: ['{"x": 0, "a": 1}', '{"b": 2, "a": 1, "y": 0}'],
        reject: ['{"a": 1}', '{"a": 1, "b": 2, "x": 0, "y": 0}'],
      },
    ],
    ["propertyCount"],
  );
});

describe("oneOf exclusivity", () => {
  run(
    [
      {
        name: "branches told apart by required keys",
        schema: {
          type: "object",
          properties: { side: { type: "integer" }, radius: { type: "integer" } },
          oneOf: [{ required: ["side"] }, { required: ["radius"] }],
        },
        accept: ['{"side": 1}', '{"radius": 2}'],
        reject: ['{"side": 1, "radius": 2}', "{}"],
      },
      {
        name: "branches with typed properties",
        schema: {
          type: "object",
          oneOf: [
            { properties: { login: { type: "string" } }, required: ["login"] },
            { properties: { password: { type: "string" } }, required: ["password"] },
          ],
        },
        accept: ['{"login": "a"}', '{"password": "b"}', '{"login": 1, "password": "b"}'],
        reject: ['{"login": "a", "password": "b"}', '{"login": 1}'],
      },
      {
        name: "disjoint branches need no negation",
        schema: {
          oneOf: [
            { type: "string" },
            { type: "integer" },
            { properties: { kind: { const: "a" } }, required: ["kind"], type: "object" },
          ],
        },
        accept: ['"s"', "3", '{"kind": "a"}'],
        reject: ["true", '{"kind": "b"}'],
      },
      {
        name: "overlapping numeric ranges",
        schema: { type: "integer", oneOf: [{ minimum: 0 }, { maximum: 10 }] },
        accept: ["-5", "11"],
        reject: ["0", "5", "10"],
      },
    ],
    ["oneOf"],
  );
});

describe("not", () => {
  run(
    [
      {
        name: "not both keys",
        schema: { type: "object", not: { required: ["body", "bodyValue"] } },
        accept: ['{"body": 1}', "{}"],
        reject: ['{"body": 1, "bodyValue": 2}'],
      },
      {
        name: "not a typed property",
        schema: { type: "object", not: { properties: { a: { type: "string" } }, required: ["a"] } },
        accept: ["{}", '{"a": 1}'],
        reject: ['{"a": "s"}'],
      },
      {
        name: "not a length bound",
        schema: { type: "string", not: { minLength: 3 } },
        accept: ['"ab"'],
        reject: ['"abc"'],
      },
      {
        name: "not anyOf",
        schema: { type: "integer", not: { anyOf: [{ minimum: 10 }, { maximum: 0 }] } },
        accept: ["5", "1", "9"],
        reject: ["0", "10", "-3"],
      },
    ],
    ["not"],
  );
});

describe("if / then / else", () => {
  run(
    [
      {
        name: "if on a numeric bound",
        schema: { type: "integer", if: { minimum: 10 }, then: { maximum: 20 }, else: { maximum: 5 } },
        accept: ["10", "20", "5", "-1"],
        reject: ["21", "7"],
      },
      {
        name: "if on a type",
        schema: { if: { type: "string" }, then: { minLength: 2 }, else: { type: "integer" } },
        accept: ['"ab"', "3"],
        reject: ['"a"', "true"],
      },
    ],
    ["ifThenElse"],
  );
});

describe("dependencies by branching", () => {
  run(
    [
      {
        name: "dependentRequired",
        schema: { type: "object", properties: { card: {}, billing: {} }, dependentRequired: { card: ["billing"] } },
        accept: ["{}", '{"billing": 1}', '{"card": 1, "billing": 2}'],
        reject: ['{"card": 1}'],
      },
      {
        name: "draft-4 dependencies, key list and schema",
        schema: {
          type: "object",
          dependencies: { a: ["b"], c: { properties: { d: { type: "integer" } }, required: ["d"] } },
        },
        accept: ['{"a": 1, "b": 2}', '{"c": 1, "d": 2}', '{"d": "x"}'],
        reject: ['{"a": 1}', '{"c": 1}', '{"c": 1, "d": "x"}'],
      },
      {
        name: "schema dependency leaves non-objects alone",
        schema: { type: ["object", "string"], dependentSchemas: { a: { required: ["b"] } } },
        accept: ['"s"', '{"a": 1, "b": 1}'],
        reject: ['{"a": 1}'],
      },
    ],
    ["dependencies"],
  );
});

describe("uniqueItems over small value sets", () => {
  run(
    [
      {
        name: "enum items",
        schema: { type: "array", uniqueItems: true, items: { enum: ["red", "green", "blue"] } },
        accept: ["[]", '["red"]', '["blue", "red", "green"]'],
        reject: ['["red", "red"]', '["red", "green", "red"]', '["pink"]'],
      },
      {
        name: "booleans",
        schema: { type: "array", uniqueItems: true, items: { type: "boolean" } },
        accept: ["[true, false]"],
        reject: ["[true, true]", "[false, true, false]"],
      },
      {
        name: "with counts",
        schema: { type: "array", uniqueItems: true, items: { enum: [1, 2, 3] }, minItems: 2, maxItems: 2 },
        accept: ["[1, 3]", "[3, 2]"],
        reject: ["[1]", "[1, 1]", "[1, 2, 3]"],
      },
    ],
    ["uniqueItems"],
  );

  test("items from an infinite language stay relaxed and reported", () => {
    const seen: Relaxation[] = [];
    const g = jsonSchemaToGbnf(
      { type: "array", uniqueItems: true, items: { type: "string" } },
      { onRelaxation: (r) => seen.push(r) },
    );
    expect(matchGbnf(g, '["a", "a"]').ok).toBe(true);
    expect(seen.map((r) => r.kind)).toEqual(["uniqueItems"]);
  });
});

describe("multipleOf", () => {
  run(
    [
      {
        name: "cents from zero up",
        schema: { type: "number", multipleOf: 0.01, minimum: 0 },
        accept: ["0", "0.5", "10.01", "3.990", "12", "0.00"],
        reject: ["10.001", "-1", "0.001"],
      },
      {
        name: "tenths in (0, 100]",
        schema: { type: "number", multipleOf: 0.1, exclusiveMinimum: 0, maximum: 100 },
        accept: ["0.1", "99.9", "100", "100.00", "5"],
        reject: ["0", "0.0", "100.1", "101", "0.05"],
      },
      {
        name: "integers mod 7",
        schema: { type: "integer", multipleOf: 7 },
        accept: ["0", "14", "-21", "700"],
        reject: ["1", "15", "-22"],
      },
    ],
    ["multipleOf"],
  );
});

describe("formats", () => {
  const fmt = (format: string, accept: string[], reject: string[]): Case => ({
    name: `format ${format}`,
    schema: { type: "string", format },
    accept: accept.map((s) => JSON.stringify(s)),
    reject: reject.map((s) => JSON.stringify(s)),
  });
  run(
    [
      fmt(
        "ipv6",
        ["::1", "2001:db8::8a2e:370:7334", "::ffff:192.0.2.1", "1:2:3:4:5:6:7:8", "::"],
        ["1:2:3:4:5:6:7:8:9", "12345::", "1::2::3", ":1"],
      ),
      fmt(
        "uri",
        ["http://example.com/a?b=c#d", "urn:isbn:0451450523", "mailto:a@b.c", "http://[::1]:80/"],
        ["example.com", "http://a b", "/relative", "1http://x"],
      ),
      fmt("uri-reference", ["/relative/path", "../x", "http://e.com", "", "#frag"], ["a b", "http://x y"]),
      fmt("iri", ["http://例え.jp/パス"], ["例え.jp"]),
      fmt(
        "uri-template",
        ["http://example.com/{id}", "/users{/id}{?q,lang}", "{+path:6}/here"],
        ["http://example.com/resource/{", "{a b}", "{}"],
      ),
      fmt("duration", ["P3Y6M4DT12H30M5S", "PT20M", "P1W", "P1D"], ["P", "PT", "1D", "P1H", "P1DT"]),
      fmt(
        "email",
        ["john.doe@example.com", "a+b@[192.168.0.1]", '"a b"@x.org'],
        ["a@", "@b.c", "a..b@c.d", "a b@c.d", "a@b@c"],
      ),
      fmt("json-pointer", ["", "/a/b", "/a~1b"], ["a", "/~2"]),
      fmt("relative-json-pointer", ["0", "1/a", "2#"], ["-1", "01", "/a"]),
    ],
    [],
  );

  test("formats with a loose shape are reported, unknown ones ignored and reported", () => {
    const seen: Relaxation[] = [];
    jsonSchemaToGbnf(
      {
        type: "object",
        properties: { h: { type: "string", format: "hostname" }, x: { type: "string", format: "no-such-format" } },
      },
      { onRelaxation: (r) => seen.push(r) },
    );
    expect(seen.filter((r) => r.kind === "format").map((r) => r.detail)).toEqual([
      expect.stringContaining("253"),
      expect.stringContaining("no-such-format"),
    ]);
  });
});
