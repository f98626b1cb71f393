/**
 * Local `$ref`s of a tool's parameters, inlined into one argument's schema. Formats that write
 * each argument on its own (tagged parameters, Python keyword arguments, element trees) type
 * and constrain it by its schema alone, so a `{"$ref": "#/$defs/Level"}` must become the
 * definition it points to. Recursive definitions are inlined a few levels deep, then left free.
 */
import type { JsonSchema } from "../types.js";

/** How many references deep a recursive definition is inlined before it is left unconstrained. */
const MAX_DEPTH = 6;

/** Keywords whose values are data, not schemas. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "$defs", "definitions", "required"]);

/**
 * What a local `$ref` (`#/$defs/Name`, JSON-pointer escapes read) points to in `root`; undefined where
 * it points to nothing.
 *
 * @example
 * resolve({ $defs: { L: { type: "integer" } } }, "#/$defs/L"); // { type: "integer" }
 */
export function resolve(root: unknown, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof at !== "object" || at === null || !(key in at)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/**
 * `schema` with the local references into `root` replaced by what they point to (sibling
 * keywords kept beside the definition's); references that do not resolve stay as they are.
 *
 * @example
 * const root = { $defs: { L: { enum: [1, 2] } }, properties: { v: { $ref: "#/$defs/L" } } };
 * inlineLocalRefs(root, root.properties.v); // { enum: [1, 2] }
 */
export function inlineLocalRefs(root: JsonSchema, schema: JsonSchema, depth = MAX_DEPTH): JsonSchema {
  if (Array.isArray(schema))
    return schema.map((s) => inlineLocalRefs(root, s as JsonSchema, depth)) as unknown as JsonSchema;
  if (typeof schema !== "object" || schema === null) return schema;
  const { $ref, ...rest } = schema as Record<string, unknown>;
  if (typeof $ref === "string") {
    const target = resolve(root, $ref);
    if (target !== undefined && typeof target === "object" && target !== null) {
      if (depth === 0) return {};
      return inlineLocalRefs(root, { ...(target as object), ...rest } as JsonSchema, depth - 1);
    }
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema as Record<string, unknown>))
    out[k] =
      DATA_KEYWORDS.has(k) || typeof v !== "object" || v === null ? v : inlineLocalRefs(root, v as JsonSchema, depth);
  return out as JsonSchema;
}
