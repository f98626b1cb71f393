// Grammars derived from the same inputs are reused: jsonSchemaToGbnf and pegToGbnf keep their
// results in LRU caches keyed by content (contentKey), so a request that sends the same schema or
// tools again (in new objects) skips the conversion, and a schema changed after use is converted
// again. Hits are counted through the caches' stats, never timed. The ajv validators of tool
// arguments and answers are kept by content the same way.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate, generateChatParams } from "../../src/chat/index.js";
import { checkStrictSchema } from "../../src/chat/tool-schema.js";
import { contentKey } from "../../src/grammar/content-key.js";
import { LruCache } from "../../src/grammar/lru-cache.js";
import type { Relaxation } from "../../src/grammar/schema/schema-error.js";
import { jsonSchemaToGbnf, schemaGbnfCacheStats } from "../../src/grammar/schema/schema-to-gbnf.js";
import { pegGbnfCacheStats } from "../../src/peg/peg-gbnf.js";
import { closedSchema } from "../../src/session/closed-schema.js";
import { schemaValidator } from "../../src/session/schema-validators.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { JsonSchema, ToolDefinition } from "../../src/types.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

class Point {
  x = 1;
}
const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;

describe("contentKey", () => {
  const SAME: Array<[string, unknown, unknown]> = [
    [
      "nested objects built apart",
      { type: "object", properties: { a: { type: "string" } } },
      JSON.parse('{"type":"object","properties":{"a":{"type":"string"}}}'),
    ],
    ["arrays", [1, "x", null, true], [1, "x", null, true]],
    ["integer-like keys (JS orders them)", { 2: "b", 1: "a" }, { 1: "a", 2: "b" }],
    ["an object without prototype", Object.assign(Object.create(null), { a: 1 }), { a: 1 }],
    [
      "a shared subobject seen twice (not a cycle)",
      (() => {
        const s = { t: 1 };
        return [s, s];
      })(),
      [{ t: 1 }, { t: 1 }],
    ],
  ];
  it.each(SAME)("equal content, equal keys: %s", (_name, a, b) => {
    expect(contentKey(a)).toBeDefined();
    expect(contentKey(a)).toBe(contentKey(b));
  });

  const DIFFERENT: Array<[string, unknown, unknown]> = [
    ["key order (property order shapes grammars)", { a: 1, b: 2 }, { b: 2, a: 1 }],
    ["0 and -0", { m: 0 }, { m: -0 }],
    ["NaN and null", [Number.NaN], [null]],
    ["Infinity and null", [Number.POSITIVE_INFINITY], [null]],
    ["an undefined member and none", { a: undefined }, {}],
    ["a string and a number", ["1"], [1]],
    ["a string with a quote", ['a","b'], ["a", "b"]],
    ["a key with a colon", { "a:": "b" }, { a: ":b" }],
    ["a deep change", { p: { q: [1, { r: 2 }] } }, { p: { q: [1, { r: 3 }] } }],
    ["an array and an object", [1], { 0: 1 }],
  ];
  it.each(DIFFERENT)("different content, different keys: %s", (_name, a, b) => {
    expect(contentKey(a)).not.toBe(contentKey(b));
  });

  const NOT_PLAIN: Array<[string, unknown]> = [
    ["a function", { f: () => 1 }],
    ["a Map", { m: new Map() }],
    ["a class instance", [new Point()]],
    ["a Date", { d: new Date(0) }],
    ["a RegExp", { r: /x/ }],
    ["a bigint", { n: 1n }],
    ["a symbol", [Symbol("s")]],
    ["a cycle", cyclic],
  ];
  it.each(NOT_PLAIN)("no key for %s", (_name, value) => {
    expect(contentKey(value)).toBeUndefined();
  });
});

describe("LruCache", () => {
  it("drops the least recently used entry past maxEntries", () => {
    const c = new LruCache<number>(2, 1000);
    c.set("a", 1, 1);
    c.set("b", 2, 1);
    expect(c.get("a")).toBe(1); // a is now the most recent
    c.set("c", 3, 1);
    expect(c.get("b")).toBeUndefined();
    expect(c.get("a")).toBe(1);
    expect(c.get("c")).toBe(3);
    expect(c.stats()).toEqual({ hits: 3, misses: 1, entries: 2, weight: 4 });
  });

  it("stays within maxWeight (keys count) and keeps nothing heavier than it", () => {
    const c = new LruCache<string>(100, 10);
    c.set("a", "x", 4);
    c.set("b", "y", 4);
    expect(c.stats()).toMatchObject({ entries: 2, weight: 10 });
    c.set("c", "z", 4);
    expect(c.stats()).toMatchObject({ entries: 2, weight: 10 });
    expect(c.get("a")).toBeUndefined();
    c.set("d", "too heavy", 10);
    expect(c.get("d")).toBeUndefined();
    expect(c.get("c")).toBe("z");
  });

  it("replaces a key's value and weight", () => {
    const c = new LruCache<number>(10, 100);
    c.set("k", 1, 50);
    c.set("k", 2, 10);
    expect(c.get("k")).toBe(2);
    expect(c.stats()).toMatchObject({ entries: 1, weight: 11 });
  });

  it.each([
    [-1, 10],
    [1.5, 10],
    [10, -1],
    [10, Number.NaN],
  ])("refuses maxEntries %s, maxWeight %s", (entries, weight) => {
    expect(() => new LruCache(entries, weight)).toThrow(RangeError);
  });
});

/** A schema nobody else in this file converts (the caches are per process). */
function uniqueSchema(tag: string): Record<string, unknown> {
  return {
    type: "object",
    properties: { [`${tag}_name`]: { type: "string", maxLength: 8 }, [`${tag}_n`]: { type: "integer", minimum: 0 } },
    required: [`${tag}_name`],
  };
}

describe("jsonSchemaToGbnf reuses its result for the same content", () => {
  it("converts once for a schema sent twice in new objects", () => {
    const before = schemaGbnfCacheStats();
    const a = jsonSchemaToGbnf(uniqueSchema("twice"));
    const b = jsonSchemaToGbnf(structuredClone(uniqueSchema("twice")) as JsonSchema);
    const after = schemaGbnfCacheStats();
    expect(after.misses - before.misses).toBe(1);
    expect(after.hits - before.hits).toBe(1);
    expect(b).toBe(a);
    expect(a).toContain("twice_name");
  });

  it("converts again a schema changed after use", () => {
    const schema = uniqueSchema("mutated");
    const first = jsonSchemaToGbnf(schema as JsonSchema);
    (schema.properties as Record<string, unknown>).mutated_extra = { type: "boolean" };
    const before = schemaGbnfCacheStats();
    const second = jsonSchemaToGbnf(schema as JsonSchema);
    expect(schemaGbnfCacheStats().misses - before.misses).toBe(1);
    expect(second).not.toBe(first);
    expect(second).toContain("mutated_extra");
  });

  it("keeps options apart", () => {
    const schema = uniqueSchema("options") as JsonSchema;
    const results = [
      jsonSchemaToGbnf(schema),
      jsonSchemaToGbnf(schema, { propertyOrder: "schema" }),
      jsonSchemaToGbnf(schema, { whitespace: "none" }),
      jsonSchemaToGbnf(schema, { additionalProperties: false }),
    ];
    expect(new Set(results).size).toBe(results.length);
    const before = schemaGbnfCacheStats();
    expect(jsonSchemaToGbnf(schema, { propertyOrder: "schema" })).toBe(results[1]);
    expect(schemaGbnfCacheStats().hits - before.hits).toBe(1);
  });

  it("reports the same relaxations on a hit as on the first conversion", () => {
    const schema = {
      type: "array",
      items: { type: "string" },
      uniqueItems: true,
      minItems: 1,
      description: "relaxed-twice",
    } as JsonSchema;
    const first: Relaxation[] = [];
    const second: Relaxation[] = [];
    const before = schemaGbnfCacheStats();
    jsonSchemaToGbnf(schema, { onRelaxation: (r) => first.push(r) });
    jsonSchemaToGbnf(structuredClone(schema), { onRelaxation: (r) => second.push(r) });
    expect(schemaGbnfCacheStats().hits - before.hits).toBe(1);
    expect(first.length).toBeGreaterThan(0);
    expect(second).toEqual(first);
  });

  it("converts, without caching, a schema that is not plain data", () => {
    const schema = { ...uniqueSchema("notplain"), default: new Point() } as unknown as JsonSchema;
    const before = schemaGbnfCacheStats();
    const a = jsonSchemaToGbnf(schema);
    const b = jsonSchemaToGbnf(schema);
    expect(b).toBe(a);
    expect(schemaGbnfCacheStats()).toMatchObject({ hits: before.hits, misses: before.misses });
  });

  it("does not keep a failure", () => {
    const before = schemaGbnfCacheStats();
    for (let i = 0; i < 2; i++)
      expect(() =>
        jsonSchemaToGbnf({ type: "array", uniqueItems: true, items: { type: "string" } }, { strict: true }),
      ).toThrow(/uniqueItems/);
    expect(schemaGbnfCacheStats().hits).toBe(before.hits);
  });
});

describe("chat grammars reuse the PEG → GBNF conversion", () => {
  const source = readFileSync(join(TEMPLATES_DIR, "Qwen-Qwen3-0.6B.jinja"), "utf8");
  const template = new ChatTemplate(source);
  const analysis = analyzeChatTemplate(source, { template });
  const tools = (tag: string): ToolDefinition[] => [
    { type: "function", function: { name: `${tag}_lookup`, parameters: uniqueSchema(tag) as JsonSchema } },
  ];
  const request = (t: ToolDefinition[]) => ({ messages: [{ role: "user" as const, content: "hi" }], tools: t });

  it("the same tools in new objects: one conversion, the same grammar", () => {
    const before = pegGbnfCacheStats();
    const a = generateChatParams(analysis, template, request(tools("chat_same")));
    const mid = pegGbnfCacheStats();
    const b = generateChatParams(analysis, template, request(tools("chat_same")));
    const after = pegGbnfCacheStats();
    expect(mid.misses - before.misses).toBeGreaterThan(0);
    expect(after.misses - mid.misses).toBe(0);
    expect(after.hits - mid.hits).toBe(mid.misses - before.misses);
    expect(b.grammar).toBe(a.grammar);
    expect(b.grammarTriggers).toEqual(a.grammarTriggers);
    expect(b.grammarTriggers).not.toBe(a.grammarTriggers);
  });

  it("tools changed after use give their own grammar", () => {
    const t = tools("chat_changed");
    const a = generateChatParams(analysis, template, request(t));
    const params = t[0]!.function.parameters as Record<string, Record<string, unknown>>;
    params.properties!.chat_changed_extra = { type: "boolean" };
    const before = pegGbnfCacheStats();
    const b = generateChatParams(analysis, template, request(t));
    expect(pegGbnfCacheStats().misses - before.misses).toBeGreaterThan(0);
    expect(a.grammar).not.toContain("chat_changed_extra");
    expect(b.grammar).toContain("chat_changed_extra");
  });

  it("tool_choice and response formats do not share grammars", () => {
    const t = tools("chat_choice");
    const auto = generateChatParams(analysis, template, request(t));
    const required = generateChatParams(analysis, template, { ...request(t), toolChoice: "required" });
    expect(auto.grammarLazy).toBe(true);
    expect(required.grammarLazy).toBe(false);
    expect(required.grammar).not.toBe(auto.grammar);
  });
});

describe("checkStrictSchema checks by content", () => {
  it("checks again a schema changed after it passed", () => {
    const schema: Record<string, unknown> = { type: "array", items: { type: "string" } };
    expect(() => checkStrictSchema(schema as JsonSchema, "tools[0]")).not.toThrow();
    schema.uniqueItems = true;
    expect(() => checkStrictSchema(schema as JsonSchema, "tools[0]")).toThrow(/uniqueItems/);
  });
});

describe("argument and answer validators are kept by content", () => {
  const schema = (): JsonSchema => ({
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer" } },
    required: ["city"],
  });

  it("the same schema in new objects gets the same compiled validator", () => {
    const a = schemaValidator(schema());
    const b = schemaValidator(structuredClone(schema()));
    expect(typeof a).toBe("function");
    expect(b).toBe(a);
  });

  it("a schema changed after use is compiled again", () => {
    const s = schema() as Record<string, unknown>;
    const first = schemaValidator(s as JsonSchema) as (x: unknown) => boolean;
    expect(first({ city: "Paris", days: 2 })).toBe(true);
    (s.properties as Record<string, unknown>).days = { type: "string" };
    const changed = schemaValidator(s as JsonSchema) as (x: unknown) => boolean;
    expect(changed).not.toBe(first);
    expect(changed({ city: "Paris", days: 2 })).toBe(false);
    expect(changed({ city: "Paris", days: "2" })).toBe(true);
  });

  it("a strict variant is its own entry (objects closed)", () => {
    const open = schemaValidator(schema()) as (x: unknown) => boolean;
    const strict = schemaValidator(schema(), "strict", closedSchema) as (x: unknown) => boolean;
    expect(strict).not.toBe(open);
    expect(open({ city: "Paris", extra: 1 })).toBe(true);
    expect(strict({ city: "Paris", extra: 1 })).toBe(false);
    expect(schemaValidator(schema(), "strict", closedSchema)).toBe(strict);
  });

  it("a schema with its own $id, seen twice, still compiles; a broken one gives its error each time", () => {
    const withId = { $id: "https://example.com/s", type: "string" } as JsonSchema;
    expect(typeof schemaValidator(withId)).toBe("function");
    expect(typeof schemaValidator({ ...(withId as object), minLength: 1 } as JsonSchema)).toBe("function");
    const broken = { type: "object", properties: { a: { $ref: "#/nowhere" } } } as JsonSchema;
    expect(schemaValidator(broken)).toBeInstanceOf(Error);
    expect(schemaValidator(structuredClone(broken))).toBeInstanceOf(Error);
  });
});
