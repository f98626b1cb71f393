/**
 * `if`/`then`/`else` as anyOf: `(if ∧ then) ∨ (¬if ∧ else)`. A grammar cannot negate a schema in
 * general, but the common `if` is a discriminator: `properties` whose values are `const`/`enum`,
 * plus `required`. Its negation is "some listed property is present with another value, or some
 * required property is missing", which is again a schema. Other `if`s are left to the caller.
 */
import type { SchemaDocument, SchemaLocation } from "./schema-document.js";
import { negateSchema } from "./schema-negate.js";

const ANNOTATION = new Set(["title", "description", "$comment"]);

function onlyKeys(o: Record<string, unknown>, allowed: string[]): boolean {
  return Object.keys(o).every((k) => allowed.includes(k) || ANNOTATION.has(k));
}

/** `¬if` as a schema, or null when `if` is not a discriminator we can negate. */
export function negateDiscriminator(ifSchema: unknown): unknown {
  if (ifSchema === true) return false;
  if (ifSchema === null || typeof ifSchema !== "object" || Array.isArray(ifSchema)) return null;
  const o = ifSchema as Record<string, unknown>;
  if (!onlyKeys(o, ["properties", "required", "type"])) return null;
  if (o.type !== undefined && o.type !== "object") return null;
  const violations: unknown[] = [];
  const props = o.properties ?? {};
  if (props === null || typeof props !== "object" || Array.isArray(props)) return null;
  for (const [key, value] of Object.entries(props)) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
    const v = value as Record<string, unknown>;
    if (!onlyKeys(v, ["const", "enum"])) return null;
    const negated =
      "const" in v ? { not: { const: v.const } } : Array.isArray(v.enum) ? { not: { enum: v.enum } } : null;
    if (negated === null) return null;
    violations.push({ required: [key], properties: { [key]: negated } });
  }
  const required = o.required ?? [];
  if (!Array.isArray(required)) return null;
  for (const key of required) violations.push({ not: { required: [key] } });
  // A non-object also fails an `if` that says type object; other `if`s hold for non-objects.
  if (o.type === "object") violations.push({ not: { type: "object" } });
  if (violations.length === 0) return false;
  return violations.length === 1 ? violations[0] : { anyOf: violations };
}

/**
 * The two branches of `loc`'s if/then/else as synthetic locations (for an anyOf group), or null
 * when `if` cannot be negated; `exact` is false when the negation is only a superset.
 */
export function conditionalBranches(
  loc: SchemaLocation,
  doc?: SchemaDocument,
): { branches: [SchemaLocation, SchemaLocation]; exact: boolean } | null {
  const o = loc.schema as Record<string, unknown>;
  let notIf = negateDiscriminator(o.if);
  let exact = true;
  if (notIf === null && doc) {
    // Any other `if` the negator can say: exactly, or as a superset (then the else branch is looser).
    const neg = negateSchema(doc, doc.child(loc, "if"), loc.base);
    if (neg.schema !== true) ({ schema: notIf, exact } = neg);
  }
  if (notIf === null) return null;
  const pass = { allOf: [o.if, o.then ?? true] };
  const fail = { allOf: [notIf, o.else ?? true] };
  // Synthetic pointers keep caches apart; `$ref`s inside still resolve against the same base.
  return {
    branches: [
      { schema: pass, pointer: `${loc.pointer}/if(then)`, base: loc.base },
      { schema: fail, pointer: `${loc.pointer}/if(else)`, base: loc.base },
    ],
    exact,
  };
}
