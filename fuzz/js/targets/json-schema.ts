// Fuzz target: the JSON Schema → GBNF converter (src/grammar/schema/). The input is a schema as
// JSON text (inputs that are not JSON are skipped); two option bits pick the property order and
// strict mode. Expected: a grammar or a SchemaError. Findings: any other exception, and a grammar
// that our own GBNF parser and compiler refuse (the converter must only emit valid GBNF).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { compileGbnf, jsonSchemaToGbnf, SchemaError } from "../../../src/grammar/index.js";
import { expectOnly, InvariantBroken } from "../expect.js";

const ORDERS = ["any", "schema", "required-first"] as const;

export function fuzz(data: Buffer): void {
  let schema: unknown;
  try {
    schema = JSON.parse(data.toString("utf8"));
  } catch {
    return;
  }
  const bits = data.length;
  let gbnf: string;
  try {
    gbnf = jsonSchemaToGbnf(schema as never, { propertyOrder: ORDERS[bits % 3]!, strict: (bits & 4) !== 0 });
  } catch (e) {
    expectOnly(e, [SchemaError]);
    return;
  }
  try {
    compileGbnf(gbnf);
  } catch (e) {
    throw new InvariantBroken(`the converter emitted GBNF that does not compile: ${(e as Error).message}\n${gbnf}`);
  }
}

/** The schemas of MaskBench-dev (shared data), smallest first, and a few of every keyword family. */
export function seeds(_root: string, shared: string): [string, Uint8Array][] {
  const out: [string, Uint8Array][] = [];
  const dir = join(shared, "maskbench-dev");
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {}
  for (const n of names) {
    const entry = JSON.parse(readFileSync(join(dir, n), "utf8")) as { schema?: unknown };
    const text = JSON.stringify(entry.schema ?? entry);
    if (text.length <= 4096) out.push([n, Buffer.from(text)]);
  }
  for (const [i, s] of BUILT_IN.entries()) out.push([`built-in-${i}.json`, Buffer.from(JSON.stringify(s))]);
  return out;
}

const BUILT_IN: unknown[] = [
  { type: "string", pattern: "^[a-z]+(-[0-9]{2,4})?$", minLength: 2, maxLength: 9 },
  { type: "string", format: "date-time" },
  { type: "integer", minimum: -5, maximum: 120, multipleOf: 5 },
  { type: "number", exclusiveMinimum: 0.5 },
  { type: "array", items: { type: "boolean" }, minItems: 1, maxItems: 3, uniqueItems: true },
  { type: "array", prefixItems: [{ const: 1 }, { enum: ["a", null] }], items: false },
  { anyOf: [{ type: "null" }, { $ref: "#/$defs/node" }], $defs: { node: { type: "object" } } },
  { oneOf: [{ type: "integer" }, { type: "string", maxLength: 2 }] },
  { not: { type: "string" } },
  { type: "object", properties: { a: { type: "string" } }, dependentRequired: { a: ["b"] } },
  { type: "object", patternProperties: { "^x-": { type: "integer" } }, additionalProperties: false },
  { type: "object", propertyNames: { pattern: "^[a-c]$" }, minProperties: 1, maxProperties: 2 },
  { allOf: [{ type: "object", required: ["a"] }, { properties: { a: { const: "x" } } }] },
  { if: { properties: { k: { const: 1 } } }, then: { required: ["v"] }, else: { required: ["w"] } },
];
