/**
 * Pieces of the grammar's own copy of a dedicated handler's call section (tool_choice
 * "required"): the parser reads arguments in any order and free text where the format has it,
 * while the grammar writes the schema's arguments in order, each once, with bounded strings, so
 * that even a model that samples at random ends with a valid call.
 */
import type { PegArena, PegId } from "../../peg/index.js";
import type { JsonSchema, ToolDefinition } from "../../types.js";
import {
  argumentValue,
  type BuildContext,
  boundedRawString,
  schemaProperties,
  toolParameters,
} from "../build-helpers.js";
import { viewRequired } from "../parameter-view.js";
import { rawOrTyped } from "../raw-union.js";
import { NODE } from "../tree-names.js";
import { argRuleName } from "../rule-names.js";

/**
 * The object's arguments in schema order, `sep` between them: required ones always, optional
 * ones optional (with their separator). `order` "sorted": in key order instead.
 *
 * @example
 * orderedArguments(p, { type: "object", properties: { a: {}, b: {} }, required: ["b"] }, arg, p.literal(", "));
 * // (a ", ")? b
 */
export function orderedArguments(
  p: PegArena,
  schema: JsonSchema,
  arg: (key: string, schema: JsonSchema) => PegId,
  sep: PegId,
  order: "schema" | "sorted" = "schema",
): PegId {
  const props = schemaProperties(schema);
  // Templates that print arguments with dictsort write them in key order.
  if (order === "sorted") props.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (props.length === 0) return p.eps();
  const required = new Set(viewRequired(schema));
  const items = props.map(([key, s]) => ({ node: arg(key, s), required: required.has(key) }));
  const tail = (from: number): PegId[] =>
    items.slice(from).map((it) => (it.required ? p.seq(sep, it.node) : p.optional(p.seq(sep, it.node))));
  const firstRequired = items.findIndex((it) => it.required);
  if (firstRequired >= 0) {
    const before = items.slice(0, firstRequired).map((it) => p.optional(p.seq(it.node, sep)));
    return p.seq(...before, items[firstRequired]!.node, ...tail(firstRequired + 1));
  }
  // All optional: the first one written starts the list.
  return p.optional(p.choice(...items.map((it, k) => p.seq(it.node, ...tail(k + 1)))));
}

/**
 * A raw (unquoted or custom-quoted) string up to `stops`: an enum's values; for a schema with
 * maxLength, at most that many characters that cannot start a stop; otherwise any text up to the
 * first stop.
 *
 * @example
 * grammarString(p, { type: "string", maxLength: 3 }, ["</city>"], "city"); // [^<\r\n]{0,3}
 */
export function grammarString(p: PegArena, schema: JsonSchema, stops: string[], name: string): PegId {
  return p.schema(boundedRawString(p, schema, stops) ?? p.until(...stops), schema, { name, raw: true });
}

/**
 * The grammar of one tool's arguments in a format of tagged arguments (a rule, built once): in
 * schema order, each value raw text up to `valueEnd` (for string schemas) or typed JSON, bounded;
 * `element` writes an argument around its name and value.
 *
 * @example
 * taggedArgsRule(p, ctx, tool, 0, "</param>", (key, value) =>
 *   p.seq(p.literal(`<param name="${key}">`), value, p.literal("</param>")),
 * );
 */
export function taggedArgsRule(
  p: PegArena,
  parse: BuildContext,
  tool: ToolDefinition,
  i: number,
  valueEnd: string,
  element: (key: string, value: PegId) => PegId,
): PegId {
  const rule = `g-tool-${i}-args`;
  if (p.ruleNode(rule) !== undefined) return p.ref(rule);
  const ctx: BuildContext = { ...parse, forGrammar: true };
  const arg = (key: string, schema: JsonSchema): PegId => {
    const name = argRuleName(i, key);
    const value = rawOrTyped(p, schema, {
      text: (s) => p.capture(NODE.argString, grammarString(p, s, [valueEnd], name)),
      typed: (s) => p.capture(NODE.argJson, argumentValue(ctx, s, name)),
      stops: null,
      forGrammar: true,
    });
    return p.tag(NODE.toolArg, element(key, value));
  };
  return p.rule(rule, orderedArguments(p, toolParameters(tool), arg, p.space()));
}
