/**
 * Small building blocks shared by the chat parser builders: JSON / Python-literal values, tool schemas, call lists
 * (markers, from build-markers.ts, are re-exported here).
 */
import { withoutOpenApiNullable } from "../grammar/schema/openapi-nullable.js";
import type { PegArena, PegId } from "../peg/index.js";
import type { JsonSchema, ToolDefinition } from "../types.js";
import { STRING_FOLLOWERS } from "./json-normalizer.js";
import { PYTHON_LITERALS, literalValue } from "./literal-schema.js";
import { viewProperties } from "./parameter-view.js";
import { NODE } from "./tree-names.js";

/** What every builder gets: the arena and the request's tool settings. */
export interface BuildContext {
  p: PegArena;
  /** The tools the model may call (already narrowed by a named tool_choice). */
  tools: ToolDefinition[];
  /** At least one call is required (tool_choice "required" or a named function). */
  requireCalls: boolean;
  parallel: boolean;
  /** The parser reads several calls (see NormalizedRequest.readsParallel); default `parallel`. */
  readsParallel?: boolean;
  /** Arguments are written as Python literals (single quotes, True/None). */
  pythonValues: boolean;
  /** Tagged non-string values are written as Python literals (the template prints them with repr). */
  pythonTaggedValues: boolean;
  /**
   * The tool section is a trigger rule (it starts a lazy grammar). Off when a strict grammar is
   * deferred past forced-open reasoning: then only the reasoning end may start it.
   */
  toolTrigger: boolean;
  /** Tagged string values may be wrapped in <![CDATA[ ... ]]>. */
  cdataStrings: boolean;
  /**
   * Tagged objects / arrays are written as JSON even where `pythonTaggedValues` says scalars are
   * Python literals (templates that `tojson` mappings): the grammar copy enforces their schema.
   * Each kind is its own: a template may `tojson` mappings and print lists with `str()`.
   */
  jsonContainers?: { objects: boolean; arrays: boolean };
  /**
   * Building the grammar's own copy of the call section (see {@link grammarContext}): tagged
   * arguments in schema order, each once, required ones mandatory; values typed by the schema;
   * raw strings bounded by maxLength; parallel calls bounded by `maxCalls`.
   */
  forGrammar?: boolean;
  /** Prefix of the rule names this context defines (the grammar copy's rules must not clash). */
  rulePrefix?: string;
  /** Most calls in one section, in the grammar copy (default {@link DEFAULT_MAX_TOOL_CALLS}). */
  maxCalls?: number;
  /**
   * Set by a markerless call format: how a call starts, through its tool name. Once the output has
   * that head, it is a call (the stream has announced it); a later failure is recovered as a
   * broken call, never re-read as plain content (streamed and whole parses agree).
   */
  callHead?: PegId;
  /**
   * Set by the call format's builder, for the parser: what a Markdown code fence around calls holds
   * when it holds only calls (the section's calls without its tag; see fenced-calls.ts).
   */
  fencedCalls?: PegId;
  /**
   * Set by a format whose calls open with a marker, for the parser: its calls (without the section's tag), which
   * quoted as inline code or in a code fence are an example, not calls (see fenced-calls.ts).
   */
  quotedCalls?: PegId;
  /**
   * Set by a format whose calls sit inside markers, for the parser: the calls as models also write them
   * without the markers (a Python or JSON list, a JSON call object), where `head` matches (a declared tool's
   * name first), at one of the characters `starts` (see generic-parser.ts).
   */
  bareCalls?: BareCalls;
}

/** Calls written without the markers of their format: see {@link BuildContext.bareCalls}. */
export interface BareCalls {
  calls: PegId;
  head: PegId;
  starts: readonly string[];
  /**
   * Read only as the whole output (after reasoning): a format whose every call has its own marker, where peers
   * keep a call-shaped object in prose as text but read a model's output that is nothing but the call.
   */
  wholeOutput?: boolean;
}

/** Most parallel calls per turn a grammar allows unless the request says otherwise. */
export const DEFAULT_MAX_TOOL_CALLS = 8;

/**
 * The context of the grammar's copy of the call section: same request, rules prefixed "g-".
 *
 * @example
 * const g = grammarContext(ctx, 4); // g.forGrammar === true, g.ruleName("tool-0") === "g-tool-0"
 */
export function grammarContext(ctx: BuildContext, maxCalls: number): BuildContext {
  return { ...ctx, forGrammar: true, rulePrefix: "g-", maxCalls };
}

/** The name of rule `name` in this context (prefixed for the grammar copy). */
export function ruleName(ctx: BuildContext, name: string): string {
  return `${ctx.rulePrefix ?? ""}${name}`;
}

/**
 * Repetitions of further calls: any number for the parser; for the grammar copy at most
 * `maxCalls - 1` (random or confused models must still reach the end); none without parallel calls.
 */
export function moreCalls(ctx: BuildContext, item: PegId): PegId {
  const { p } = ctx;
  if (!ctx.forGrammar)
    return (ctx.readsParallel ?? ctx.parallel) ? p.lenient(p.zeroOrMore(item), parserMore(ctx, item)) : p.eps();
  if (!ctx.parallel) return p.eps();
  return p.repeat(item, 0, Math.max(0, (ctx.maxCalls ?? DEFAULT_MAX_TOOL_CALLS) - 1));
}

/** What the grammar allows of further calls where the parser reads more than the template writes. */
function parserMore(ctx: BuildContext, item: PegId): PegId {
  return ctx.parallel ? ctx.p.zeroOrMore(item) : ctx.p.eps();
}

/**
 * A call section, then further ones with text between them, then text: models write several
 * sections (`text <call/> more text <call/> end`), and every one is read, the text before,
 * between and after them content (never dropped). `stops` ends a text: a section opener first,
 * then any word the format's turn ends with (`text`, when given, is the text instead). `readsMore`
 * false: only the first section is read.
 * A broken section fails here; the stream parser keeps its text as content (chat-parser.ts).
 *
 * @example
 * const body = p.seq(p.capture(NODE.content, p.until(OPEN)), sectionsThenText(p, section, [OPEN], true), p.end());
 */
export function sectionsThenText(
  p: PegArena,
  section: PegId,
  stops: readonly string[],
  readsMore: boolean,
  text: PegId = p.capture(NODE.content, p.until(...stops)),
): PegId {
  return sectionsBetween(p, section, text, readsMore);
}

/**
 * A call section, then further ones with `between` optional before each, then `between` once
 * more, optional, whitespace before it: {@link sectionsThenText} where what a format writes
 * between its sections is more than plain text (wrapped content, messages with their own
 * headers). `between` reads the whitespace before the next section where the format allows
 * any (a header may begin with a space of its own), and must not read a section's opener.
 * `first`: the first section, where it is written otherwise (without the opener of the others).
 *
 * @example
 * const calls = sectionsBetween(p, callMessage, p.seq(p.literal(NEXT_MESSAGE), preambles), true);
 */
export function sectionsBetween(
  p: PegArena,
  section: PegId,
  between: PegId,
  readsMore: boolean,
  first: PegId = section,
): PegId {
  const more = readsMore ? p.zeroOrMore(p.seq(p.space(), p.optional(between), section)) : p.eps();
  return p.seq(first, more, p.space(), p.optional(between));
}

/** `ch` escaped for a character class of `p.chars`. */
export function classEscape(ch: string): string {
  return /[\\\][^-]/.test(ch) ? `\\${ch}` : ch;
}

/**
 * For the grammar copy: an unquoted string of a schema with maxLength, as at most that many
 * characters that cannot start a delimiter (so the value always ends); null when unbounded.
 *
 * @example
 * boundedRawString(p, { type: "string", maxLength: 3 }, ["</parameter>"]); // [^<]{0,3}
 */
export function boundedRawString(p: PegArena, schema: JsonSchema, stops: string[]): PegId | null {
  if (typeof schema !== "object" || schema === null) return null;
  const s = schema as { maxLength?: unknown; minLength?: unknown };
  if (typeof s.maxLength !== "number" || !Number.isInteger(s.maxLength) || s.maxLength < 0) return null;
  const min =
    typeof s.minLength === "number" && Number.isInteger(s.minLength) && s.minLength >= 0
      ? Math.min(s.minLength, s.maxLength)
      : 0;
  const firsts = [...new Set(stops.filter((d) => d !== "").map((d) => d[0]!))];
  return p.chars(`^${firsts.map(classEscape).join("")}\\r\\n`, min, s.maxLength);
}

export {
  core,
  spaceAroundName,
  SPACE_GLYPH,
  glyphSpellings,
  marker,
  nameSuffix,
  eitherQuote,
  tagAsAttribute,
  tagBeforeEquals,
  counterMarker,
  identifierEnd,
  withoutSpecialTokens,
} from "./build-markers.js";

/** A schema that says nothing of its values' types (`{}`, a description only). */
export function isUntyped(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null) return true;
  return !["type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref"].some((key) => key in schema);
}

/**
 * The arguments schema of a tool as the grammar and the parser read it: an empty object schema when
 * it declares none, OpenAPI's `nullable: true` as a `null` type (openapi-nullable.ts). The template
 * renders the tool as given.
 */
export function toolParameters(tool: ToolDefinition): JsonSchema {
  const params = tool.function.parameters;
  if (params === undefined || params === null) return { type: "object", properties: {} };
  // Not kept by object: a schema changed between requests is read as it is now (the walk is cheap).
  return withoutOpenApiNullable(params);
}

/**
 * Properties of a tool's parameters, in declaration order, each with the schema's local `$ref`s
 * inlined (an argument is typed by its own schema; see schema-refs.ts), also where the parameters
 * are a root `$ref`, `allOf` or union (parameter-view.ts).
 */
export function schemaProperties(schema: JsonSchema): [string, JsonSchema][] {
  return viewProperties(schema);
}

/**
 * Whether a value of this schema may be a string, i.e. a tagged format writes it unquoted.
 * Untyped values count as strings (templates render them with str()).
 */
export function mayBeString(schema: JsonSchema): boolean {
  if (typeof schema !== "object" || schema === null) return true;
  const s = schema as { type?: unknown; enum?: unknown; const?: unknown; anyOf?: unknown; oneOf?: unknown };
  if (typeof s.type === "string") return s.type === "string";
  if (Array.isArray(s.type)) return s.type.includes("string");
  if (Array.isArray(s.enum)) return s.enum.some((v) => typeof v === "string");
  if ("const" in s) return typeof s.const === "string";
  for (const list of [s.anyOf, s.oneOf]) if (Array.isArray(list)) return list.some((x) => mayBeString(x as JsonSchema));
  return true;
}

/**
 * A quoted object key: `"key"`, or also `'key'` for Python literals (the parser reads both in every
 * format: models write a JSON call as a Python dict, `{'name': 'f', 'parameters': {'on': True}}`).
 */
export function quotedKey(ctx: BuildContext, key: string): PegId {
  const { p } = ctx;
  const json = p.literal(JSON.stringify(key));
  return ctx.pythonValues || !ctx.forGrammar ? p.choice(json, p.literal(`'${key.replace(/'/g, "\\'")}'`)) : json;
}

/** A quoted literal string value (a function name), either quote style for Python literals (and the parser). */
export function quotedName(ctx: BuildContext, name: string, capture: (inner: PegId) => PegId): PegId {
  const { p } = ctx;
  const dq = p.seq(p.literal('"'), capture(p.literal(name)), p.literal('"'));
  if (!ctx.pythonValues && ctx.forGrammar) return dq;
  return p.choice(dq, p.seq(p.literal("'"), capture(p.literal(name)), p.literal("'")));
}

/**
 * A value parser for arguments. The parser takes JSON or Python literals (templates render
 * values with Python's repr as often as with JSON); the grammar is the schema's JSON, unless the
 * format writes Python literals, where it is the permissive literal grammar.
 */
export function argumentValue(ctx: BuildContext, schema: JsonSchema, name: string): PegId {
  const { p } = ctx;
  if (ctx.pythonValues) {
    const typed = pythonTyped(ctx, schema, ruleName(ctx, name));
    return ctx.forGrammar ? typed : p.schema(pythonValue(p), schema, { name, grammar: typed });
  }
  return p.schema(p.choice(p.json(), pythonValue(p)), schema, { name });
}

/**
 * For the grammar copy, a value the template writes as a Python literal, typed by the schema
 * (see literal-schema.ts): booleans True/False, None, enums and consts as their literals,
 * objects and arrays by their properties and items; numbers by the JSON schema; containers the
 * schema's JSON where the template writes them as JSON (`jsonContainers`).
 *
 * @example
 * pythonTyped(ctx, { type: "boolean" }, "flag"); // "True" | "true" | "False" | "false"
 */
export function pythonTyped(ctx: BuildContext, schema: JsonSchema, name: string): PegId {
  const { p } = ctx;
  const type = typeof schema === "object" && schema !== null ? (schema as { type?: unknown }).type : undefined;
  if (type === "integer" || type === "number") return p.schema(p.json(), schema, { name });
  if ((type === "object" && ctx.jsonContainers?.objects) || (type === "array" && ctx.jsonContainers?.arrays))
    return p.schema(p.json(), schema, { name });
  return literalValue(p, schema, PYTHON_LITERALS, name);
}

/** Python literals plus JSON: dicts, lists, either quote style, True/False/None. */
export function pythonValue(p: PegArena): PegId {
  const existing = p.ruleNode("py-value");
  if (existing !== undefined) return p.ref("py-value");
  return p.rule("py-value", () => {
    const ws = p.space();
    // A quote that anything but what may follow a string follows is the string's text (`"He said "hi" to me"`,
    // `'it's'`), as models that leave it unescaped mean it (the normalizer reads it so too).
    const follower = p.chars([...STRING_FOLLOWERS].map(classEscape).join(""), 1, 1);
    const closes = p.seq(ws, p.choice(follower, p.end()));
    const str = (q: string): PegId =>
      p.seq(
        p.literal(q),
        p.zeroOrMore(
          p.choice(p.chars(`^${q}\\\\`, 1), p.seq(p.literal("\\"), p.any()), p.seq(p.literal(q), p.not(closes))),
        ),
        p.literal(q),
      );
    const string = p.rule("py-string", p.choice(str('"'), str("'")));
    const number = p.rule(
      "py-number",
      p.seq(
        p.optional(p.chars("\\-+", 1, 1)),
        // `1`, `1.`, `1.5`, and `.5` as Python writes it.
        p.choice(
          p.seq(p.chars("0-9", 1), p.optional(p.seq(p.literal("."), p.chars("0-9", 0)))),
          p.seq(p.literal("."), p.chars("0-9", 1)),
        ),
        p.optional(p.seq(p.chars("eE", 1, 1), p.optional(p.chars("\\-+", 1, 1)), p.chars("0-9", 1))),
      ),
    );
    const value = p.ref("py-value");
    const member = p.seq(string, ws, p.literal(":"), ws, value);
    const dict = p.seq(
      p.literal("{"),
      ws,
      p.optional(
        p.seq(member, p.zeroOrMore(p.seq(ws, p.literal(","), ws, member)), ws, p.optional(p.literal(",")), ws),
      ),
      p.literal("}"),
    );
    const list = p.seq(
      p.literal("["),
      ws,
      p.optional(p.seq(value, p.zeroOrMore(p.seq(ws, p.literal(","), ws, value)), ws, p.optional(p.literal(",")), ws)),
      p.literal("]"),
    );
    const words = ["True", "False", "None", "true", "false", "null"].map((w) => p.literal(w));
    return p.choice(dict, list, string, number, ...words);
  });
}

/**
 * For the parser: a Python tuple or set literal (`(1, 2)`, `{'a', 'b'}`), which no JSON spells: read as
 * text, which call-finish.ts turns into a list where the schema declares one.
 *
 * @example
 * p.choice(p.capture(NODE.argJson, pythonValue(p)), p.capture(NODE.argString, pythonSequence(p)));
 */
export function pythonSequence(p: PegArena): PegId {
  const ws = p.space();
  const value = pythonValue(p);
  const items = p.seq(value, p.zeroOrMore(p.seq(ws, p.literal(","), ws, value)), ws, p.optional(p.literal(",")), ws);
  const tuple = p.seq(p.literal("("), ws, p.optional(items), p.literal(")"));
  return p.choice(tuple, p.seq(p.literal("{"), ws, items, p.literal("}")));
}

/**
 * The answer a JSON schema asks for (response_format): JSON matching `schema`, captured as the
 * message's content.
 *
 * @example
 * const answer = jsonAnswerValue(p, req.jsonSchema);
 */
export function jsonAnswerValue(p: PegArena, schema: JsonSchema): PegId {
  return p.capture(NODE.content, p.schema(p.json(), schema, { name: "response" }));
}

/**
 * `value` alone or in a Markdown ```json fence, as models write JSON answers.
 *
 * @example
 * const body = p.seq(p.space(), maybeFenced(p, answer), p.space(), p.end());
 */
export function maybeFenced(p: PegArena, value: PegId): PegId {
  return p.choice(p.seq(p.literal("```json"), p.space(), value, p.space(), p.literal("```")), value);
}

/** For the parser: `{"name": "NAME", "arguments": {...}}`, fields in any order, arguments also under "parameters". */
export function jsonCallObject(p: PegArena, name: string, closesCall = false): PegId {
  const key = (k: string): PegId => p.seq(p.literal(JSON.stringify(k)), p.space(), p.literal(":"), p.space());
  const nameField = p.seq(key("name"), p.literal('"'), p.capture(NODE.toolName, p.literal(name)), p.literal('"'));
  const argsField = p.seq(p.choice(key("arguments"), key("parameters")), p.capture(NODE.toolArgs, p.json()));
  const member = p.choice(nameField, argsField);
  const sep = p.seq(p.space(), p.literal(","), p.space());
  return p.tag(
    NODE.tool,
    p.seq(
      p.literal("{"),
      p.space(),
      member,
      p.repeat(p.seq(sep, member), 0, 1),
      p.space(),
      closesCall ? p.tag(NODE.callEnd, p.literal("}")) : p.literal("}"),
    ),
  );
}

/**
 * Reasoning up to its end marker (any of `ends`), or up to a call opener after which no end marker comes: models
 * go from reasoning straight to a call without its end marker; an opener the model closes reasoning after is text.
 *
 * @example
 * p.capture(NODE.reasoning, reasoningText(p, ["</think>"], ["<tool_call>"]));
 */
export function reasoningText(p: PegArena, ends: string[], openers: string[]): PegId {
  const opener = p.choice(...openers.map((w) => p.literal(w)));
  const closedLater = p.seq(p.until(...ends), p.choice(...ends.map((e) => p.literal(e))));
  const piece = p.until(...ends, ...openers);
  return p.seq(piece, p.zeroOrMore(p.seq(p.and(opener), p.and(closedLater), opener, piece)));
}
