/**
 * Normalisation: a list of subschemas that must all hold (a schema with its `$ref`, `allOf`
 * branches, type-specific keywords) is merged into one flat constraint set. Nested schemas
 * (property values, items) are not merged here: they stay as lists of locations and are
 * converted lazily, which is what lets recursive schemas terminate.
 */
import { DEPENDENCY_KEYWORDS, dependencyGroups } from "./dependencies.js";
import { exclusiveBranches } from "./one-of.js";
import { ANNOTATIONS, negateSchema } from "./schema-negate.js";
import { conditionalBranches } from "./schema-conditional.js";
import type { SchemaDocument, SchemaLocation } from "./schema-document.js";
import { type RelaxationKind, SchemaError } from "./schema-error.js";
import { checkKeywordConflicts } from "./keyword-conflicts.js";

/** JSON Schema instance types (`integer` is a subset of `number`). */
export type TypeName = "null" | "boolean" | "object" | "array" | "number" | "integer" | "string";

export const ALL_TYPES: readonly TypeName[] = ["null", "boolean", "object", "array", "number", "integer", "string"];

/** Type names of programming languages that tools declare by mistake, and the JSON Schema name (for the error). */
const JSON_SPELLING: Readonly<Record<string, TypeName>> = {
  str: "string",
  int: "integer",
  uint: "integer",
  long: "integer",
  float: "number",
  double: "number",
  bool: "boolean",
  dict: "object",
  list: "array",
  tuple: "array",
  none: "null",
};

/** A numeric bound. */
export interface Bound {
  value: number;
  strict: boolean;
}

/** The object keywords of one merged subschema (needed to apply its additionalProperties exactly). */
export interface ObjectScope {
  keys: Set<string>;
  patterns: { source: string; schemas: SchemaLocation[] }[];
  /** `additionalProperties` as given (null: absent). */
  additional: SchemaLocation | null;
  pointer: string;
}

/** The merged constraints. */
export interface Norm {
  pointer: string;
  /** Pointers of every location merged so far: merging is idempotent, so each is merged once. */
  merged: Set<string>;
  /** Why nothing can match (null while satisfiable). */
  never: string | null;
  /** Allowed types (null: any). */
  types: Set<TypeName> | null;
  /** Allowed values from enum/const (null: no enum). */
  enumValues: unknown[] | null;
  /** Strings forbidden by `not: {enum/const}`. */
  notValues: unknown[];
  minLength: number;
  maxLength: number | null;
  patterns: { source: string; pointer: string }[];
  formats: { name: string; pointer: string }[];
  minimum: Bound | null;
  maximum: Bound | null;
  multipleOf: number[];
  prefixItems: SchemaLocation[][];
  /** Schemas for items after the prefix; `false`: none allowed. */
  items: SchemaLocation[] | false;
  minItems: number;
  maxItems: number | null;
  /** Items must differ (exact for small finite item sets, see unique-items.ts). */
  uniqueItems: boolean;
  properties: Map<string, SchemaLocation[]>;
  required: Set<string>;
  forbidden: Set<string>;
  scopes: ObjectScope[];
  propertyNames: SchemaLocation[];
  minProperties: number;
  maxProperties: number | null;
  /** Groups from anyOf/oneOf: one alternative of each group must hold. */
  anyOf: SchemaLocation[][];
  /** Which keywords constrain each type (so an unconstrained type can use the generic rule). */
  touched: Set<"string" | "number" | "array" | "object">;
}

/** A fresh, unconstrained set. */
export function emptyNorm(pointer: string): Norm {
  return {
    pointer,
    merged: new Set(),
    never: null,
    types: null,
    enumValues: null,
    notValues: [],
    minLength: 0,
    maxLength: null,
    patterns: [],
    formats: [],
    minimum: null,
    maximum: null,
    multipleOf: [],
    prefixItems: [],
    items: [],
    minItems: 0,
    maxItems: null,
    uniqueItems: false,
    properties: new Map(),
    required: new Set(),
    forbidden: new Set(),
    scopes: [],
    propertyNames: [],
    minProperties: 0,
    maxProperties: null,
    anyOf: [],
    touched: new Set(),
  };
}

/** A deep-enough copy for branching on anyOf alternatives. */
export function cloneNorm(n: Norm): Norm {
  return {
    ...n,
    merged: new Set(n.merged),
    types: n.types ? new Set(n.types) : null,
    enumValues: n.enumValues ? [...n.enumValues] : null,
    notValues: [...n.notValues],
    patterns: [...n.patterns],
    formats: [...n.formats],
    multipleOf: [...n.multipleOf],
    prefixItems: n.prefixItems.map((x) => [...x]),
    items: n.items === false ? false : [...n.items],
    properties: new Map([...n.properties].map(([k, v]) => [k, [...v]])),
    required: new Set(n.required),
    forbidden: new Set(n.forbidden),
    scopes: [...n.scopes],
    propertyNames: [...n.propertyNames],
    anyOf: n.anyOf.map((g) => [...g]),
    touched: new Set(n.touched),
  };
}

/** Whether a schema object has only `$ref` plus annotations. */
export function isPureRef(schema: unknown): boolean {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return false;
  const o = schema as Record<string, unknown>;
  if (typeof o.$ref !== "string") return false;
  return Object.keys(o).every((k) => k === "$ref" || ANNOTATIONS.has(k) || k.startsWith("x-"));
}

/** Deep equality with JSON Schema's number semantics (1 equals 1.0). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (typeof a === "object") {
    if (Array.isArray(b)) return false;
    const ka = Object.keys(a as object);
    const kb = Object.keys(b as object);
    return (
      ka.length === kb.length &&
      ka.every(
        (k) => k in (b as object) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
      )
    );
  }
  return false;
}

/** Callbacks the normaliser needs from the converter. */
export interface NormalizeContext {
  doc: SchemaDocument;
  relax(kind: RelaxationKind, pointer: string, keyword: string, detail?: string): void;
}

function intersectTypes(n: Norm, types: TypeName[]): void {
  const given = new Set<TypeName>(types);
  if (given.has("number")) given.add("integer");
  if (n.types === null) {
    n.types = given;
  } else {
    const next = new Set<TypeName>();
    for (const t of n.types) if (given.has(t)) next.add(t);
    // integer ⊂ number: {number} ∩ {integer} = {integer}
    if (n.types.has("number") && given.has("integer")) next.add("integer");
    n.types = next;
  }
  if (n.types.size === 0) n.never = "no type satisfies every `type` keyword";
}

function tighterLower(a: Bound | null, b: Bound): Bound {
  if (a === null || b.value > a.value || (b.value === a.value && b.strict)) return b;
  return a;
}

function tighterUpper(a: Bound | null, b: Bound): Bound {
  if (a === null || b.value < a.value || (b.value === a.value && b.strict)) return b;
  return a;
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const count = (v: unknown): number | null => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : null);

/**
 * Merges the schema at `loc` into `n` (all constraints must hold). A location already merged
 * is skipped, which makes allOf/`$ref` cycles terminate without losing anything.
 */
export function mergeInto(ctx: NormalizeContext, n: Norm, loc: SchemaLocation): void {
  if (n.merged.has(loc.pointer)) return;
  n.merged.add(loc.pointer);
  const s = loc.schema;
  if (s === true || (s !== null && typeof s === "object" && !Array.isArray(s) && Object.keys(s).length === 0)) return;
  if (s === false) {
    n.never = `schema at ${loc.pointer} is false`;
    return;
  }
  if (s === null || typeof s !== "object" || Array.isArray(s)) {
    throw new SchemaError(loc.pointer, "(schema)", `a schema must be an object or a boolean, got ${JSON.stringify(s)}`);
  }
  const o = s as Record<string, unknown>;
  const at = (...t: (string | number)[]): SchemaLocation => ctx.doc.child(loc, ...t);

  if (typeof o.$ref === "string") {
    mergeInto(ctx, n, ctx.doc.resolve(o.$ref, loc));
    if (ctx.doc.refOverridesSiblings) return;
  } else if (o.$ref !== undefined) {
    throw new SchemaError(loc.pointer, "$ref", "must be a string");
  }
  if (typeof o.$dynamicRef === "string" || typeof o.$recursiveRef === "string") {
    const ref = (o.$dynamicRef ?? o.$recursiveRef) as string;
    mergeInto(ctx, n, ref === "#" ? ctx.doc.root : ctx.doc.resolve(ref, loc));
  }

  // Schemas the converter builds (negations, oneOf/dependency branches) end their pointer with "(...)".
  if (!loc.pointer.endsWith(")")) checkKeywordConflicts(o, loc.pointer);
  if (o.type !== undefined) {
    const types = Array.isArray(o.type) ? o.type : [o.type];
    for (const t of types) {
      if (typeof t !== "string" || !(ALL_TYPES as readonly string[]).includes(t)) {
        const lower = typeof t === "string" ? t.toLowerCase() : "";
        const spelled = (ALL_TYPES as readonly string[]).includes(lower) ? lower : JSON_SPELLING[lower];
        const hint = spelled === undefined ? "" : ` (JSON Schema spells it "${spelled}")`;
        throw new SchemaError(loc.pointer, "type", `unknown type ${JSON.stringify(t)}${hint}`);
      }
    }
    intersectTypes(n, types as TypeName[]);
  }
  if (o.enum !== undefined) {
    if (!Array.isArray(o.enum)) throw new SchemaError(loc.pointer, "enum", "must be an array");
    restrictValues(n, o.enum);
  }
  // Keywords newer than the declared draft are unknown to its validators, hence ignored.
  const draft = ctx.doc.draft ?? Infinity;
  if ("const" in o && draft >= 6) restrictValues(n, [o.const]);

  mergeString(n, o, loc.pointer);
  mergeNumber(ctx, n, o, loc.pointer);
  mergeArray(n, o, at);
  mergeObject(ctx, n, o, loc, at);

  if (o.allOf !== undefined) {
    if (!Array.isArray(o.allOf)) throw new SchemaError(loc.pointer, "allOf", "must be an array");
    o.allOf.forEach((_, i) => mergeInto(ctx, n, at("allOf", i)));
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    if (o[key] === undefined) continue;
    const list = o[key];
    if (!Array.isArray(list) || list.length === 0) throw new SchemaError(loc.pointer, key, "must be a non-empty array");
    n.anyOf.push(key === "oneOf" ? exclusiveBranches(ctx, loc) : list.map((_, i) => at(key, i)));
  }
  if (o.not !== undefined) mergeNot(ctx, n, at("not"));
  if (o.if !== undefined && (o.then !== undefined || o.else !== undefined) && draft >= 7) {
    const cond = conditionalBranches({ ...loc, base: ctx.doc.baseOf(loc) }, ctx.doc);
    if (cond) n.anyOf.push(cond.branches);
    if (!cond?.exact) ctx.relax("ifThenElse", loc.pointer, "if");
  }
  for (const k of DEPENDENCY_KEYWORDS) if (o[k] !== undefined) n.anyOf.push(...dependencyGroups(ctx, loc, k));
  if (o.uniqueItems === true) (n.uniqueItems = true), n.touched.add("array");
  if (o.contains !== undefined) ctx.relax("contains", loc.pointer, "contains");
  for (const k of ["unevaluatedProperties", "unevaluatedItems"])
    if (o[k] !== undefined && o[k] !== true) ctx.relax("unevaluated", loc.pointer, k);
}

function restrictValues(n: Norm, values: unknown[]): void {
  if (n.enumValues === null) n.enumValues = [...values];
  else n.enumValues = n.enumValues.filter((v) => values.some((w) => jsonEqual(v, w)));
  if (n.enumValues.length === 0) n.never = "enum/const leave no value";
}

function mergeString(n: Norm, o: Record<string, unknown>, pointer: string): void {
  const minL = count(o.minLength);
  if (minL !== null) (n.minLength = Math.max(n.minLength, minL)), n.touched.add("string");
  const maxL = count(o.maxLength);
  if (maxL !== null) (n.maxLength = n.maxLength === null ? maxL : Math.min(n.maxLength, maxL)), n.touched.add("string");
  if (typeof o.pattern === "string") n.patterns.push({ source: o.pattern, pointer }), n.touched.add("string");
  if (typeof o.format === "string") n.formats.push({ name: o.format, pointer }), n.touched.add("string");
}

function mergeNumber(ctx: NormalizeContext, n: Norm, o: Record<string, unknown>, pointer: string): void {
  const touch = (): void => void n.touched.add("number");
  const min = num(o.minimum);
  const max = num(o.maximum);
  if (min !== null) (n.minimum = tighterLower(n.minimum, { value: min, strict: o.exclusiveMinimum === true })), touch();
  if (max !== null) (n.maximum = tighterUpper(n.maximum, { value: max, strict: o.exclusiveMaximum === true })), touch();
  const exMin = num(o.exclusiveMinimum);
  const exMax = num(o.exclusiveMaximum);
  if (exMin !== null) (n.minimum = tighterLower(n.minimum, { value: exMin, strict: true })), touch();
  if (exMax !== null) (n.maximum = tighterUpper(n.maximum, { value: exMax, strict: true })), touch();
  const mult = num(o.multipleOf);
  if (mult !== null) {
    if (mult <= 0) throw new SchemaError(pointer, "multipleOf", `must be > 0, got ${mult}`);
    n.multipleOf.push(mult);
    touch();
  }
  void ctx;
}

function mergeArray(n: Norm, o: Record<string, unknown>, at: (...t: (string | number)[]) => SchemaLocation): void {
  const touch = (): void => void n.touched.add("array");
  let prefix: SchemaLocation[] | null = null;
  let rest: SchemaLocation | false | null = null;
  if (Array.isArray(o.prefixItems)) {
    prefix = o.prefixItems.map((_, i) => at("prefixItems", i));
    if (o.items !== undefined) rest = o.items === false ? false : at("items");
  } else if (Array.isArray(o.items)) {
    prefix = o.items.map((_, i) => at("items", i));
    if (o.additionalItems !== undefined) rest = o.additionalItems === false ? false : at("additionalItems");
  } else if (o.items !== undefined) {
    rest = o.items === false ? false : at("items");
  }
  if (prefix) {
    touch();
    prefix.forEach((p, i) => {
      if (i < n.prefixItems.length) n.prefixItems[i]!.push(p);
      else {
        // Positions past an earlier prefix fall under that schema's rest items.
        n.prefixItems.push([p, ...(n.items === false ? [] : n.items)]);
        if (n.items === false) n.maxItems = Math.min(n.maxItems ?? i, i);
      }
    });
  }
  if (rest !== null) {
    touch();
    // The new rest applies to positions beyond `prefix`; earlier extra prefix positions get it too.
    const start = prefix ? prefix.length : 0;
    for (let i = start; i < n.prefixItems.length; i++) {
      if (rest === false) n.maxItems = Math.min(n.maxItems ?? i, i);
      else n.prefixItems[i]!.push(rest);
    }
    if (rest === false) {
      n.maxItems = Math.min(n.maxItems ?? start, start);
      n.items = false;
    } else if (n.items !== false) {
      n.items.push(rest);
    }
  } else if (prefix) {
    // A tuple without rest allows anything after it; nothing to merge.
  }
  const minI = count(o.minItems);
  if (minI !== null) (n.minItems = Math.max(n.minItems, minI)), touch();
  const maxI = count(o.maxItems);
  if (maxI !== null) (n.maxItems = n.maxItems === null ? maxI : Math.min(n.maxItems, maxI)), touch();
}

function mergeObject(
  ctx: NormalizeContext,
  n: Norm,
  o: Record<string, unknown>,
  loc: SchemaLocation,
  at: (...t: (string | number)[]) => SchemaLocation,
): void {
  const touch = (): void => void n.touched.add("object");
  const scope: ObjectScope = { keys: new Set(), patterns: [], additional: null, pointer: loc.pointer };
  let hasScope = false;
  if (o.properties !== undefined) {
    if (o.properties === null || typeof o.properties !== "object" || Array.isArray(o.properties)) {
      throw new SchemaError(loc.pointer, "properties", "must be an object");
    }
    for (const key of Object.keys(o.properties)) {
      scope.keys.add(key);
      const list = n.properties.get(key) ?? [];
      list.push(at("properties", key));
      n.properties.set(key, list);
    }
    hasScope = true;
  }
  if (o.patternProperties !== undefined && o.patternProperties !== null && typeof o.patternProperties === "object") {
    for (const source of Object.keys(o.patternProperties))
      scope.patterns.push({ source, schemas: [at("patternProperties", source)] });
    hasScope = true;
  }
  if (o.additionalProperties !== undefined) {
    scope.additional = at("additionalProperties");
    hasScope = true;
  }
  if (hasScope) {
    n.scopes.push(scope);
    touch();
  }
  if (o.required !== undefined) {
    if (!Array.isArray(o.required) || o.required.some((k) => typeof k !== "string")) {
      throw new SchemaError(loc.pointer, "required", "must be an array of strings");
    }
    for (const k of o.required as string[]) n.required.add(k);
    if (o.required.length > 0) touch();
  }
  if (o.propertyNames !== undefined) n.propertyNames.push(at("propertyNames")), touch();
  const minP = count(o.minProperties);
  if (minP !== null) (n.minProperties = Math.max(n.minProperties, minP)), touch();
  const maxP = count(o.maxProperties);
  if (maxP !== null) (n.maxProperties = n.maxProperties === null ? maxP : Math.min(n.maxProperties, maxP)), touch();
  void ctx;
}

/** `not`: types, const/enum and required keys directly; other schemas through their negation. */
function mergeNot(ctx: NormalizeContext, n: Norm, loc: SchemaLocation): void {
  const s = loc.schema;
  if (s === true || (s !== null && typeof s === "object" && Object.keys(s as object).length === 0)) {
    n.never = `schema at ${loc.pointer} negates everything`;
    return;
  }
  if (s === false || s === null || typeof s !== "object" || Array.isArray(s)) return;
  const o = s as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => !ANNOTATIONS.has(k));
  if (keys.length === 1 && keys[0] === "type") {
    const types = (Array.isArray(o.type) ? o.type : [o.type]) as TypeName[];
    const remaining = ALL_TYPES.filter((t) => !types.includes(t) && !(t === "integer" && types.includes("number")));
    // not number keeps no integers either; not integer keeps non-integral numbers, which we cannot
    // express: keep number.
    intersectTypes(n, remaining.length ? remaining : []);
    return;
  }
  if (keys.length === 1 && (keys[0] === "enum" || keys[0] === "const")) {
    const values = keys[0] === "enum" ? (Array.isArray(o.enum) ? o.enum : []) : [o.const];
    if (n.enumValues !== null) {
      n.enumValues = n.enumValues.filter((v) => !values.some((w) => jsonEqual(v, w)));
      if (n.enumValues.length === 0) n.never = "enum/const leave no value";
      return;
    }
    n.notValues.push(...values);
    return;
  }
  if (keys.length === 1 && keys[0] === "required" && Array.isArray(o.required) && o.required.length === 1) {
    n.forbidden.add(String(o.required[0]));
    n.touched.add("object");
    return;
  }
  if (keys.length === 1 && keys[0] === "anyOf" && Array.isArray(o.anyOf)) {
    const all = o.anyOf.every(
      (b) =>
        b &&
        typeof b === "object" &&
        Object.keys(b).length === 1 &&
        Array.isArray((b as { required?: unknown }).required) &&
        (b as { required: unknown[] }).required.length === 1,
    );
    if (all) {
      for (const b of o.anyOf as { required: string[] }[]) n.forbidden.add(String(b.required[0]));
      n.touched.add("object");
      return;
    }
  }
  // Anything else: merge the negation as a schema (De Morgan over the keywords; see schema-negate.ts).
  const neg = negateSchema(ctx.doc, loc, loc.base);
  if (!neg.exact) ctx.relax("not", loc.pointer, "not");
  if (neg.schema !== true)
    mergeInto(ctx, n, { schema: neg.schema, pointer: `${loc.pointer}(negated)`, base: loc.base });
}
