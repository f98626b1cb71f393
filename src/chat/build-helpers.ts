/**
 * Small building blocks shared by the chat parser builders: markers that tolerate the
 * whitespace around them, JSON / Python-literal values, tool schemas.
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

const WS = /^[ \t\r\n]$/;

/** `text` without leading/trailing whitespace. */
export function core(text: string): string {
  return text.trim();
}

/**
 * Whitespace a marker was learned with: the same characters, each optional, then any other
 * whitespace for the parser: the same marker written with other whitespace still matches, and
 * the grammar accepts exactly what the template renders.
 */
function flexibleSpace(p: PegArena, run: string): PegId {
  // The grammar writes the learned whitespace only: stop words elsewhere (a trigger, a content
  // scan) are the marker as learned, so a constrained model must write it that way.
  return p.lenient(p.seq(learnedSpace(p, run), readSpace(p)), learnedSpace(p, run));
}

/**
 * For the parser: any whitespace between markers, each character also written as its escape
 * sequence (`\n`, `\r`, `\t`: a backslash and a letter), as models do that write a whole call as
 * one escaped string. Only where marker whitespace is read: a value keeps what it holds.
 */
function readSpace(p: PegArena): PegId {
  return p.zeroOrMore(p.choice(p.chars(" \\t\\r\\n", 1), escapedSpace(p)));
}

/**
 * For the parser: whitespace around a name inside its markers (`<arg_key>\ncity\n</arg_key>`), newlines
 * included; the grammar writes none.
 *
 * @example
 * p.seq(marker(p, "<arg_key>"), spaceAroundName(p), p.literal("city"), spaceAroundName(p));
 */
export function spaceAroundName(p: PegArena): PegId {
  return p.lenient(readSpace(p), p.eps());
}

/**
 * A marker's text between whitespace; for the parser an attribute's `=` and the `>` after a quoted value also
 * with whitespace around them (`<param name = 'k' >` for `<param name="k">`), as XML allows. The grammar
 * writes it as learned.
 */
function markupWord(p: PegArena, word: string): PegId {
  // For the parser SentencePiece's space glyph also as models and detokenizers spell it otherwise (see glyphSpellings).
  if (word.includes(SPACE_GLYPH)) {
    const written = attributeWord(p, word);
    return p.lenient(p.choice(written, ...glyphSpellings(word).map((w) => attributeWord(p, w))), written);
  }
  return attributeWord(p, word);
}

/** SentencePiece's space glyph, which DeepSeek's special tokens hold (`<｜tool▁calls▁begin｜>`). */
export const SPACE_GLYPH = "\u2581";

/**
 * A marker word holding SentencePiece's space glyph, spelled as models write it without that token (llama.cpp's
 * DeepSeek R1 reader takes the same): with `_`, a space or an escaped `\_` for each glyph.
 *
 * @example
 * glyphSpellings("<｜tool▁calls▁begin｜>");
 * // ["<｜tool_calls_begin｜>", "<｜tool calls begin｜>", "<｜tool\\_calls\\_begin｜>"]
 */
export function glyphSpellings(word: string): string[] {
  return ["_", " ", "\\_"].map((s) => word.replaceAll(SPACE_GLYPH, s));
}

/** A marker word; an XML-style attribute in it (`name="`) also with whitespace around its `=` and before `>`. */
function attributeWord(p: PegArena, word: string): PegId {
  const pieces = word.split(/(?<=\w)(?==["'])|(?<==)(?=["'])|(?<=["'])(?=\/?>)/);
  if (pieces.length === 1) return p.literal(word);
  const loose = p.seq(
    ...pieces.flatMap((piece, i) => (i === 0 ? [p.literal(piece)] : [readSpace(p), p.literal(piece)])),
  );
  return p.lenient(loose, p.literal(word));
}

/** A whitespace escape sequence written literally: a backslash, then `n`, `r` or `t`. */
function escapedSpace(p: PegArena): PegId {
  return p.seq(p.literal("\\"), p.chars("nrt", 1, 1));
}

/** Only the whitespace a marker was learned with, each character optional. */
function learnedSpace(p: PegArena, run: string): PegId {
  return p.seq(...[...run].filter((ch) => WS.test(ch)).map((ch) => p.optional(p.literal(ch))));
}

/**
 * Whitespace inside a marker: for the parser, between two words at least one character,
 * elsewhere any; the grammar writes it as learned (it is part of the stop words that find the
 * marker in free text).
 */
function innerSpace(p: PegArena, run: string, before: string, after: string): PegId {
  const words = /\w$/.test(before) && /^\w/.test(after);
  // Between two words the parser also reads the space left out, or written as a byte-level BPE glyph
  // (`<functionname=`, `<function\u0120name=`: a detokenizer that drops or keeps them).
  const wordSpace = p.choice(p.chars(" \\t\\r\\n", 1, 1), escapedSpace(p), p.chars("\u0120\u010a", 1, 1), p.eps());
  const parse = words
    ? p.seq(wordSpace, learnedSpace(p, run.slice(1)), readSpace(p))
    : p.seq(learnedSpace(p, run), readSpace(p));
  return p.lenient(parse, p.literal(run));
}

/**
 * A marker whose whitespace, around it or inside it, may be any whitespace (templates render
 * "<tool_call>\n" or "NAME\n```json\n", models drop, double or change it; the rest must match
 * exactly). An all-whitespace marker becomes `space()`. `keepTrail` / `keepLead`: the whitespace
 * after / before it is only the learned characters, optional (a string value follows or precedes
 * it, whose own spaces must not be taken for the marker's).
 *
 * @example
 * marker(p, ">\n"); // ">" "\n"? space
 */
export function marker(p: PegArena, text: string, options: { keepTrail?: boolean; keepLead?: boolean } = {}): PegId {
  const c = core(text);
  if (c === "") return text === "" ? p.eps() : p.lenient(readSpace(p), p.space());
  const lead = text.slice(0, text.indexOf(c));
  const trail = text.slice(text.indexOf(c) + c.length);
  const items: PegId[] = [];
  // Before a marker the parser reads any whitespace, escaped too, even where none was learned:
  // what precedes it (a name, a JSON value, a closing tag) never ends in whitespace it keeps, and
  // text read up to the marker stops before it anyway.
  if (options.keepLead) items.push(learnedSpace(p, lead));
  else items.push(lead !== "" ? flexibleSpace(p, lead) : p.lenient(readSpace(p), p.eps()));
  const parts = c.split(/([ \t\r\n]+)/);
  parts.forEach((part, i) => {
    if (i % 2 === 0) items.push(markupWord(p, part));
    else items.push(innerSpace(p, part, parts[i - 1]!, parts[i + 1]!));
  });
  if (trail !== "") items.push(options.keepTrail ? learnedSpace(p, trail) : flexibleSpace(p, trail));
  return p.seq(...items);
}

/**
 * For the parser: the marker after a declared name (`written`), also with its `>` left out where the
 * template writes an XML-style tag's `>` and then a newline: `<parameter=path\n/etc/hosts` for
 * `<parameter=path>\n/etc/hosts`, as models writing such tags do (the newline still ends the name); and
 * without the Markdown fence a template opens JSON arguments with (`f\n{…}` for `f\n```json\n{…}```),
 * right before the arguments.
 *
 * @example
 * nameSuffix(p, "<parameter=", ">\n", marker(p, ">\n")); // also reads "\n" alone
 */
export function nameSuffix(p: PegArena, prefix: string, suffix: string, written: PegId): PegId {
  const c = core(suffix);
  const trail = suffix.slice(suffix.indexOf(c) + c.length);
  if (c.startsWith("```")) {
    const args = p.seq(p.space(), p.and(p.choice(p.literal("{"), p.literal("["))));
    return p.lenient(p.choice(written, args), written);
  }
  if (c !== ">" || !core(prefix).startsWith("<")) return written;
  // The quote of a tag written as an attribute (see tagAsAttribute).
  const attribute =
    tagBeforeEquals(prefix) !== undefined
      ? p.lenient(p.choice(written, p.seq(p.chars(`"'`, 1, 1), written)), written)
      : written;
  if (!trail.startsWith("\n")) return attribute;
  return p.lenient(p.choice(attribute, p.literal(trail)), written);
}

/**
 * For the parser: a marker that opens or closes an XML attribute value with `"` (`<invoke name="`, `">`), also
 * with `'` (`<invoke name='f'>`), as XML allows and models write now and then. `written` is the marker as built.
 *
 * @example
 * eitherQuote(p, '<invoke name="', marker(p, '<invoke name="')); // also reads <invoke name='
 */
export function eitherQuote(p: PegArena, text: string, written: PegId, build = (t: string) => marker(p, t)): PegId {
  const c = core(text);
  if (!c.endsWith('="') && !c.startsWith('"')) return written;
  return p.lenient(p.choice(written, build(text.replaceAll('"', "'"))), written);
}

/** The tag of a name marker that is a tag and an `=` (`<function` of `<function=`), else undefined. */
function tagBeforeEquals(text: string): string | undefined {
  return /^<[A-Za-z_][\w.:-]*(?==$)/.exec(core(text))?.[0];
}

/**
 * For the parser: a name marker that is a tag and an `=` (`<function=`), also written as an XML attribute of that
 * tag (`<function name="f">`, `<function = f>`), as models that saw both spellings write now and then;
 * `nameSuffix` reads the quote before the `>`. `written` is the marker as built.
 *
 * @example
 * tagAsAttribute(p, "<function=", marker(p, "<function=")); // also reads <function name="
 */
export function tagAsAttribute(p: PegArena, text: string, written: PegId): PegId {
  const c = core(text);
  const tag = tagBeforeEquals(text);
  if (tag === undefined) return written;
  const attribute = p.optional(p.seq(p.chars(" \\t\\r\\n", 1), p.literal("name")));
  const quote = p.optional(p.chars(`"'`, 1, 1));
  const lead = text.slice(0, text.indexOf(c));
  const loose = p.seq(marker(p, lead + tag), attribute, readSpace(p), p.literal("="), readSpace(p), quote);
  return p.lenient(p.choice(written, loose), written);
}

/**
 * A marker inside which runs of digits match any number: call counters baked into markers by
 * the analysis probes (`functions.NAME:0`, `index="1"`) then match the second call too.
 */
export function counterMarker(p: PegArena, text: string, maxDigits: number | null = null): PegId {
  if (!/\d/.test(core(text))) return marker(p, text);
  const c = core(text);
  const lead = text.slice(0, text.indexOf(c));
  const trail = text.slice(text.indexOf(c) + c.length);
  const items: PegId[] = [];
  for (const ch of lead) items.push(p.optional(p.literal(ch)));
  for (const part of c.split(/(\d+)/)) {
    if (part === "") continue;
    items.push(/^\d+$/.test(part) ? p.chars("0-9", 1, maxDigits) : p.literal(part));
  }
  for (const ch of trail) items.push(p.optional(p.literal(ch)));
  return p.seq(...items);
}

/** Lookahead: the next character does not continue an identifier (so `get` does not match `get_weather`). */
export function identifierEnd(p: PegArena): PegId {
  return p.not(p.chars("A-Za-z0-9_.\\-", 1, 1));
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
