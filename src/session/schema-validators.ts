/**
 * Compiled ajv validators for tool arguments and `responseFormat` answers, shared by the tool
 * runner and the answer check. Kept by schema content, not by object: a server parses a new copy
 * of the same tools on every request, and ajv's own cache, keyed by object, would compile each
 * copy again (about a millisecond) and keep it forever. Bounded (least recently used first out,
 * removed from ajv too); a schema changed after use is compiled again.
 */
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { contentKey } from "../grammar/content-key.js";
import { LruCache } from "../grammar/lru-cache.js";
import { withoutOpenApiNullable } from "../grammar/schema/openapi-nullable.js";
import type { JsonSchema } from "../types.js";

// Formats are the grammar's job; unknown keywords are allowed (schemas come from everywhere).
const AJV_OPTIONS = { strict: false, allErrors: true, validateFormats: false } as const;
const ajv = new Ajv(AJV_OPTIONS);
/** Schemas that say they are draft 2020-12 (zod's export does) need that draft's validator. */
const ajv2020 = new Ajv2020(AJV_OPTIONS);

interface Compiled {
  validate: ValidateFunction | Error;
  /** Drops the schema from ajv's own cache. */
  release: () => void;
}

const byContent = new LruCache<Compiled>(512, 16 * 1024 * 1024, (c) => c.release());
/** Schemas that are not plain data (no content key): by object, as long as the object lives. */
const byObject = new WeakMap<object, Compiled>();

function compile(schema: Exclude<JsonSchema, boolean>): Compiled {
  // A caller's `$id` would clash on the shared instance when seen twice: compile a copy without it.
  // OpenAPI's `nullable` as a type, as the grammar reads it (ajv refuses one beside no `type`).
  const { $id: _id, $schema, ...rest } = withoutOpenApiNullable(schema) as Record<string, unknown>;
  const instance = typeof $schema === "string" && /2020-12|2019-09/.test($schema) ? ajv2020 : ajv;
  try {
    return { validate: instance.compile(rest), release: () => instance.removeSchema(rest) };
  } catch (e) {
    instance.removeSchema(rest);
    return { validate: e instanceof Error ? e : new Error(String(e)), release: () => {} };
  }
}

/**
 * The validator of `schema` (null: everything is valid; an Error: the schema does not compile).
 * `prepare` turns the schema into the one compiled (e.g. closing objects for `strict`); `variant`
 * names that preparation in the cache key.
 *
 * @example
 * const v = schemaValidator({ type: "integer" });
 * typeof v === "function" && v(3); // true
 */
export function schemaValidator(
  schema: JsonSchema | undefined,
  variant = "",
  prepare: (s: Exclude<JsonSchema, boolean>) => JsonSchema = (s) => s,
): ValidateFunction | Error | null {
  if (schema === undefined || schema === true) return null;
  if (schema === false) return ajv.compile(false);
  const key = contentKey(schema);
  let c = key === undefined ? byObject.get(schema) : byContent.get(`${variant}\u0000${key}`);
  if (c === undefined) {
    const prepared = prepare(schema);
    c = typeof prepared === "boolean" ? { validate: ajv.compile(prepared), release: () => {} } : compile(prepared);
    if (key === undefined) byObject.set(schema, c);
    else byContent.set(`${variant}\u0000${key}`, c, 0);
  }
  return c.validate;
}
