/**
 * A tool's parameters as formats that write one argument at a time see them (tagged values, Python
 * keyword arguments): one object schema with a property per argument. Tools declare their parameters
 * in other shapes too (Pydantic writes a root `$ref`, `allOf` wrappers, and a discriminated union as a
 * root `oneOf`), so the view resolves a root `$ref`, merges `allOf` branches and joins the properties of
 * a root union's branches. The grammar of JSON formats keeps the schema as declared.
 */
import type { JsonSchema } from "../types.js";
import { inlineLocalRefs, resolve } from "./schema-refs.js";
import { isPlainObject as isObj } from "../validate/index.js";

type Obj = Record<string, unknown>;

/** How many `$ref`s in a row a schema's own reference is followed (a cycle stops there). */
const MAX_HOPS = 8;

/** The schema's own `$ref` (local), resolved against `root`, siblings kept. */
function resolvedRoot(root: JsonSchema, schema: JsonSchema): JsonSchema {
  let at = schema;
  for (let hop = 0; hop < MAX_HOPS && isObj(at) && typeof at.$ref === "string"; hop++) {
    const { $ref, ...rest } = at;
    const target = resolve(root, $ref);
    if (!isObj(target)) return at;
    at = { ...target, ...rest } as JsonSchema;
  }
  return isObj(at) && typeof at.$ref === "string" ? {} : at;
}

/**
 * The types two `type` keywords both allow (a keyword left out allows all); where they allow none in
 * common (a schema no value fits), the later one, so that every argument keeps a type to be read by.
 */
function intersectTypes(a: unknown, b: unknown): unknown {
  if (a === undefined) return b;
  if (b === undefined) return a;
  // "number" allows integers too.
  const allowed = (x: unknown): Set<unknown> => {
    const set = new Set(Array.isArray(x) ? x : [x]);
    if (set.has("number")) set.add("integer");
    return set;
  };
  const bs = allowed(b);
  let both = [...allowed(a)].filter((t) => bs.has(t));
  if (both.includes("number")) both = both.filter((t) => t !== "integer");
  if (both.length === 0) return b;
  return both.length === 1 ? both[0] : both;
}

/**
 * `schema` with its `allOf` branches merged into it (types intersected, properties and required
 * joined, other keywords of a later branch winning); nested schemas are left as they are.
 *
 * @example
 * mergeAllOf({ allOf: [{ type: ["integer", "string"] }, { type: "integer" }] }); // { type: "integer" }
 */
export function mergeAllOf(schema: JsonSchema, root: JsonSchema = schema, depth = MAX_HOPS): JsonSchema {
  if (!isObj(schema) || !Array.isArray(schema.allOf)) return schema;
  const { allOf, ...rest } = schema;
  let merged: Obj = { ...rest };
  // A branch that refers back to a schema it is part of (`allOf: [{$ref: "#"}]`) is merged a few levels deep.
  if (depth === 0) return merged as JsonSchema;
  for (const raw of allOf as JsonSchema[]) {
    const branch = mergeAllOf(resolvedRoot(root, raw), root, depth - 1);
    if (!isObj(branch)) continue;
    const type = intersectTypes(merged.type, branch.type);
    const properties = { ...(isObj(merged.properties) ? merged.properties : {}) };
    if (isObj(branch.properties)) Object.assign(properties, branch.properties);
    const required = [...new Set([...(Array.isArray(merged.required) ? merged.required : []), ...requiredOf(branch)])];
    merged = { ...merged, ...branch };
    if (type !== undefined) merged.type = type;
    if (Object.keys(properties).length > 0) merged.properties = properties;
    if (required.length > 0) merged.required = required;
  }
  return merged as JsonSchema;
}

function requiredOf(schema: Obj): unknown[] {
  return Array.isArray(schema.required) ? schema.required : [];
}

/** The branches of a root union (`oneOf` or `anyOf`), each resolved and merged; null where there is none. */
function rootBranches(schema: JsonSchema): Obj[] | null {
  const root = mergeAllOf(resolvedRoot(schema, schema), schema);
  if (!isObj(root)) return null;
  const list = Array.isArray(root.oneOf) ? root.oneOf : Array.isArray(root.anyOf) ? root.anyOf : null;
  if (list === null) return null;
  const branches = list.map((b) => mergeAllOf(resolvedRoot(schema, b as JsonSchema), schema)).filter(isObj);
  return branches.length > 0 ? branches : null;
}

/**
 * The parameters as one object schema: a root `$ref` resolved, `allOf` merged, and a root union's
 * branches joined (a property several branches declare differently is the `anyOf` of its schemas; it
 * is required where every branch requires it). `$defs` stay where the root declares them.
 *
 * @example
 * flatParameters({ oneOf: [{ properties: { a: { type: "string" } } }, { properties: { b: {} } }] });
 * // { properties: { a: { type: "string" }, b: {} } }
 */
export function flatParameters(schema: JsonSchema): JsonSchema {
  const root = mergeAllOf(resolvedRoot(schema, schema), schema);
  const branches = rootBranches(schema);
  if (!isObj(root) || branches === null) return root;
  const joined = new Map<string, JsonSchema[]>();
  for (const branch of branches) {
    const props = isObj(branch.properties) ? branch.properties : {};
    for (const [key, s] of Object.entries(props)) {
      const seen = joined.get(key) ?? [];
      if (!seen.some((x) => JSON.stringify(x) === JSON.stringify(s))) seen.push(s as JsonSchema);
      joined.set(key, seen);
    }
  }
  const properties: Obj = isObj(root.properties) ? { ...root.properties } : {};
  for (const [key, list] of joined)
    if (!(key in properties)) properties[key] = list.length === 1 ? list[0] : { anyOf: list };
  const shared = [...joined.keys()].filter((k) => branches.every((b) => requiredOf(b).includes(k)));
  const required = [...new Set([...requiredOf(root), ...shared])];
  const { oneOf: _oneOf, anyOf: _anyOf, ...rest } = root;
  return { ...rest, properties, ...(required.length > 0 ? { required } : {}) } as JsonSchema;
}

/**
 * The branch of a root union that arguments choose: the one branch whose fixed-value properties (`const`,
 * `enum`: the discriminator) all hold for the arguments, at least one of them given; else null.
 *
 * @example
 * const schema = { oneOf: [{ properties: { kind: { const: "a" } } }, { properties: { kind: { const: "b" } } }] };
 * chosenBranch(schema, { kind: "b" }); // { properties: { kind: { const: "b" } } }
 */
export function chosenBranch(schema: JsonSchema, args: Record<string, unknown>): Obj | null {
  const branches = rootBranches(schema);
  if (branches === null) return null;
  const matching = branches.filter((branch) => {
    const props = isObj(branch.properties) ? branch.properties : {};
    const fixed = Object.entries(props).filter(([, s]) => isObj(s) && ("const" in s || Array.isArray(s.enum)));
    const given = fixed.filter(([key]) => Object.hasOwn(args, key));
    return given.length > 0 && given.every(([key, s]) => allowsValue(s as Obj, args[key]));
  });
  // Only a discriminator that tells the branches apart chooses one.
  return matching.length === 1 ? matching[0]! : null;
}

/** Whether a `const` or `enum` keyword allows `value`. */
function allowsValue(schema: Obj, value: unknown): boolean {
  const v = JSON.stringify(value);
  if ("const" in schema) return JSON.stringify(schema.const) === v;
  return (schema.enum as unknown[]).some((e) => JSON.stringify(e) === v);
}

/**
 * The properties of the parameters' view ({@link flatParameters}), in declaration order, each with the
 * local `$ref`s into `root` inlined and its `allOf` merged (an argument is typed by its own schema).
 *
 * @example
 * viewProperties({ $defs: { N: { type: "integer" } }, properties: { n: { $ref: "#/$defs/N" } } });
 * // [["n", { type: "integer" }]]
 */
export function viewProperties(schema: JsonSchema, root: JsonSchema = schema): [string, JsonSchema][] {
  return propertiesOf(flatParameters(schema), root);
}

/**
 * The properties the parameters declare beside a root union (its branches' left out), as
 * {@link viewProperties} gives them.
 *
 * @example
 * ownProperties({ properties: { n: {} }, oneOf: [{ properties: { kind: { const: "a" } } }] }); // [["n", {}]]
 */
export function ownProperties(schema: JsonSchema): [string, JsonSchema][] {
  return propertiesOf(mergeAllOf(resolvedRoot(schema, schema), schema), schema);
}

function propertiesOf(schema: JsonSchema, root: JsonSchema): [string, JsonSchema][] {
  if (!isObj(schema) || !isObj(schema.properties)) return [];
  return Object.entries(schema.properties).map(([k, s]) => [
    k,
    mergeAllOf(inlineLocalRefs(root, s as JsonSchema), root),
  ]);
}

/**
 * The arguments the parameters' view ({@link flatParameters}) requires.
 *
 * @example
 * viewRequired({ $defs: { A: { required: ["city"] } }, $ref: "#/$defs/A" }); // ["city"]
 */
export function viewRequired(schema: JsonSchema): string[] {
  const flat = flatParameters(schema);
  const r = isObj(flat) ? flat.required : undefined;
  return Array.isArray(r) ? r.filter((x): x is string => typeof x === "string") : [];
}
