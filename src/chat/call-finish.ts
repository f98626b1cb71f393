/**
 * The last check of a call the model finished writing: its arguments must be one JSON object
 * (or a JSON string: holding one, it is that object; holding none, its text is the arguments, which
 * the argument check then reports) with no argument written twice (but for one whose schema declares a list:
 * its values are the list's items). A value of a parameter that came
 * as text is read as the value it spells where the schema declares that type (JSON or Python-literal
 * text, a number with spaces or leading zeros), else it stays text; arguments wrapped in one undeclared
 * argument are unwrapped. A call that fails the check is not a call: the mapper keeps its text as content.
 */
import type { JsonSchema } from "../types.js";
import { JsonNormalizer } from "./json-normalizer.js";
import { jsonMembers, repeatedAsLists } from "./repeated-members.js";
import { chosenBranch, ownProperties, viewProperties, viewRequired } from "./parameter-view.js";
import { isPlainObject } from "../validate/index.js";

/**
 * The arguments to emit for a finished call, or null when the call is malformed.
 *
 * @param args The arguments as the mapper read them (compact JSON).
 * @param argNames The names of tagged arguments in the order written (empty for JSON arguments).
 * @param schema The tool's parameter schema, when the request declared the tool.
 * @example
 * finishCallArguments('{"n":"[1, 2]"}', ["n"], { type: "object", properties: { n: { type: "array" } } });
 * // '{"n":[1,2]}'
 * finishCallArguments('{"a":1}', ["a", "a"], undefined); // null: an argument written twice
 * finishCallArguments('"weather in Paris"', [], undefined); // 'weather in Paris': not JSON, reported later
 */
export function finishCallArguments(args: string, argNames: readonly string[], schema: unknown): string | null {
  let changed = false;
  if (new Set(argNames).size !== argNames.length) {
    const listed = repeatedListArguments(args, argNames, schema);
    if (listed === null) return null;
    args = listed;
    changed = true;
  }
  let value = parseJson(args);
  if (typeof value === "string") {
    // Arguments written as a JSON string holding the object; a string that holds none is the arguments as
    // written (not JSON: the argument check reports it, as for any call whose arguments do not parse).
    const inner = parseJson(value);
    if (!isPlainObject(inner)) return value;
    value = inner;
    changed = true;
  }
  if (!isPlainObject(value)) return null;
  if (keepOverflowingNumbers(value, args)) changed = true;
  let object = value;
  const unwrapped = soleWrappedArguments(object, schema);
  if (unwrapped !== null) {
    object = unwrapped;
    changed = true;
  }
  // Where the parameters are a union, the branch the arguments choose (their discriminator) types them.
  const branch = schema === undefined ? null : chosenBranch(schema as JsonSchema, object);
  const view = branch === null ? schema : { type: "object", properties: branchProperties(schema, branch) };
  // Values written one by one (tagged, keyword arguments) were typed by the union's joined view.
  if (branch !== null && argNames.length > 0 && writeAsText(object, view, args)) changed = true;
  if (readMembersAsDeclared(object, view)) changed = true;
  return changed ? JSON.stringify(object) : args;
}

/**
 * A member whose value holds a number no double can hold (`1e999`, which JSON.parse makes Infinity and JSON
 * null) keeps its text as written, as a string; true if any did. `text` is the object as JSON.
 */
function keepOverflowingNumbers(value: Record<string, unknown>, text: string): boolean {
  const overflowing = Object.keys(value).filter((k) => holdsNonFinite(value[k]));
  if (overflowing.length === 0) return false;
  const spans = memberTexts(text);
  for (const key of overflowing) value[key] = spans.get(key) ?? String(value[key]);
  return true;
}

function holdsNonFinite(v: unknown): boolean {
  if (typeof v === "number") return !Number.isFinite(v);
  if (v !== null && typeof v === "object") return Object.values(v).some(holdsNonFinite);
  return false;
}

/**
 * Arguments with a tagged argument written more than once, where the schema declares each such argument a list:
 * the values written, in order, as its items (a value that spells a list adds its items). Null where a repeated
 * argument is no list (which value the model meant is unknown: the call is not read).
 */
function repeatedListArguments(args: string, argNames: readonly string[], schema: unknown): string | null {
  const properties = propertiesOf(schema);
  const repeated = new Set(argNames.filter((name, i) => argNames.indexOf(name) !== i));
  if (![...repeated].every((name) => declaredTypes(properties[name])?.has("array") === true)) return null;
  try {
    return repeatedAsLists(args, (key, value) => {
      const listed = typeof value === "string" ? readAsDeclared(value, properties[key]) : value;
      return Array.isArray(listed) ? listed : [value];
    });
  } catch {
    return null;
  }
}

/** The text of each top-level member's value of a JSON object's text, by key. */
function memberTexts(text: string): Map<string, string> {
  return new Map(jsonMembers(text));
}

/** Reads the text values of an object's members (nested ones too) as their schemas declare; true if any changed. */
function readMembersAsDeclared(value: Record<string, unknown> | unknown[], schema: unknown): boolean {
  let changed = false;
  const properties = propertiesOf(schema);
  const items = isPlainObject(schema) ? schema.items : undefined;
  for (const [key, v] of Object.entries(value)) {
    const memberSchema = Array.isArray(value) ? items : properties[key];
    if (typeof v === "string") {
      const typed = readAsDeclared(v, memberSchema);
      if (typed === undefined) continue;
      (value as Record<string, unknown>)[key] = typed;
      changed = true;
    } else if (v !== null && typeof v === "object" && readMembersAsDeclared(v as Record<string, unknown>, memberSchema))
      changed = true;
  }
  return changed;
}

/**
 * The arguments a model wrapped in one argument the schema does not declare (`{"arguments": {"city": …}}`,
 * also as JSON or Python-literal text): its object, where every key of it is declared; else null.
 */
function soleWrappedArguments(value: Record<string, unknown>, schema: unknown): Record<string, unknown> | null {
  const properties = propertiesOf(schema);
  const keys = Object.keys(value);
  if (keys.length !== 1 || Object.hasOwn(properties, keys[0]!) || Object.keys(properties).length === 0) return null;
  const inner = value[keys[0]!];
  const object = typeof inner === "string" ? parseLiteral(inner.trim()) : inner;
  if (!isPlainObject(object) || Object.keys(object).length === 0) return null;
  return Object.keys(object).every((k) => Object.hasOwn(properties, k)) ? object : null;
}

/** The JSON or Python literal `text` spells (`{'a': True}`), else `undefined`. */
function parseLiteral(text: string): unknown {
  const json = parseJson(text);
  if (json !== undefined) return json;
  const normalizer = new JsonNormalizer();
  const pushed = normalizer.push(text);
  // A literal that does not end (`[1, 2`) spells nothing: the text stays as written.
  const ends = normalizer.closedButForToken;
  const written = pushed + normalizer.close();
  return normalizer.failed || !ends || !normalizer.complete ? undefined : parseJson(written);
}

/** The list a Python tuple or set literal spells (`(1, 2)`, `{'a', 'b'}`), else `undefined`. */
function pythonSequenceAsList(text: string): unknown[] | undefined {
  const t = text.trim();
  const pair = t[0]! + t[t.length - 1]!;
  if (t.length < 2 || (pair !== "()" && pair !== "{}")) return undefined;
  const inner = t.slice(1, -1);
  if (pair === "{}" && (inner.trim() === "" || topLevelColon(inner))) return undefined;
  const v = parseLiteral(`[${inner}]`);
  return Array.isArray(v) ? v : undefined;
}

/** Whether `text` holds a `:` outside brackets and quotes (a dict's member, not a set's item). */
function topLevelColon(text: string): boolean {
  let depth = 0;
  let quote = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== "") {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) depth--;
    else if (c === ":" && depth === 0) return true;
  }
  return false;
}

/** `undefined` where the text is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function propertiesOf(schema: unknown): Record<string, unknown> {
  if (!isPlainObject(schema)) return {};
  return Object.fromEntries(viewProperties(schema as JsonSchema));
}

/** The properties declared beside a root union with a chosen branch's over them, the root's `$ref`s inlined. */
function branchProperties(root: unknown, branch: Record<string, unknown>): Record<string, unknown> {
  const own = Object.fromEntries(ownProperties(root as JsonSchema));
  return { ...own, ...Object.fromEntries(viewProperties(branch as JsonSchema, root as JsonSchema)) };
}

/**
 * Numbers and booleans read where the chosen branch declares only a string (`7` for a text `value`):
 * the text written (`text`: the arguments as JSON); true if any changed.
 */
function writeAsText(object: Record<string, unknown>, view: unknown, text: string): boolean {
  const properties = isPlainObject(view) && isPlainObject(view.properties) ? view.properties : {};
  const keys = Object.keys(object).filter((key) => {
    const s = properties[key];
    const v = object[key];
    return isPlainObject(s) && s.type === "string" && (typeof v === "number" || typeof v === "boolean");
  });
  if (keys.length === 0) return false;
  const spans = memberTexts(text);
  for (const key of keys) object[key] = spans.get(key) ?? JSON.stringify(object[key]);
  return true;
}

/** JSON types a property schema allows; null when it allows any (or strings). */
function declaredTypes(schema: unknown): Set<string> | null {
  if (!isPlainObject(schema)) return null;
  const t = schema.type;
  const types = typeof t === "string" ? [t] : Array.isArray(t) ? t.filter((x) => typeof x === "string") : [];
  if (types.length === 0 || types.includes("string")) return null;
  return new Set(types as string[]);
}

/**
 * A text value of a parameter declared as a container: the JSON it spells (also escaped once
 * more, as models that write JSON inside a tagged value do), when that has a declared type.
 */
function readAsDeclared(text: string, schema: unknown): unknown {
  const types = declaredTypes(schema);
  if (types === null) return undefined;
  if (!(types.has("array") || types.has("object"))) return scalarAsDeclared(text.trim(), types);
  // The text as it is, else as the body of a JSON string (the model escaped the JSON once more).
  const unescaped = parseJson(`"${text}"`);
  for (const candidate of typeof unescaped === "string" ? [text, unescaped] : [text]) {
    let v = parseLiteral(candidate.trim());
    // A Python tuple or set (`(1, 2)`, `{'a', 'b'}`) where a list is declared: the list, in written order.
    if (v === undefined && types.has("array")) v = pythonSequenceAsList(candidate);
    // A JSON string holding the value (`"{'key': 1}"`).
    if (typeof v === "string") v = parseLiteral(v.trim());
    if (v === undefined || holdsNonFinite(v)) continue;
    const kind = Array.isArray(v) ? "array" : v === null ? "null" : typeof v;
    // `null` where no string is declared: no value, as for scalars.
    if (types.has(kind) || v === null) return v;
  }
  return undefined;
}

/**
 * A text value of a parameter declared as numbers, booleans or null: the value it spells, with the
 * whitespace around it (`<arg_value> 420 </arg_value>`) and leading zeros (`018956`) of a number left out,
 * a boolean written as `1` or `0`, a value written as a JSON string (`"42"`), and `null` as null.
 */
function scalarAsDeclared(text: string, types: Set<string>, quoted = false): unknown {
  const v = /^[+-]?\d+$/.test(text) ? Number(text) : parseJson(text);
  // A value written as a JSON string (`"42"`): the value it holds.
  if (typeof v === "string" && !quoted) return scalarAsDeclared(v.trim(), types, true);
  // `null` where no string is declared: no value (the argument check reports a type that allows none).
  if (v === null) return quoted ? undefined : null;
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return undefined;
    if (types.has("number") || (types.has("integer") && Number.isInteger(v))) return v;
    // A flag written as 1 or 0 where only a boolean is declared.
    return types.has("boolean") && (text === "1" || text === "0") ? text === "1" : undefined;
  }
  const kind = v === null ? "null" : typeof v;
  return types.has(kind) ? v : undefined;
}

/**
 * The name of a call the model wrote without one: the one declared tool whose parameters its
 * arguments fit (every argument declared, every required one given), else null.
 *
 * @example
 * const tools = { read: { properties: { path: {} } }, weather: { properties: { city: {} } } };
 * toolNameFromArguments('{"city":"Tokyo"}', tools); // "weather"
 */
export function toolNameFromArguments(args: string, tools: Readonly<Record<string, unknown>>): string | null {
  let value = parseJson(args);
  if (typeof value === "string") value = parseJson(value);
  if (!isPlainObject(value)) return null;
  const keys = Object.keys(value);
  const fitting = Object.entries(tools).filter(([, schema]) => {
    const declared = propertiesOf(schema);
    const required = isPlainObject(schema) ? viewRequired(schema as JsonSchema) : [];
    return keys.every((k) => k in declared) && required.every((r) => keys.includes(r));
  });
  return fitting.length === 1 ? fitting[0]![0] : null;
}
