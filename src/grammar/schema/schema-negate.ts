/**
 * Negation of a schema as another schema, for `not`, oneOf exclusivity and `if`. A grammar cannot
 * complement in general, but most keywords have a negation the converter expresses: `type`,
 * `enum`/`const`, `required`, `properties`, the bounds (¬minLength 3 is "a string of at most 2
 * characters"), `allOf`/`anyOf` by De Morgan, `$ref` by its target. A keyword without one makes
 * the result `true` (every instance), which is still a superset of the negation: using it never
 * rejects a valid instance, it only stays loose (`exact` is then false, and the caller reports
 * its relaxation).
 */
import type { SchemaDocument, SchemaLocation } from "./schema-document.js";
import { isPlainObject as isObject } from "../../validate/index.js";

/** A schema holding for every instance that fails the negated one (exactly those when `exact`). */
export interface Negation {
  schema: unknown;
  exact: boolean;
}

/** Keywords that never constrain instances (annotations, containers of definitions). */
export const ANNOTATIONS: ReadonlySet<string> = new Set([
  "$schema",
  "$id",
  "id",
  "$comment",
  "$defs",
  "definitions",
  "title",
  "description",
  "default",
  "examples",
  "example",
  "readOnly",
  "writeOnly",
  "deprecated",
  "$anchor",
  "$dynamicAnchor",
  "$vocabulary",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
  "nullable",
  "discriminator",
  "xml",
  "externalDocs",
  "markdownDescription",
  "errorMessage",
]);

/** Keywords that only constrain one type: their negation is "of that type and violating". */
const NEGATED_BOUND: Record<string, (v: number, o: Record<string, unknown>) => Record<string, unknown> | null> = {
  minLength: (v) => (v <= 0 ? null : { type: "string", maxLength: v - 1 }),
  maxLength: (v) => ({ type: "string", minLength: v + 1 }),
  minItems: (v) => (v <= 0 ? null : { type: "array", maxItems: v - 1 }),
  maxItems: (v) => ({ type: "array", minItems: v + 1 }),
  minProperties: (v) => (v <= 0 ? null : { type: "object", maxProperties: v - 1 }),
  maxProperties: (v) => ({ type: "object", minProperties: v + 1 }),
  minimum: (v, o) => ({ type: "number", ...(o.exclusiveMinimum === true ? { maximum: v } : { exclusiveMaximum: v }) }),
  maximum: (v, o) => ({ type: "number", ...(o.exclusiveMaximum === true ? { minimum: v } : { exclusiveMinimum: v }) }),
};

/** Most `$ref`s followed inside one negation (recursive schemas stop here, inexactly). */
const MAX_REF_DEPTH = 6;

const NEVER: Negation = { schema: false, exact: true };
const LOOSE: Negation = { schema: true, exact: false };

function mentionsRef(v: unknown): boolean {
  return JSON.stringify(v ?? null).includes('"$ref"');
}

/** ¬(a ∨ b ∨ ...) is the allOf; ¬(a ∧ b ∧ ...) the anyOf of the parts' negations. */
function any(parts: Negation[]): Negation {
  if (parts.some((p) => p.schema === true)) return { schema: true, exact: parts.every((p) => p.exact) };
  const live = parts.filter((p) => p.schema !== false);
  const exact = parts.every((p) => p.exact);
  if (live.length === 0) return { schema: false, exact };
  const flat = live.flatMap((p) =>
    isObject(p.schema) && Object.keys(p.schema).length === 1 && Array.isArray(p.schema.anyOf)
      ? p.schema.anyOf
      : [p.schema],
  );
  return { schema: flat.length === 1 ? flat[0] : { anyOf: flat }, exact };
}

function all(parts: Negation[]): Negation {
  const exact = parts.every((p) => p.exact);
  if (parts.some((p) => p.schema === false)) return { schema: false, exact };
  const live = parts.filter((p) => p.schema !== true);
  if (live.length === 0) return { schema: true, exact };
  return { schema: live.length === 1 ? live[0]!.schema : { allOf: live.map((p) => p.schema) }, exact };
}

/**
 * ¬`loc`'s schema as a schema to merge at a location with base `base` (see {@link Negation}).
 *
 * @example
 * negateSchema(doc, { schema: { required: ["a"] }, pointer: "#", base }, base).schema;
 * // { type: "object", not: { required: ["a"] } }
 */
export function negateSchema(doc: SchemaDocument, loc: SchemaLocation, base: string, depth = 0): Negation {
  const s = loc.schema;
  if (s === true) return NEVER;
  if (s === false) return { schema: true, exact: true };
  if (!isObject(s)) return LOOSE;
  const parts: Negation[] = [];
  const ownBase = doc.baseOf(loc);
  if (typeof s.$ref === "string") {
    if (depth >= MAX_REF_DEPTH) return LOOSE;
    let target: SchemaLocation;
    try {
      target = doc.resolve(s.$ref, loc);
    } catch {
      return LOOSE;
    }
    parts.push(negateSchema(doc, target, base, depth + 1));
    if (doc.refOverridesSiblings) return parts[0]!;
  }
  for (const [k, v] of Object.entries(s)) {
    if (k === "$ref" || ANNOTATIONS.has(k) || k.startsWith("x-")) continue;
    const p = negateKeyword(doc, loc, k, v, s, base, ownBase, depth);
    if (p === null) continue;
    parts.push(p);
    if (p.schema === true) return LOOSE;
  }
  return any(parts);
}

/** ¬ of one keyword (null: the keyword does not constrain here). */
function negateKeyword(
  doc: SchemaDocument,
  loc: SchemaLocation,
  k: string,
  v: unknown,
  s: Record<string, unknown>,
  base: string,
  ownBase: string,
  depth: number,
): Negation | null {
  const exact = (schema: unknown): Negation => ({ schema, exact: true });
  switch (k) {
    case "type":
      // `not integer` keeps the integers among numbers (see mergeNot): a superset, so not exact.
      return {
        schema: { not: { type: v } },
        exact: !(Array.isArray(v) ? v : [v]).includes("integer") || (Array.isArray(v) && v.includes("number")),
      };
    case "enum":
      return Array.isArray(v) ? exact({ not: { enum: v } }) : LOOSE;
    case "const":
      return exact({ not: { const: v } });
    case "required":
      if (!Array.isArray(v) || v.length === 0) return null;
      return any(v.map((key) => exact({ type: "object", not: { required: [key] } })));
    case "properties": {
      if (!isObject(v)) return LOOSE;
      const keys = Object.keys(v);
      return any(
        keys.map((key) => {
          const inner = negateSchema(doc, doc.child(loc, "properties", key), base, depth);
          if (inner.schema === false) return inner;
          if (inner.schema === true) return inner;
          return {
            schema: { type: "object", required: [key], properties: { [key]: inner.schema } },
            exact: inner.exact,
          };
        }),
      );
    }
    case "allOf":
      return Array.isArray(v)
        ? any(v.map((_, i) => negateSchema(doc, doc.child(loc, "allOf", i), base, depth)))
        : LOOSE;
    case "anyOf":
      return Array.isArray(v)
        ? all(v.map((_, i) => negateSchema(doc, doc.child(loc, "anyOf", i), base, depth)))
        : LOOSE;
    case "not":
      // ¬¬S is S itself, copied here: only when its `$ref`s cannot resolve differently from `base`.
      return !mentionsRef(v) || ownBase === base ? exact(v) : LOOSE;
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      if (typeof v === "boolean") return null; // draft 4: a flag of minimum/maximum
      if (typeof v !== "number") return LOOSE;
      return exact(k === "exclusiveMinimum" ? { type: "number", maximum: v } : { type: "number", minimum: v });
    default: {
      const bound = NEGATED_BOUND[k];
      if (bound && typeof v === "number" && Number.isFinite(v)) {
        const neg = bound(v, s);
        return neg === null ? NEVER : exact(neg);
      }
      return LOOSE;
    }
  }
}

/**
 * Whether no instance can satisfy both schemas, by cheap evidence: disjoint `type`s, disjoint
 * `enum`/`const` values, or a property one requires whose `const`/`enum` values the other rules out.
 *
 * @example
 * const a = { properties: { kind: { const: "a" } }, required: ["kind"] };
 * provablyDisjoint(a, { properties: { kind: { const: "b" } } }); // true
 */
export function provablyDisjoint(a: unknown, b: unknown): boolean {
  if (!isObject(a) || !isObject(b)) return a === false || b === false;
  const ta = typesOf(a);
  const tb = typesOf(b);
  if (
    ta &&
    tb &&
    ![...ta].some((t) => tb.has(t) || (t === "integer" && tb.has("number")) || (t === "number" && tb.has("integer")))
  )
    return true;
  const va = valuesOf(a);
  const vb = valuesOf(b);
  if (va && vb && !va.some((x) => vb.some((y) => JSON.stringify(x) === JSON.stringify(y)))) return true;
  return discriminated(a, b) || discriminated(b, a) || closedAgainst(a, b) || closedAgainst(b, a);
}

/** `a` allows no key beyond its `properties` and `b` requires one of those others. */
function closedAgainst(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  if (a.additionalProperties !== false || a.patternProperties !== undefined || !Array.isArray(b.required)) return false;
  const declared = isObject(a.properties) ? a.properties : {};
  const objectOnly =
    (typesOf(a)?.size === 1 && typesOf(a)!.has("object")) || (typesOf(b)?.size === 1 && typesOf(b)!.has("object"));
  return objectOnly && b.required.some((k) => typeof k === "string" && !Object.hasOwn(declared, k));
}

function typesOf(s: Record<string, unknown>): Set<string> | null {
  if (typeof s.type === "string") return new Set([s.type]);
  if (Array.isArray(s.type) && s.type.every((t) => typeof t === "string")) return new Set(s.type as string[]);
  return null;
}

function valuesOf(s: Record<string, unknown>): unknown[] | null {
  if ("const" in s) return [s.const];
  return Array.isArray(s.enum) ? s.enum : null;
}

/** `a` requires a key whose values under `a` and `b` are disjoint. */
function discriminated(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  if (!Array.isArray(a.required) || !isObject(a.properties) || !isObject(b.properties)) return false;
  for (const key of a.required) {
    if (typeof key !== "string") continue;
    const pa = a.properties[key];
    const pb = b.properties[key];
    if (isObject(pa) && isObject(pb)) {
      const va = valuesOf(pa);
      const vb = valuesOf(pb);
      if (va && vb && !va.some((x) => vb.some((y) => JSON.stringify(x) === JSON.stringify(y)))) return true;
    }
  }
  return false;
}
