/**
 * Tagged (unquoted) argument values whose schema allows strings and other values at once:
 * `{"type": ["string", "null"]}`, `{"enum": ["auto", 1]}`, `anyOf: [{type: "string"}, {type:
 * "integer"}]`. The template writes strings raw and other values as JSON, so the value splits into
 * a raw-text part and a typed part: the parser reads the typed part where the whole value reads
 * as one of its values (`null` → null, `42` → 42), else the text as a string; the grammar allows
 * either part, each with its own keywords (enum, const, bounds) enforced.
 */
import type { PegArena, PegId } from "../peg/index.js";
import type { JsonSchema } from "../types.js";
import { isPlainObject as isObj } from "../validate/index.js";

/** A schema split by how a tagged format writes its values. */
export interface RawSplit {
  /** The values written as raw text (strings), or null when the schema allows none. */
  text: JsonSchema | null;
  /** The values written as JSON (everything but strings), or null when the schema allows none. */
  typed: JsonSchema | null;
}

type Obj = Record<string, unknown>;

/** Unions of parts: none → null, one → itself, more → `{[key]: parts}`. */
function union(key: "anyOf" | "oneOf", parts: (JsonSchema | null)[]): JsonSchema | null {
  const kept = parts.filter((x): x is JsonSchema => x !== null);
  if (kept.length === 0) return null;
  return kept.length === 1 ? kept[0]! : { [key]: kept };
}

/** `s` with its values restricted to `values` (an enum, or a const when there is one). */
function withValues(s: Obj, key: "enum" | "const", values: unknown[]): JsonSchema | null {
  if (values.length === 0) return null;
  const { type: _type, enum: _enum, const: _const, ...rest } = s;
  return key === "const" ? { ...rest, const: values[0] } : { ...rest, enum: values };
}

/**
 * Splits `schema` into what a tagged format writes raw (strings) and what it writes as JSON.
 * A schema that says nothing about types counts as text (templates render such values with
 * str()), as does anything this does not look into ($ref, allOf).
 *
 * @example
 * splitRawSchema({ type: ["string", "null"] }); // { text: { type: "string" }, typed: { type: "null" } }
 * splitRawSchema({ enum: ["a", 1] });            // { text: { enum: ["a"] }, typed: { enum: [1] } }
 * splitRawSchema({ type: "integer" });           // { text: null, typed: { type: "integer" } }
 */
export function splitRawSchema(schema: JsonSchema): RawSplit {
  if (!isObj(schema)) return { text: schema, typed: null };
  const s = schema;
  if (Array.isArray(s.enum)) {
    return {
      text: withValues(
        s,
        "enum",
        s.enum.filter((v) => typeof v === "string"),
      ),
      typed: withValues(
        s,
        "enum",
        s.enum.filter((v) => typeof v !== "string"),
      ),
    };
  }
  if ("const" in s) return typeof s.const === "string" ? { text: schema, typed: null } : { text: null, typed: schema };
  if (typeof s.type === "string")
    return s.type === "string" ? { text: schema, typed: null } : { text: null, typed: schema };
  if (Array.isArray(s.type)) {
    const others = s.type.filter((t) => t !== "string");
    return {
      text: s.type.includes("string") ? { ...s, type: "string" } : null,
      typed: others.length === 0 ? null : { ...s, type: others.length === 1 ? others[0] : others },
    };
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const list = s[key];
    if (!Array.isArray(list)) continue;
    const parts = list.map((m) => splitRawSchema(m as JsonSchema));
    return {
      text: union(
        key,
        parts.map((x) => x.text),
      ),
      typed: union(
        key,
        parts.map((x) => x.typed),
      ),
    };
  }
  return { text: schema, typed: null };
}

/** What a typed part's values can be: JSON kinds, fixed values, or anything. */
interface Kinds {
  types: Set<string>;
  values: unknown[];
  any: boolean;
}

function kindsOf(schema: JsonSchema, into: Kinds): void {
  if (!isObj(schema)) {
    into.any = true;
    return;
  }
  if (Array.isArray(schema.enum)) into.values.push(...schema.enum);
  else if ("const" in schema) into.values.push(schema.const);
  else if (typeof schema.type === "string") into.types.add(schema.type);
  else if (Array.isArray(schema.type)) for (const t of schema.type) into.types.add(String(t));
  else if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf))
    for (const m of [...((schema.anyOf as unknown[]) ?? []), ...((schema.oneOf as unknown[]) ?? [])])
      kindsOf(m as JsonSchema, into);
  else into.any = true;
}

/** JSON number text (also integers). */
function numberText(p: PegArena, integer: boolean): PegId {
  const sign = p.optional(p.literal("-"));
  if (integer) return p.seq(sign, p.chars("0-9", 1));
  return p.seq(
    sign,
    p.chars("0-9", 1),
    p.optional(p.seq(p.literal("."), p.chars("0-9", 1))),
    p.optional(p.seq(p.chars("eE", 1, 1), p.optional(p.chars("+\\-", 1, 1)), p.chars("0-9", 1))),
  );
}

/**
 * The parser for a typed part's values as a template writes them: `null` (or Python's `None`),
 * booleans (either spelling), numbers of the schema's kind, fixed values as JSON, and containers
 * through `container` (JSON or Python literals). `str(None)` renders null as "None", which is
 * why both spellings read as null.
 *
 * @example
 * typedRawValue(p, { type: "null" }, p.json()); // "null" | "None"
 */
export function typedRawValue(p: PegArena, typed: JsonSchema, container: PegId): PegId {
  const k: Kinds = { types: new Set(), values: [], any: false };
  kindsOf(typed, k);
  if (k.any) return container;
  const alts: PegId[] = [];
  for (const v of k.values) {
    if (v === null) alts.push(p.literal("null"), p.literal("None"));
    else if (typeof v === "boolean") alts.push(p.literal(String(v)), p.literal(v ? "True" : "False"));
    else if (typeof v === "number") alts.push(p.literal(JSON.stringify(v)));
    else if (typeof v === "object") alts.push(container);
  }
  if (k.types.has("null")) alts.push(p.literal("null"), p.literal("None"));
  if (k.types.has("boolean")) alts.push(...["true", "false", "True", "False"].map((w) => p.literal(w)));
  if (k.types.has("number")) alts.push(numberText(p, false));
  else if (k.types.has("integer")) alts.push(numberText(p, true));
  if (k.types.has("object")) alts.push(p.seq(p.and(p.literal("{")), container));
  if (k.types.has("array")) alts.push(p.seq(p.and(p.literal("[")), container));
  return alts.length === 0 ? container : p.choice(...alts);
}

/** Whether the schema says anything about its values' types or values (else a format reads them by shape). */
export function constrainsValues(schema: JsonSchema): boolean {
  return (
    isObj(schema) &&
    ("type" in schema ||
      "enum" in schema ||
      "const" in schema ||
      Array.isArray(schema.anyOf) ||
      Array.isArray(schema.oneOf))
  );
}

/**
 * Whether every value of a typed part is a scalar (null, boolean, number): formats that write
 * containers in a syntax of their own (nested elements) can still write these as JSON.
 */
export function isScalarTyped(typed: JsonSchema): boolean {
  const k: Kinds = { types: new Set(), values: [], any: false };
  kindsOf(typed, k);
  return (
    !k.any &&
    !k.types.has("object") &&
    !k.types.has("array") &&
    k.values.every((v) => v === null || typeof v !== "object")
  );
}

/** How {@link rawOrTyped} writes each part. */
export interface RawOrTypedParts {
  /** The value written as text, for the text part's schema. */
  text: (schema: JsonSchema) => PegId;
  /** The value written as JSON (or a literal), for the typed part's schema. */
  typed: (schema: JsonSchema) => PegId;
  /**
   * Where an unquoted value ends (the parser then takes the typed reading only where the whole
   * value reads as one); null when text is quoted, so the two cannot be confused.
   */
  stops: string[] | null;
  /** Building the grammar (no lookahead needed: it allows either part). */
  forGrammar: boolean;
}

/**
 * A tagged value of `schema` as a choice between its typed and text parts (see
 * {@link splitRawSchema}); a schema with one part gives that part alone.
 *
 * @example
 * rawOrTyped(p, { type: ["string", "null"] }, { text, typed, stops: ["</arg>"], forGrammar: false });
 * // &("null" | "None") "</arg>") typed  |  text
 */
export function rawOrTyped(p: PegArena, schema: JsonSchema, parts: RawOrTypedParts): PegId {
  const { text, typed } = splitRawSchema(schema);
  const alts: PegId[] = [];
  if (typed !== null) {
    const value = parts.typed(typed);
    const guard =
      text === null || parts.forGrammar || parts.stops === null
        ? null
        : p.and(p.seq(typedRawValue(p, typed, p.json()), p.space(), p.choice(...parts.stops.map((s) => p.literal(s)))));
    alts.push(guard === null ? value : p.seq(guard, value));
  }
  if (text !== null) alts.push(parts.text(text));
  return alts.length === 1 ? alts[0]! : p.choice(...alts);
}
