/**
 * For the parsers of formats that write each argument as an element with its name in the opener
 * (`<atem:parameter name="k">…</atem:parameter>`, `<|open|>argument key="k" …<|sep|>…`): what the model
 * writes beyond the schema. An argument the tool does not declare is kept (the argument check reports
 * it); a value that is not what its schema types is kept as text.
 */
import type { PegArena, PegId } from "../../peg/index.js";
import type { ToolDefinition } from "../../types.js";
import { schemaProperties, toolParameters } from "../build-helpers.js";
import { NODE } from "../tree-names.js";

/**
 * A value up to `end`: JSON where the whole value reads as JSON, else its text.
 *
 * @example
 * p.seq(head, lenientValue(p, "</atem:parameter>"), p.literal("</atem:parameter>"));
 */
export function lenientValue(p: PegArena, end: string): PegId {
  const json = p.seq(p.and(p.seq(p.json(), p.space(), p.literal(end))), p.capture(NODE.argJson, p.json()), p.space());
  return p.choice(json, textValue(p, end));
}

/**
 * A value's text up to `end` (a string, or what a typed value that does not parse is kept as).
 *
 * @example
 * p.choice(typedValue, textValue(p, "</atem:parameter>"));
 */
export function textValue(p: PegArena, end: string): PegId {
  return p.capture(NODE.argString, p.until(end));
}

/**
 * An argument element whose name the schema does not declare: `before` NAME `after`, then the value
 * (`value`, else {@link lenientValue}), then `end`. The name is up to 64 of `nameChars` (a character class;
 * by default no quote, angle bracket or newline; a format that quotes names may allow all but the quote).
 *
 * @example
 * undeclaredElement(p, '<atem:parameter name="', '">', "</atem:parameter>");
 */
export function undeclaredElement(
  p: PegArena,
  before: string,
  after: PegId | string,
  end: string,
  value?: PegId,
  nameChars = '^"<>\\n',
): PegId {
  const tail = typeof after === "string" ? p.literal(after) : after;
  const head = p.seq(p.literal(before), p.capture(NODE.argName, p.chars(nameChars, 1, 64)), tail);
  return p.tag(NODE.toolArg, p.seq(p.atomic(head), value ?? lenientValue(p, end), p.literal(end)));
}

/**
 * A tool's arguments: `read` for the parser (any order, what the model writes beyond the schema too),
 * `typed()` for the grammar (the schema's arguments in order, typed), checked against the parameters.
 *
 * @example
 * argumentList(p, p.zeroOrMore(p.seq(p.space(), p.choice(...args))), tool, 0, () => typedArgs(p, ctx, tool, 0));
 */
export function argumentList(p: PegArena, read: PegId, tool: ToolDefinition, index: number, typed: () => PegId): PegId {
  const params = toolParameters(tool);
  if (schemaProperties(params).length === 0) return p.lenient(read, p.eps());
  return p.schema(read, params, { name: `tool-${index}-args`, grammar: p.seq(p.space(), typed()) });
}
