/**
 * The schema a strict tool's arguments are checked against: objects that declare properties and
 * say nothing of others get `additionalProperties: false`, as the grammar closes them. Where the
 * grammar's closure spans several subschemas (properties beside allOf, anyOf, `$ref`), the copy
 * leaves the object open: the runner's check is then looser than the grammar, never stricter.
 */
import type { JsonSchema } from "../types.js";

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

const COMPOSED = ["allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas", "dependencies"];
const SAYS_OTHERS = ["additionalProperties", "patternProperties", "unevaluatedProperties"];

/** Whether some `$ref` has sibling keywords (its target then merges with them: keep targets open). */
function refWithSiblings(v: unknown): boolean {
  const stack = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (Array.isArray(x)) stack.push(...x);
    else if (isObj(x)) {
      if (
        typeof x.$ref === "string" &&
        Object.keys(x).some((k) => k !== "$ref" && !["title", "description", "$comment"].includes(k))
      )
        return true;
      stack.push(...Object.values(x));
    }
  }
  return false;
}

/**
 * A copy of `schema` with undeclared properties forbidden where the grammar forbids them.
 *
 * @example
 * closedSchema({ type: "object", properties: { city: { type: "string" } } });
 * // { type: "object", properties: { city: { type: "string" } }, additionalProperties: false }
 */
export function closedSchema(schema: JsonSchema): JsonSchema {
  const openDefs = refWithSiblings(schema);
  const walk = (v: unknown, closable: boolean): unknown => {
    if (!isObj(v)) return v;
    const out: Obj = { ...v };
    const ownProps = isObj(v.properties);
    const each = (key: string, close: boolean) => {
      const x = v[key];
      if (Array.isArray(x)) out[key] = x.map((s) => walk(s, close));
      else if (
        isObj(x) &&
        ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"].includes(key)
      ) {
        out[key] = Object.fromEntries(Object.entries(x).map(([k, s]) => [k, walk(s, close)]));
      } else if (x !== undefined) out[key] = walk(x, close);
    };
    each("properties", true);
    each("patternProperties", true);
    each("items", true);
    each("prefixItems", true);
    each("additionalItems", true);
    each("additionalProperties", true);
    each("$defs", !openDefs);
    each("definitions", !openDefs);
    each("allOf", false);
    each("anyOf", !ownProps);
    each("oneOf", !ownProps);
    if (closable && ownProps && !SAYS_OTHERS.some((k) => k in v) && !COMPOSED.some((k) => k in v))
      out.additionalProperties = false;
    return out;
  };
  return walk(schema, true) as JsonSchema;
}
