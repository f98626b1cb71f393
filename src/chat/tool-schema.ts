/**
 * Tool parameters and response_format schemas at the API boundary: JSON Schema as plain JSON
 * data, or a schema library's object (zod, ArkType, Valibot, …) converted through its own JSON
 * Schema export (the Standard JSON Schema interface, `~standard.jsonSchema`). And `strict: true`:
 * the schema must convert to a grammar with no relaxation that would accept invalid arguments.
 */
import { contentKey } from "../grammar/content-key.js";
import { GbnfBuilder } from "../grammar/gbnf-builder.js";
import { LruCache } from "../grammar/lru-cache.js";
import { SchemaError } from "../grammar/schema/schema-error.js";
import { SchemaConverter } from "../grammar/schema/schema-to-gbnf.js";
import type { JsonSchema, StandardSchemaLike } from "../types.js";

export type { StandardResult, StandardSchemaLike } from "../types.js";

/**
 * Whether `value` is a schema library's object (it has the Standard Schema `~standard` property).
 *
 * @example
 * isStandardSchema(z.object({ city: z.string() })); // true
 * isStandardSchema({ type: "object" });              // false
 */
export function isStandardSchema(value: unknown): value is StandardSchemaLike {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const std = (value as { "~standard"?: unknown })["~standard"];
  if (typeof std !== "object" || std === null) return false;
  // zod's JSON Schema export is plain JSON data with a hidden (non-enumerable) `~standard`: JSON Schema.
  const plain = Object.getPrototypeOf(value) === Object.prototype;
  return !plain || Object.prototype.propertyIsEnumerable.call(value, "~standard");
}

function describeValue(v: unknown): string {
  if (typeof v === "function") return "a function";
  if (typeof v === "bigint") return "a bigint";
  if (typeof v === "symbol") return "a symbol";
  if (v === undefined) return "undefined";
  if (typeof v === "number") return String(v);
  const name = (Object.getPrototypeOf(v) as { constructor?: { name?: string } } | null)?.constructor?.name;
  return name ? `a ${name} instance` : "an object of a class";
}

function keyPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * The first part of `value` that is not JSON data (a function, a class instance, a non-finite
 * number, a cycle), as "PATH is WHAT"; null when it is all JSON. Iterative: any depth is safe.
 */
export function nonJsonPart(value: unknown, path: string): string | null {
  // Depth-first with exit frames: `open` holds the objects on the current path (a cycle's test).
  const open = new Set<object>();
  const stack: ({ v: unknown; path: string } | { exit: object })[] = [{ v: value, path }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if ("exit" in frame) {
      open.delete(frame.exit);
      continue;
    }
    const { v, path: at } = frame;
    if (v === null || typeof v === "string" || typeof v === "boolean") continue;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return `${at} is ${describeValue(v)}`;
      continue;
    }
    if (typeof v !== "object") return `${at} is ${describeValue(v)}`;
    const proto = Object.getPrototypeOf(v);
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return `${at} is ${describeValue(v)}`;
    if (open.has(v)) return `${at} refers back to an enclosing object (a cycle)`;
    open.add(v);
    stack.push({ exit: v });
    // An undefined property is absent in JSON (JSON.stringify and the templates' tojson skip it).
    const entries: [string, unknown][] = Array.isArray(v)
      ? v.map((x, i) => [`${at}[${i}]`, x])
      : Object.entries(v)
          .filter(([, x]) => x !== undefined)
          .map(([k, x]) => [keyPath(at, k), x]);
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ v: entries[i]![1], path: entries[i]![0] });
  }
  return null;
}

/** Each schema library object's JSON Schema, exported once (the same object on every turn). */
const converted = new WeakMap<object, JsonSchema>();

/**
 * The JSON Schema of a tool's `parameters` (or an answer's schema) as given: JSON Schema data is
 * returned as is; a schema library's object is converted with its own export of the schema of
 * its *input* (what the model writes; `execute` then gets the library's parsed output). Anything
 * else is a TypeError naming `where` and what was given.
 *
 * @example
 * parametersJsonSchema(z.object({ city: z.string() }), "tools[0].function.parameters");
 * // { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
 */
export function parametersJsonSchema(value: unknown, where: string): JsonSchema {
  if (typeof value === "boolean") return value;
  if (isStandardSchema(value)) {
    const known = converted.get(value);
    if (known !== undefined) return known;
    const std = value["~standard"];
    const vendor = typeof std.vendor === "string" ? std.vendor : "unknown";
    if (typeof std.jsonSchema?.input !== "function") {
      throw new TypeError(
        `${where} is a ${vendor} schema without a JSON Schema export (the Standard JSON Schema ` +
          `\`~standard.jsonSchema\`, zod >= 4.2 has it): ` +
          'upgrade the library, or pass the JSON Schema itself (zod 4: z.toJSONSchema(schema, { io: "input" }))',
      );
    }
    let schema: unknown;
    try {
      schema = std.jsonSchema.input({ target: "draft-2020-12" });
    } catch (e) {
      throw new TypeError(
        `${where}: the ${vendor} schema cannot be exported as JSON Schema: ` +
          `${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    }
    const bad = nonJsonPart(schema, "schema");
    if (bad !== null || schema === null || typeof schema !== "object" || Array.isArray(schema)) {
      throw new TypeError(
        `${where}: the ${vendor} schema's JSON Schema export is not a JSON Schema object${bad ? ` (${bad})` : ""}`,
      );
    }
    // `$schema` names the draft we asked for, which is also what a schema without it means: it
    // would only cost prompt tokens (templates render the tools).
    const { $schema: _draft, ...json } = schema as Record<string, unknown>;
    converted.set(value, json);
    return json;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError(
      `${where} must be a JSON Schema object (or a zod or other Standard JSON Schema), got ` +
        `${value === null ? "null" : Array.isArray(value) ? "an array" : describeValue(value)}`,
    );
  }
  const bad = nonJsonPart(value, where);
  if (bad !== null) throw new TypeError(`${where} must be a JSON Schema (plain JSON data), but ${bad}`);
  return value as JsonSchema;
}

/** Schemas already found exact, by content (a schema object changed after its check is checked again). */
const exact = new LruCache<true>(512, 8 * 1024 * 1024);

/**
 * For `strict: true`: the schema must convert to a grammar that accepts only valid instances
 * (no relaxation from schema-error.ts's list that widens what is accepted), objects closed to
 * undeclared properties unless the schema allows them. Else a SchemaError naming `where`.
 *
 * @example
 * checkStrictSchema({ type: "array", uniqueItems: true }, 'tools[0] ("f")');
 * // SchemaError: JSON Schema at #, keyword uniqueItems: tools[0] ("f") has strict: true, but ...
 */
export function checkStrictSchema(schema: JsonSchema, where: string): void {
  if (typeof schema === "boolean") return;
  const key = contentKey(schema);
  if (key !== undefined && exact.get(key)) return;
  try {
    new SchemaConverter(new GbnfBuilder(), {
      strict: true,
      additionalProperties: false,
      propertyOrder: "schema",
    }).convert(schema, "strict");
  } catch (e) {
    if (!(e instanceof SchemaError)) throw e;
    const reason = e.message.slice(`JSON Schema at ${e.pointer}, keyword ${e.keyword}: `.length);
    throw new SchemaError(
      e.pointer,
      e.keyword,
      `${where} has strict: true, but its schema cannot be enforced exactly: ${reason}`,
    );
  }
  if (key !== undefined) exact.set(key, true, 0);
}

/** Schemas already found to convert (without strict), by content. */
const convertible = new LruCache<true>(512, 8 * 1024 * 1024);

/**
 * A tool's parameters schema that no grammar can be made from (a `$ref` to nothing, a schema no
 * value satisfies, …): the SchemaError's JSON pointer (from the parameters' root) and keyword, and
 * the tool, by its index in the request's tools and its name, so that an API can name both.
 *
 * @example
 * import { ToolSchemaError } from "toolwright/chat";
 * try { generateChatParams(template, request); }
 * catch (e) { if (e instanceof ToolSchemaError) console.log(e.toolName, e.pointer); } // "get_weather" "#/properties/x"
 */
export class ToolSchemaError extends SchemaError {
  constructor(
    readonly toolIndex: number,
    readonly toolName: string,
    cause: SchemaError,
  ) {
    const reason = cause.message.slice(`JSON Schema at ${cause.pointer}, keyword ${cause.keyword}: `.length);
    const named = reason.includes(`tools[${toolIndex}]`)
      ? reason
      : `request.tools[${toolIndex}] (${JSON.stringify(toolName)}): ${reason}`;
    super(cause.pointer, cause.keyword, named);
    this.name = "ToolSchemaError";
  }
}

/**
 * Checks that a tool's parameters convert to a grammar (exactly, with `strict`), before any grammar
 * is built: a {@link ToolSchemaError} names the tool and where in its schema the problem is.
 *
 * @example
 * checkToolSchema({ $ref: "#/nope" }, 0, "f", false);
 * // ToolSchemaError: JSON Schema at #, keyword $ref: request.tools[0] ("f"): "#/nope" points to nothing
 */
export function checkToolSchema(schema: JsonSchema, index: number, name: string, strict: boolean): void {
  try {
    if (strict) checkStrictSchema(schema, `request.tools[${index}] (${JSON.stringify(name)})`);
    if (strict || typeof schema === "boolean") return;
    const key = contentKey(schema);
    if (key !== undefined && convertible.get(key)) return;
    new SchemaConverter(new GbnfBuilder(), { additionalProperties: false, propertyOrder: "schema" }).convert(
      schema,
      "parameters",
    );
    if (key !== undefined) convertible.set(key, true, 0);
  } catch (e) {
    if (e instanceof SchemaError) throw new ToolSchemaError(index, name, e);
    throw e;
  }
}
