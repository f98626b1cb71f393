/**
 * OpenAPI 3.0's `nullable: true` in JSON Schema terms. Tool schemas written for OpenAPI (Gemini's
 * function declarations, transformers' `get_json_schema` and smolagents for an `Optional` parameter)
 * mark a value that may also be null with it. ajv, which checks tool arguments, reads it that way;
 * the grammar and the parser read the rewritten schema, so that a null the check accepts can be
 * written and is read as null. Where a subschema gives no `type`, the keyword has no effect
 * (OpenAPI 3.0.3) and is dropped: ajv would refuse such a schema outright.
 */
import type { JsonSchema } from "../../types.js";

/** Keywords whose value is one subschema. */
const ONE = [
  "additionalProperties",
  "additionalItems",
  "items",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
] as const;
/** Keywords whose value is a list of subschemas. */
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems", "items"] as const;
/** Keywords whose value maps names to subschemas (`dependencies` may also map to lists of names). */
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"] as const;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** `values` mapped by `f`; the same array when nothing changed. */
function mapList(values: unknown[], f: (v: unknown) => unknown): unknown[] {
  const out = values.map(f);
  return out.every((v, i) => v === values[i]) ? values : out;
}

/** `o`'s values mapped by `f`; the same object when nothing changed. */
function mapValues(o: Obj, f: (v: unknown) => unknown): Obj {
  let out: Obj | null = null;
  for (const [k, v] of Object.entries(o)) {
    const w = f(v);
    if (w !== v) (out ??= { ...o })[k] = w;
  }
  return out ?? o;
}

function rewrite(s: unknown): unknown {
  if (!isObj(s)) return s;
  let out: Obj | null = null;
  const set = (key: string, value: unknown): void => {
    if (value !== s[key]) (out ??= { ...s })[key] = value;
  };
  for (const key of ONE) if (isObj(s[key])) set(key, rewrite(s[key]));
  for (const key of LIST) if (Array.isArray(s[key])) set(key, mapList(s[key] as unknown[], rewrite));
  for (const key of MAP) if (isObj(s[key])) set(key, mapValues(s[key] as Obj, rewrite));
  if (!("nullable" in s)) return out ?? s;
  const result: Obj = out ?? { ...s };
  delete result.nullable;
  if (s.nullable === true && s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.includes("null")) result.type = [...types, "null"];
  }
  return result;
}

/**
 * `schema` with every OpenAPI `nullable` keyword rewritten: `null` joins the `type` of a subschema
 * marked `nullable: true` (an `enum` still has to list null to allow it, as in OpenAPI), and the
 * keyword is dropped. Values (`enum`, `const`, `default`, `examples`) are data, left as they are.
 * The same object comes back when nothing is marked.
 *
 * @example
 * withoutOpenApiNullable({ type: "object", properties: { label: { type: "string", nullable: true } } });
 * // { type: "object", properties: { label: { type: ["string", "null"] } } }
 */
export function withoutOpenApiNullable(schema: JsonSchema): JsonSchema {
  return rewrite(schema) as JsonSchema;
}
