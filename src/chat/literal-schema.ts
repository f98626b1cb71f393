/**
 * Grammar copies of argument values written in a literal syntax other than JSON (Python repr:
 * `{'k': 'v', 'n': True}`; Gemma 4: `{k:<|"|>v<|"|>,n:true}`), typed by the JSON Schema: objects
 * with their properties in order (required ones always), arrays of their items, enums and consts
 * as their literals, strings bounded by their keywords, numbers through the schema converter.
 * What a schema does not detail stays the dialect's permissive value.
 */
import type { PegArena, PegId } from "../peg/index.js";
import type { JsonSchema } from "../types.js";
import { orderedArguments } from "./dedicated/grammar-args.js";
import { boundedRawString, pythonValue } from "./build-helpers.js";
import { isPlainObject as isObj } from "../validate/index.js";
import { ruleNamePart } from "./rule-names.js";

/** How a literal syntax writes values. */
export interface LiteralDialect {
  /** Rule name prefix (dialects must not share rules). */
  name: string;
  /** A string of `schema` (quotes included). */
  string(p: PegArena, schema: JsonSchema, name: string): PegId;
  /** The texts of a fixed string value (quotes included). */
  stringLiterals(value: string): string[];
  /** An object key. */
  key(p: PegArena, key: string): PegId;
  /** Any value (the permissive grammar). */
  any(p: PegArena): PegId;
  /** Spellings of null, true and false. */
  words: { null: string[]; true: string[]; false: string[] };
  /** Between members or items, and between a key and its value. */
  comma: string;
  colon: string;
  /** Members in key order (templates that dictsort) rather than schema order. */
  sortedKeys?: boolean;
}

type Obj = Record<string, unknown>;

/** A fixed value as the dialect writes it, or null for containers (left to `any`). */
function literalOf(d: LiteralDialect, v: unknown): string[] | null {
  if (v === null) return d.words.null;
  if (v === true) return d.words.true;
  if (v === false) return d.words.false;
  if (typeof v === "number") return [JSON.stringify(v)];
  if (typeof v === "string") return d.stringLiterals(v);
  return null;
}

/**
 * The grammar copy of a value of `schema` in dialect `d`.
 *
 * @example
 * const schema = { type: "object", properties: { k: { enum: ["a", "b"] } }, required: ["k"] };
 * literalValue(p, schema, PYTHON_LITERALS, "arg");
 * // "{" "'k'" ": " ("'a'" | "'b'") "}"
 */
export function literalValue(p: PegArena, schema: JsonSchema, d: LiteralDialect, name: string): PegId {
  if (!isObj(schema)) return d.any(p);
  const fixed = Array.isArray(schema.enum) ? schema.enum : "const" in schema ? [schema.const] : null;
  if (fixed !== null) {
    const texts = fixed.map((v) => literalOf(d, v));
    if (texts.length > 0 && texts.every((t) => t !== null)) return p.choice(...texts.flat().map((t) => p.literal(t!)));
    return d.any(p);
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const list = schema[key];
    if (Array.isArray(list) && list.length > 0)
      return p.choice(...list.map((m, i) => literalValue(p, m as JsonSchema, d, `${name}-${i}`)));
  }
  const type = schema.type;
  if (Array.isArray(type))
    return p.choice(
      ...type.map((t) => literalValue(p, { ...schema, type: t } as JsonSchema, d, `${name}-${String(t)}`)),
    );
  switch (type) {
    case "string":
      return d.string(p, schema, name);
    case "integer":
    case "number":
      return p.schema(p.json(), schema, { name });
    case "boolean":
      return p.choice(...[...d.words.true, ...d.words.false].map((w) => p.literal(w)));
    case "null":
      return p.choice(...d.words.null.map((w) => p.literal(w)));
    case "object":
      return objectValue(p, schema, d, name);
    case "array":
      return arrayValue(p, schema, d, name);
    default:
      return d.any(p);
  }
}

function objectValue(p: PegArena, schema: Obj, d: LiteralDialect, name: string): PegId {
  const props = schema.properties;
  // Free-form objects (no properties, or more allowed) keep the permissive grammar.
  if (
    !isObj(props) ||
    Object.keys(props).length === 0 ||
    (schema.additionalProperties !== undefined && schema.additionalProperties !== false)
  )
    return d.any(p);
  const member = (key: string, s: JsonSchema): PegId =>
    p.seq(
      d.key(p, key),
      p.space(),
      p.literal(d.colon),
      p.space(),
      literalValue(p, s, d, `${name}-${ruleNamePart(key)}`),
    );
  const sep = p.seq(p.space(), p.literal(d.comma), p.space());
  return p.seq(
    p.literal("{"),
    p.space(),
    orderedArguments(p, schema as JsonSchema, member, sep, d.sortedKeys === true ? "sorted" : "schema"),
    p.space(),
    p.literal("}"),
  );
}

function arrayValue(p: PegArena, schema: Obj, d: LiteralDialect, name: string): PegId {
  if (!isObj(schema.items) && schema.items !== undefined) return d.any(p);
  const ruleName = `${d.name}-${name}-item`;
  const item =
    p.ruleNode(ruleName) !== undefined
      ? p.ref(ruleName)
      : p.rule(ruleName, literalValue(p, (schema.items as JsonSchema | undefined) ?? {}, d, `${name}-item`));
  const min = typeof schema.minItems === "number" ? Math.max(0, Math.floor(schema.minItems)) : 0;
  const max = typeof schema.maxItems === "number" ? Math.max(0, Math.floor(schema.maxItems)) : null;
  if (max === 0) return p.seq(p.literal("["), p.space(), p.literal("]"));
  const sep = p.seq(p.space(), p.literal(d.comma), p.space());
  const more = p.repeat(p.seq(sep, item), Math.max(0, min - 1), max === null ? null : max - 1);
  const items = p.seq(item, more);
  return p.seq(p.literal("["), p.space(), min > 0 ? items : p.optional(items), p.space(), p.literal("]"));
}

/** Whether a string schema says more than "a string". */
export function hasStringKeywords(schema: JsonSchema): boolean {
  return isObj(schema) && ["enum", "const", "pattern", "format", "minLength", "maxLength"].some((k) => k in schema);
}

/** A raw string between quotes: the schema's enum or bounds where it has them. */
export function quotedString(p: PegArena, schema: JsonSchema, open: string, close: string, name: string): PegId {
  const text = p.schema(boundedRawString(p, schema, [close]) ?? p.until(close), schema, { name, raw: true });
  return p.seq(p.literal(open), text, p.literal(close));
}

/**
 * Python repr: `{'k': 'v', 'n': 1, 'b': True, 'x': None}`, strings in either quote style (repr
 * picks double quotes for text holding a single quote); JSON spellings are allowed too.
 */
export const PYTHON_LITERALS: LiteralDialect = {
  name: "py",
  string: (p, schema, name) => {
    // Without string keywords: the literal grammar's own strings (escapes and all).
    if (!hasStringKeywords(schema)) return (pythonValue(p), p.ref("py-string"));
    return p.choice(quotedString(p, schema, "'", "'", `${name}-sq`), quotedString(p, schema, '"', '"', `${name}-dq`));
  },
  stringLiterals: (v) => [`'${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`, JSON.stringify(v)],
  key: (p, key) => p.choice(p.literal(`'${key}'`), p.literal(JSON.stringify(key))),
  any: (p) => pythonValue(p),
  words: { null: ["None", "null"], true: ["True", "true"], false: ["False", "false"] },
  comma: ",",
  colon: ":",
};
