/**
 * PYTHONIC tool calls: Python call expressions with keyword arguments,
 *   [get_weather(city="Paris", days=3), get_time()]
 * in a list or not, inside the template's wrapper markers or bare. Values are Python literals
 * (strings in either quote with their escapes, True/False/None, numbers, dicts and lists; JSON
 * spellings too). Each keyword argument maps like a tagged argument (`tool-arg`: `arg-name` and a
 * value), so the mapper needs nothing format-specific.
 *
 * Parser and grammar differ on purpose:
 *  - the parser reads arguments in any order and string values leniently: a quote ends the
 *    string only where the call can go on after it (`)`, or `, name=`), because some templates
 *    (LFM2.5) write strings without escaping their quotes, and models learn to do the same;
 *  - the grammar copy (tool_choice required) writes the schema's arguments in order, the
 *    required ones always, strings with escaped quotes, other values typed by the schema.
 */
import type { PegArena, PegId } from "../peg/index.js";
import type { JsonSchema, ToolDefinition } from "../types.js";
import type { ToolsAnalysis } from "../analysis/index.js";
import {
  type BuildContext,
  boundedRawString,
  core,
  identifierEnd,
  marker,
  mayBeString,
  moreCalls,
  pythonSequence,
  pythonTyped,
  pythonValue,
  ruleName,
  schemaProperties,
  toolParameters,
} from "./build-helpers.js";
import { orderedArguments } from "./dedicated/grammar-args.js";
import { hasStringKeywords } from "./literal-schema.js";
import { splitRawSchema } from "./raw-union.js";
import { NODE } from "./tree-names.js";
import { argRuleName } from "./rule-names.js";

/**
 * Characters of a Python identifier: ASCII letters, digits and "_", and any character past ASCII
 * (Python takes letters of every script: `城市='北京'`).
 */
const IDENTIFIER_START = "A-Za-z_\u0080-\u{10ffff}";
const IDENTIFIER_PART = "A-Za-z0-9_\u0080-\u{10ffff}";

/**
 * `, name=` or the call's `)`: where the call goes on after a string argument (the quote really ended).
 * A `)` followed by another `)` or a quote is the string's own text (`mul_symbol='\,'))"`).
 */
function afterStringArgument(p: PegArena): PegId {
  const callEnd = p.seq(p.literal(")"), p.not(p.choice(p.literal(")"), p.literal("'"), p.literal('"'))));
  const nextKeyword = p.seq(
    p.literal(","),
    p.space(),
    p.chars(IDENTIFIER_START, 1, 1),
    p.chars(IDENTIFIER_PART, 0),
    p.space(),
    p.literal("="),
  );
  return p.choice(callEnd, nextKeyword, p.seq(p.literal(","), p.space(), p.literal(")")));
}

/**
 * A string argument in `quote` for the parser: escapes are read as escapes (the mapper decodes
 * them); an unescaped quote is text unless the call goes on after it.
 */
export function lenientString(p: PegArena, quote: string): PegId {
  const quoted = (q: string): PegId => {
    const closing = p.seq(p.literal(q), p.space(), afterStringArgument(p));
    const char = p.choice(p.seq(p.literal("\\"), p.any()), p.seq(p.not(closing), p.chars("^\\\\", 1, 1)));
    return p.seq(p.literal(q), p.capture(NODE.argPyString, p.zeroOrMore(char)), p.literal(q));
  };
  // Also Python's triple-quoted string (`'''it's [x]'''`), first: its quotes are no empty string.
  return p.choice(quoted(quote.repeat(3)), quoted(quote));
}

/**
 * A string argument in `quote` for the grammar: quotes inside are escaped; an enum is its values,
 * a maxLength bounds the characters (without escapes, so the bound holds).
 */
function strictString(p: PegArena, quote: string, schema: JsonSchema, name: string): PegId {
  const char = p.choice(p.chars(`^${quote}\\\\`, 1, 1), p.seq(p.literal("\\"), p.any()));
  // With string keywords (pattern, format, length) the text is plain characters the keywords then narrow.
  const text =
    boundedRawString(p, schema, [quote, "\\"]) ??
    (hasStringKeywords(schema) ? p.chars(`^${quote}\\\\`, 0) : p.zeroOrMore(char));
  return p.seq(
    p.literal(quote),
    p.capture(NODE.argPyString, p.schema(text, schema, { name, raw: true })),
    p.literal(quote),
  );
}

/** The value of one keyword argument. */
function argumentValue(ctx: BuildContext, schema: JsonSchema, name: string): PegId {
  const { p } = ctx;
  if (ctx.forGrammar) {
    // Strings and other values each with their part of the schema (see raw-union.ts); an untyped
    // schema is all text, beside which any literal stays allowed.
    const split = splitRawSchema(schema);
    const typed = (s: JsonSchema): PegId => p.capture(NODE.argJson, pythonTyped(ctx, s, name));
    if (!mayBeString(schema)) return typed(schema);
    const text = split.text ?? schema;
    const strings = p.choice(strictString(p, '"', text, `${name}-dq`), strictString(p, "'", text, `${name}-sq`));
    return isOnlyString(schema) ? strings : p.choice(strings, typed(split.typed ?? schema));
  }
  const literal = p.choice(p.capture(NODE.argJson, pythonValue(p)), p.capture(NODE.argString, pythonSequence(p)));
  return mayBeString(schema) ? p.choice(lenientString(p, '"'), lenientString(p, "'"), literal) : literal;
}

function isOnlyString(schema: JsonSchema): boolean {
  return typeof schema === "object" && schema !== null && (schema as { type?: unknown }).type === "string";
}

/** `name=value`, one tagged argument. */
function keywordArgument(ctx: BuildContext, key: string, schema: JsonSchema, toolIndex: number): PegId {
  const { p } = ctx;
  const name = argRuleName(toolIndex, key);
  const head = p.atomic(p.seq(p.capture(NODE.argName, p.literal(key)), p.space(), p.literal("=")));
  return p.tag(NODE.toolArg, p.seq(head, p.space(), argumentValue(ctx, schema, ruleName(ctx, name))));
}

/**
 * For the parser: a keyword argument the schema does not declare (kept: the argument check reports it), also
 * one named after a Python keyword (`from=1`).
 *
 * @example
 * p.choice(...declaredArguments, undeclaredKeywordArgument(p));
 */
export function undeclaredKeywordArgument(p: PegArena): PegId {
  const name = p.seq(p.chars(IDENTIFIER_START, 1, 1), p.chars(IDENTIFIER_PART, 0, 63));
  const head = p.atomic(p.seq(p.capture(NODE.argName, name), p.space(), p.literal("="), p.not(p.literal("="))));
  const value = p.choice(
    lenientString(p, '"'),
    lenientString(p, "'"),
    p.capture(NODE.argJson, pythonValue(p)),
    p.capture(NODE.argString, pythonSequence(p)),
  );
  return p.tag(NODE.toolArg, p.seq(head, p.space(), value));
}

/** The keyword arguments of one call: any order for the parser, the schema's order for the grammar. */
function keywordArguments(ctx: BuildContext, schema: JsonSchema, toolIndex: number): PegId {
  const { p } = ctx;
  const comma = p.seq(p.space(), p.literal(","), p.space());
  if (ctx.forGrammar)
    return orderedArguments(p, schema, (key, s) => keywordArgument(ctx, key, s, toolIndex), p.literal(", "));
  const props = schemaProperties(schema);
  const declared = props.map(([key, s]) => keywordArgument(ctx, key, s, toolIndex));
  const one = p.choice(...declared, undeclaredKeywordArgument(p));
  // A trailing comma is valid Python.
  return p.optional(p.seq(one, p.zeroOrMore(p.seq(comma, one)), p.optional(p.seq(p.space(), p.literal(",")))));
}

/** `name(args)` for one tool. */
function callOf(ctx: BuildContext, name: string, schema: JsonSchema, index: number): PegId {
  const { p } = ctx;
  const head = p.atomic(p.seq(p.capture(NODE.toolName, p.literal(name)), identifierEnd(p), p.space(), p.literal("(")));
  const close = p.literal(")");
  return p.tag(NODE.tool, p.seq(head, p.space(), keywordArguments(ctx, schema, index), p.space(), close));
}

/**
 * The tool-call section of a PYTHONIC format: a trigger rule (the lazy grammar starts at the
 * wrapper marker, or for bare calls at the list / call start, see {@link pythonicTrigger}).
 *
 * @example
 * buildPythonicTools(ctx, analysis.tools); // <|tool_call_start|> "[" call ("," call)* "]" <|tool_call_end|>
 */
export function buildPythonicTools(ctx: BuildContext, t: ToolsAnalysis): PegId {
  const { p } = ctx;
  const f = t.format;
  const call = p.choice(
    ...ctx.tools.map((tool, i) =>
      p.rule(ruleName(ctx, `tool-${i}`), callOf(ctx, tool.function.name, toolParameters(tool), i)),
    ),
  );
  const more = (item: PegId): PegId => moreCalls(ctx, item);
  const list = (inner: (item: PegId) => PegId, wrapped = f.toolsArrayWrapped): PegId => {
    const calls = p.seq(call, inner(p.seq(p.space(), p.literal(","), p.space(), call)));
    return wrapped ? p.seq(p.literal("["), p.space(), calls, p.space(), p.literal("]")) : calls;
  };
  // The parser reads a wrapper its model left unclosed (`<|tool_call_start|>[f(a=1)]` at the end); the grammar
  // writes the closer.
  const closer = (close: string): PegId =>
    core(close) === "" ? p.eps() : p.lenient(p.optional(marker(p, close)), marker(p, close));
  const wrap = (open: string, close: string, body: PegId): PegId =>
    core(open) === "" ? body : p.seq(marker(p, open), p.space(), body, p.space(), closer(close));
  let section: PegId;
  if (f.perCallStart !== "") {
    // Each call in its own wrapper: the grammar copy bounds the wrappers, not the list.
    const one = wrap(
      f.perCallStart,
      f.perCallEnd,
      list(() => p.eps()),
    );
    section = wrap(f.sectionStart, f.sectionEnd, p.seq(one, more(p.seq(p.space(), one))));
  } else {
    section = wrap(f.sectionStart, f.sectionEnd, list(more));
  }
  if (!ctx.forGrammar && pythonicTriggerWord(t) !== "" && f.perCallStart === "" && f.toolsArrayWrapped)
    ctx.bareCalls = { calls: list(more), head: pythonicListHead(p, ctx.tools), starts: ["["] };
  // In a code fence, bare calls may also come as one list or not; marked ones quoted as code are an example.
  if (!ctx.forGrammar && pythonicTriggerWord(t) !== "") ctx.quotedCalls = section;
  else if (!ctx.forGrammar) ctx.fencedCalls = p.choice(list(more), list(more, !f.toolsArrayWrapped));
  const trigger = ctx.toolTrigger ? pythonicTrigger(ctx, t) : false;
  return p.rule(ruleName(ctx, "tool-calls"), p.tag(NODE.toolSection, section), { trigger });
}

/**
 * `[NAME(`, a declared tool's name first: how a list of calls starts where no marker opens it.
 *
 * @example
 * pythonicListHead(p, tools); // matches "[get_weather(" and "[ get_weather ("
 */
export function pythonicListHead(p: PegArena, tools: readonly ToolDefinition[]): PegId {
  const name = p.choice(...tools.map((tool) => p.literal(tool.function.name)));
  return p.seq(p.literal("["), p.space(), name, p.space(), p.literal("("));
}

/**
 * What starts a lazy PYTHONIC grammar: the wrapper marker's leading literal, or for bare calls a
 * pattern on the call start at the start of the output (`[get_weather(` / `get_weather(`).
 */
function pythonicTrigger(ctx: BuildContext, t: ToolsAnalysis): true | { pattern: string } {
  if (pythonicTriggerWord(t) !== "") return true;
  const names = ctx.tools.map((tool) => escapeRegex(tool.function.name)).join("|");
  const open = t.format.toolsArrayWrapped ? "\\[\\s*" : "";
  return { pattern: `^\\s*(${open}(?:${names})\\s*\\()` };
}

/**
 * The wrapper marker that opens a PYTHONIC call section, "" for bare calls.
 *
 * @example
 * pythonicTriggerWord(lfm25Analysis.tools); // "<|tool_call_start|>"
 */
export function pythonicTriggerWord(t: ToolsAnalysis): string {
  return core(t.format.sectionStart) || core(t.format.perCallStart);
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
