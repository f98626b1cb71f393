/**
 * One argument of a tagged call (`<parameter=city>Paris</parameter>`, `<arg_key>k</arg_key><arg_value>v`): its
 * name and value markers and its value, strings raw and other values JSON. The grammar writes the schema's
 * types; the parser also reads what models write beyond the template (see docs/reading-output.md): value
 * flags the other way round, values that are not their type, closing tags left out, undeclared arguments.
 */
import type { PegArena, PegId } from "../peg/index.js";
import type { JsonSchema } from "../types.js";
import type { ToolsAnalysis } from "../analysis/index.js";
import {
  type BuildContext,
  argumentValue,
  boundedRawString,
  classEscape,
  pythonTyped,
  pythonValue,
  core,
  eitherQuote,
  isUntyped,
  marker,
  spaceAroundName,
  tagAsAttribute,
  nameSuffix,
  ruleName,
  schemaProperties,
  toolParameters,
} from "./build-helpers.js";
import { splitRawSchema, typedRawValue } from "./raw-union.js";
import { NODE } from "./tree-names.js";
import { argRuleName } from "./rule-names.js";

/** Value markers for a JSON-typed argument: a prefix flagging strings says "false" instead. */
function jsonValuePrefix(valuePrefix: string): string {
  return valuePrefix.replace(/string="true"/, 'string="false"');
}

/**
 * For the parser: value markers that flag strings, read in either spelling where `both` (models flag a
 * number as a string, or a string as JSON: `string="true">42`, `string="false">null` for a string), or without
 * the flag (`<｜DSML｜parameter name="k">v`: the value is then what the schema types it, as avalan, SGLang and
 * agent-tool-parser read it).
 */
function valueMarker(ctx: BuildContext, prefix: string, both: boolean, options: { keepTrail?: boolean } = {}): PegId {
  const { p } = ctx;
  const stringFlag = prefix.replace(/string="false"/, 'string="true"');
  if (ctx.forGrammar || !both || stringFlag === jsonValuePrefix(prefix)) return marker(p, prefix, options);
  const other = prefix === stringFlag ? jsonValuePrefix(prefix) : stringFlag;
  const written = marker(p, prefix, options);
  const unflagged = prefix.replace(/\s*string="(?:true|false)"/, "");
  const withoutFlag = unflagged.trim() === "" ? [] : [marker(p, unflagged, options)];
  return p.lenient(p.choice(written, marker(p, other, options), ...withoutFlag), written);
}

/**
 * For the parser: the opener of an argument's name, or none where the name's own closing tag follows the name
 * (`<tool_call>fkey</arg_key><arg_value>…`, GLM 4.7 in a vLLM issue: the `<arg_key>` left out).
 */
function nameOpener(ctx: BuildContext, a: ToolsAnalysis["arguments"], name: string, written: PegId): PegId {
  const { p } = ctx;
  const opener = core(a.namePrefix);
  const closer = core(a.nameSuffix);
  if (!opener.startsWith("<") || !closer.startsWith("</")) return written;
  return p.lenient(p.choice(written, p.and(p.seq(p.literal(name), p.literal(closer)))), written);
}

/** One tagged argument: name markers, value markers, the value. */
export function taggedArgument(
  ctx: BuildContext,
  t: ToolsAnalysis,
  toolIndex: number,
  name: string,
  schema: JsonSchema,
): PegId {
  const { p } = ctx;
  const a = t.arguments;
  // A string value keeps its own leading whitespace (indented code): the marker right before it
  // takes only its learned whitespace.
  const { text, typed } = splitRawSchema(schema);
  const keepTrail = text !== null;
  const suffixOptions = { keepTrail: keepTrail && a.valuePrefix === "" };
  const suffix = marker(p, a.nameSuffix, suffixOptions);
  const prefix = marker(p, a.namePrefix);
  const open = p.atomic(
    p.seq(
      ctx.forGrammar
        ? prefix
        : nameOpener(ctx, a, name, tagAsAttribute(p, a.namePrefix, eitherQuote(p, a.namePrefix, prefix))),
      spaceAroundName(p),
      p.capture(NODE.argName, p.literal(name)),
      ctx.forGrammar
        ? suffix
        : nameSuffix(
            p,
            a.namePrefix,
            a.nameSuffix,
            eitherQuote(p, a.nameSuffix, suffix, (t) => marker(p, t, suffixOptions)),
          ),
    ),
  );
  const suffixCore = core(a.valueSuffix);
  // The value ends at the suffix; a newline the template puts before it is not part of it.
  const lead = a.valueSuffix.slice(0, a.valueSuffix.indexOf(suffixCore));
  const stops =
    suffixCore === ""
      ? [core(a.namePrefix) || core(t.function.close) || core(t.format.perCallEnd) || "\n"]
      : lead !== ""
        ? [lead + suffixCore, suffixCore]
        : [suffixCore];
  const delimiters = stops.filter((s) => s !== "");
  const argName = argRuleName(toolIndex, name);
  const alternatives: PegId[] = [];
  if (typed !== null) {
    const value = typedValue(ctx, typed, argName);
    const prefix = jsonValuePrefix(a.valuePrefix);
    // Beside strings, a typed value is one only where the whole value reads as one ("null", "42").
    const whole = text === null || ctx.forGrammar ? value : guardedValue(ctx, typed, delimiters, value);
    const marked = prefix !== "" ? valueMarker(ctx, prefix, text === null) : p.eps();
    const opened = ctx.forGrammar ? marked : eitherQuote(p, prefix, marked, (t) => valueMarker(ctx, t, text === null));
    alternatives.push(p.seq(opened, whole));
  }
  if (text !== null) {
    const raw = ctx.forGrammar
      ? (boundedRawString(p, text, delimiters) ?? p.until(...delimiters))
      : p.lenient(stringText(ctx, t, toolIndex, delimiters), p.until(...delimiters));
    let value = p.capture(
      NODE.argString,
      p.schema(raw, text, { name: typed === null ? argName : `${argName}-text`, raw: true }),
    );
    if (ctx.cdataStrings) {
      const until = p.until("]]>");
      // The grammar copy: an enum's values, or at most maxLength characters.
      const inner = ctx.forGrammar
        ? p.schema(boundedRawString(p, text, ["]]>"]) ?? until, text, { name: `${argName}-cdata`, raw: true })
        : until;
      value = p.choice(cdataString(p, inner), value);
    }
    const written = a.valuePrefix !== "" ? valueMarker(ctx, a.valuePrefix, true, { keepTrail }) : p.eps();
    let prefix = ctx.forGrammar
      ? written
      : eitherQuote(p, a.valuePrefix, written, (t) => valueMarker(ctx, t, true, { keepTrail }));
    // For the parser also a value whose opening tag is left out where its closing tag ends it
    // (`<arg_key>q</arg_key>text</arg_value>`, as llama.cpp's users report GLM writing it).
    const opener = core(a.valuePrefix);
    if (!ctx.forGrammar && opener.startsWith("<") && suffixCore.startsWith("</")) {
      const leftOut = p.not(p.seq(p.space(), p.literal(opener.slice(0, 2))));
      prefix = p.lenient(p.choice(prefix, leftOut), prefix);
    }
    alternatives.push(p.seq(prefix, value));
  }
  // A string value keeps its own trailing whitespace: the suffix takes only its learned whitespace.
  const close = suffixCore === "" ? p.eps() : marker(p, a.valueSuffix, { keepLead: text !== null });
  const value = alternatives.length === 1 ? alternatives[0]! : p.choice(...alternatives);
  if (ctx.forGrammar) return p.tag(NODE.toolArg, p.seq(open, value, close));
  // The parser also reads a value that does not fit the schema (kept as text: `count=not a
  // number`), and a name the model gave no value (left out of the arguments).
  let read = value;
  const flagged = flaggedJson(ctx, a.valuePrefix, delimiters);
  if (text === null) {
    const prefix = jsonValuePrefix(a.valuePrefix);
    const marked =
      prefix !== ""
        ? eitherQuote(p, prefix, valueMarker(ctx, prefix, true), (m) => valueMarker(ctx, m, true))
        : p.eps();
    const typedRead = p.seq(marked, guardedValue(ctx, typed!, delimiters, typedValue(ctx, typed!, argName)));
    read = p.choice(typedRead, ...(flagged === null ? [] : [flagged]), lenientText(ctx, a.valuePrefix, delimiters));
  } else if (flagged !== null && isUntyped(schema)) read = p.choice(flagged, value);
  else if (flagged !== null) read = p.choice(flaggedJsonString(ctx, a.valuePrefix, delimiters), value);
  else if (isUntyped(schema)) read = p.choice(untypedJson(ctx, a.valuePrefix, delimiters), value);
  // Whitespace the template does not write may come between the name and the value markers.
  if (a.valuePrefix.trim() !== "") read = p.seq(p.space(), read);
  const unclosed = unclosedValue(ctx, t);
  const written = unclosed === null ? p.seq(read, close) : p.choice(p.seq(read, close), unclosed);
  return p.tag(NODE.toolArg, p.seq(open, p.lenient(p.optional(written), p.seq(value, close))));
}

/**
 * For the parser: a string value up to the first closer that the format's markup follows (a declared
 * argument, an undeclared one that markup follows in turn, the call's closer, the end of the output), else up to
 * the first closer: a value may hold the closer as text (a file that quotes the format's markup), and a whole call
 * quoted in it is text (see quotedCalls). It ends at a declared argument's opener whose own value closes before
 * markup (`<parameter=city>Paris<parameter=days>3</parameter></function>`: Paris).
 */
function stringText(ctx: BuildContext, t: ToolsAnalysis, toolIndex: number, delimiters: string[]): PegId {
  const { p } = ctx;
  const a = t.arguments;
  const tool = ctx.tools[toolIndex];
  if (core(a.valueSuffix) === "" || core(a.namePrefix) === "" || tool === undefined) return p.until(...delimiters);
  const nameEnd = argumentNameEnd(a).slice(0, 1);
  const declared = schemaProperties(toolParameters(tool)).map(([key]) => key);
  const callEnds = callEndMarkers(t);
  const closer = p.choice(...delimiters.map((d) => p.literal(d)));
  const goesOn = p.seq(closer, p.space(), p.choice(nextArgument(ctx, t, declared, delimiters), p.end()));
  // A declared argument's opener ends the value where the model left its closing tag out: where that
  // argument's own value closes before markup (else the opener is quoted text: a file of tool-call markup).
  const openers = declared.map((key) => core(a.namePrefix) + key + nameEnd);
  const opener = p.choice(...openers.map((o) => p.literal(o)));
  // Not where the call writes that argument again (the quoted opener of an argument given later).
  const split = p.choice(
    ...openers.map((o) =>
      p.seq(p.literal(o), p.not(p.seq(p.until(o, ...callEnds), p.literal(o))), p.until(...delimiters), goesOn),
    ),
  );
  // A call's closer that another call follows ends the text (closersThenCall); any other is the value's text.
  const nextCall = closersThenCall(ctx, t);
  const ends = nextCall === null ? [] : callEnds;
  const spanOf = (quoted: QuotedCalls | null): PegId => {
    const piece = p.until(...delimiters, ...openers, ...(quoted?.opens ?? []), ...ends);
    const steps = [
      ...(quoted === null ? [] : [quoted.call]),
      ...(openers.length === 0 ? [] : [p.seq(p.not(split), opener)]),
      ...(quoted?.opens ?? []).map((o) => p.literal(o)),
      ...(nextCall === null ? [] : [p.seq(p.not(nextCall), p.choice(...ends.map((e) => p.literal(e))))]),
    ];
    return steps.length === 0 ? piece : p.seq(piece, p.zeroOrMore(p.seq(p.choice(...steps), piece)));
  };
  const first = spanOf(null);
  // Up to a closer that markup follows, a quoted call read whole; else (say a quoted call that does not close
  // before the call's own closers) up to the first closer.
  const quoted = quotedCalls(ctx, t);
  const span = quoted === null ? first : spanOf(quoted);
  const text = p.seq(span, p.zeroOrMore(p.seq(p.not(goesOn), closer, span)));
  return p.choice(p.seq(text, p.and(goesOn)), first);
}

/** A call quoted in a string value (see quotedCalls): the whole call, and the openers it starts with. */
interface QuotedCalls {
  call: PegId;
  opens: string[];
}

/**
 * What may follow a string value's closer where the value ends there: a declared argument's opener (its name
 * quoted either way where it is an attribute value, see eitherQuote), the call's closers, or an undeclared
 * argument whose own value closes before one of those or another opener (else it is text the value quotes:
 * `<parameter=new_string>` in a file of markup).
 */
function nextArgument(ctx: BuildContext, t: ToolsAnalysis, declared: string[], delimiters: string[]): PegId {
  const { p } = ctx;
  const a = t.arguments;
  const nameEnd = argumentNameEnd(a).slice(0, 1);
  const pre = core(a.namePrefix);
  const ends = callEndMarkers(t).map((c) => p.literal(c));
  if (nameEnd === "") {
    return p.choice(...declared.map((key) => p.seq(marker(p, pre), spaceAroundName(p), p.literal(key))), ...ends);
  }
  const quotes: [string, string][] =
    pre.endsWith('="') && nameEnd === '"'
      ? [
          [pre, nameEnd],
          [`${pre.slice(0, -1)}'`, "'"],
        ]
      : [[pre, nameEnd]];
  const named = (name: PegId): PegId[] =>
    quotes.map(([open, end]) =>
      p.seq(
        ctx.forGrammar ? marker(p, open) : tagAsAttribute(p, open, marker(p, open)),
        spaceAroundName(p),
        name,
        spaceAroundName(p),
        p.literal(end),
      ),
    );
  const declaredOpener = declared.flatMap((key) => named(p.literal(key)));
  const anyOpener = named(p.chars(`^${classEscape(nameEnd)}<>\n`, 1, 64));
  const closer = p.choice(...delimiters.map((d) => p.literal(d)));
  const undeclared = anyOpener.map((o) =>
    p.seq(o, p.until(...delimiters), closer, p.space(), p.choice(...anyOpener, ...ends, p.end())),
  );
  return p.choice(...declaredOpener, ...undeclared, ...ends);
}

/**
 * For the parser: a whole call quoted in a string value (a file that holds tool-call markup), read as text: the
 * section's or call's opener, the function's name marker, up to that opener's closer. Null where the format has
 * no such pair.
 */
function quotedCalls(ctx: BuildContext, t: ToolsAnalysis): QuotedCalls | null {
  const { p } = ctx;
  const name = core(t.function.namePrefix);
  const pairs = callMarkerPairs(t);
  if (name === "" || pairs.length === 0) return null;
  const call = p.choice(
    ...pairs.map(([open, close]) =>
      p.seq(p.literal(open), p.space(), p.literal(name), p.until(close), p.literal(close)),
    ),
  );
  return { call, opens: [...new Set(pairs.map(([open]) => open))] };
}

/** The format's section and per-call openers with their closers (trimmed), where both are written. */
function callMarkerPairs(t: ToolsAnalysis): (readonly [string, string])[] {
  const f = t.format;
  const name = core(t.function.namePrefix);
  return [
    [f.sectionStart, f.sectionEnd],
    [f.perCallStart, f.perCallEnd],
  ]
    .map(([open, close]) => [core(open!), core(close!)] as const)
    .filter(([open, close]) => open !== "" && close !== "" && open !== name);
}

/**
 * For the parser: a value whose closing tag the model left out, where no closing tag comes before the
 * call's own closer (`<arg_value>Paris</tool_call>`): the text up to that closer or the next argument
 * (call-finish.ts types it).
 */
function unclosedValue(ctx: BuildContext, t: ToolsAnalysis): PegId | null {
  const { p } = ctx;
  const a = t.arguments;
  const suffix = core(a.valueSuffix);
  const callEnds = callEndMarkers(t);
  if (suffix === "" || callEnds.length === 0) return null;
  // The next argument's opener ends it too (no closing tag comes before the call's closer either way).
  const ends = [core(a.namePrefix), ...callEnds].filter((c) => c !== "");
  const prefix = a.valuePrefix !== "" ? p.seq(p.space(), valueMarker(ctx, a.valuePrefix, true)) : p.eps();
  // The whitespace the template writes before a closing tag is not the value's (`\nParis\n<parameter=…`).
  const lead = a.valueSuffix.slice(0, a.valueSuffix.indexOf(suffix));
  const leadEnds = lead === "" ? [] : ends.map((c) => lead + c);
  // A section's or call's opener quoted in the value (`` `<tool_call>…</tool_call>` ``) pairs with the closer after
  // it: that closer is the quote's, not the call's (an output cut off there leaves the call unfinished).
  const pairs = callMarkerPairs(t);
  const piece = p.until(suffix, ...leadEnds, ...ends, ...pairs.map(([open]) => open));
  const quotes = pairs.map(([open, close]) => p.seq(p.literal(open), p.until(close), p.literal(close)));
  const read = quotes.length === 0 ? piece : p.seq(piece, p.zeroOrMore(p.seq(p.choice(...quotes), piece)));
  const text = p.capture(NODE.argString, read);
  return p.seq(prefix, text, p.and(p.seq(p.space(), p.choice(...ends.map((c) => p.literal(c))))));
}

/**
 * For the parser: the call's closers with another call opening right after them (`</function>\n</tool_call>\n
 * <tool_call>`): a string value whose own closer the model left out (as Nemotron 3 writes it) ends there, not at a
 * closer of the next call's. Null where the format has no such markers.
 */
function closersThenCall(ctx: BuildContext, t: ToolsAnalysis): PegId | null {
  const { p } = ctx;
  const f = t.format;
  const ends = callEndMarkers(t).map((c) => p.literal(c));
  const openers = [f.sectionStart, f.perCallStart, t.function.namePrefix].map(core).filter((c) => c !== "");
  if (ends.length === 0 || openers.length === 0) return null;
  const closers = p.seq(p.choice(...ends), p.zeroOrMore(p.seq(p.space(), p.choice(...ends))));
  return p.seq(closers, p.space(), p.choice(...openers.map((o) => p.literal(o))));
}

/** Where an argument's name ends: its suffix, or where the value's markers begin (`name="k" string="true">`). */
function argumentNameEnd(a: ToolsAnalysis["arguments"]): string {
  return core(a.nameSuffix) || core(a.valuePrefix);
}

/** The markers that close a call or its section, as written without their whitespace. */
function callEndMarkers(t: ToolsAnalysis): string[] {
  return [t.function.close, t.format.perCallEnd, t.format.sectionEnd].map(core).filter((c) => c !== "");
}

/** A typed value only where the whole value reads as one (else it is text). */
function guardedValue(ctx: BuildContext, typed: JsonSchema, delimiters: string[], value: PegId): PegId {
  const { p } = ctx;
  const ends = delimiters.map((d) => (core(d) === "" ? p.literal(d) : p.seq(p.space(), p.literal(core(d)))));
  return p.seq(p.and(p.seq(typedRawValue(p, typed, p.choice(p.json(), pythonValue(p))), p.choice(...ends))), value);
}

/**
 * For the parser, in formats whose value markers flag strings: a value flagged as JSON (`string="false"`)
 * that reads whole as JSON is that JSON, where the schema declares no string (an integer written as an
 * object stays the object the model wrote; an untyped `12345e-3` is a number).
 */
function flaggedJson(ctx: BuildContext, valuePrefix: string, delimiters: string[]): PegId | null {
  const { p } = ctx;
  if (ctx.forGrammar || !/string="(true|false)"/.test(valuePrefix)) return null;
  const json = p.capture(NODE.argJson, p.json());
  return p.seq(marker(p, jsonValuePrefix(valuePrefix)), guardedValue(ctx, {}, delimiters, json));
}

/**
 * For the parser, where the schema declares a string: a value flagged as JSON (`string="false"`) that reads whole
 * as a JSON string (`"celsius"`) is that string; other JSON (`null`, `42`) stays the text.
 */
function flaggedJsonString(ctx: BuildContext, valuePrefix: string, delimiters: string[]): PegId {
  const { p } = ctx;
  const json = p.capture(NODE.argJson, p.json());
  return p.seq(marker(p, jsonValuePrefix(valuePrefix)), p.and(p.literal('"')), guardedValue(ctx, {}, delimiters, json));
}

/**
 * For the parser, where the schema says nothing of the value's type: the value as JSON (or a Python literal:
 * `None`, `True`) where the whole value reads as one, as an undeclared argument's is read (SGLang, vllm-rust and
 * NanoEngine read it so); other text stays the text (`beijing`, `123_456`), and so does a number JSON would not
 * print back as written (`1.10`, `1e3`, `2.0`: a version or a code keeps its text).
 */
export function untypedJson(ctx: BuildContext, valuePrefix: string, delimiters: string[]): PegId {
  const { p } = ctx;
  const prefix = valuePrefix !== "" ? valueMarker(ctx, valuePrefix, true) : p.eps();
  const integer = p.choice(p.literal("0"), p.seq(p.chars("1-9", 1, 1), p.chars("0-9", 0)));
  // Digits that end in one other than 0: runs of zeros, each closed by another digit.
  const run = p.seq(p.chars("0", 0), p.chars("1-9", 1, 1));
  const fraction = p.optional(p.seq(p.literal("."), run, p.zeroOrMore(run)));
  const number = p.seq(p.optional(p.literal("-")), integer, fraction, p.not(p.chars("0-9.eE", 1, 1)));
  const other = p.seq(p.not(p.chars("\\-+.0-9", 1, 1)), p.choice(p.json(), pythonValue(p)));
  return p.seq(prefix, guardedValue(ctx, {}, delimiters, p.capture(NODE.argJson, p.choice(number, other))));
}

/** For the parser: a value of a non-string parameter written as text, read up to its end. */
function lenientText(ctx: BuildContext, valuePrefix: string, stops: string[]): PegId {
  const { p } = ctx;
  const raw = p.capture(NODE.argString, p.until(...stops));
  const prefix = valuePrefix !== "" ? valueMarker(ctx, jsonValuePrefix(valuePrefix), true) : p.eps();
  return p.seq(prefix, raw);
}

/**
 * For the parser: an argument the schema does not declare (kept: argument checks report it), its
 * value JSON where the whole value reads as JSON, else text.
 */
export function undeclaredArgument(ctx: BuildContext, t: ToolsAnalysis, schema: JsonSchema): PegId | null {
  const { p } = ctx;
  const a = t.arguments;
  const nameEnd = argumentNameEnd(a);
  if (core(a.namePrefix) === "" || nameEnd === "") return null;
  const suffixCore = core(a.valueSuffix);
  const lead = a.valueSuffix.slice(0, a.valueSuffix.indexOf(suffixCore));
  const end = suffixCore || core(a.namePrefix) || core(t.function.close) || core(t.format.perCallEnd) || "\n";
  // The value ends at the suffix; a newline the template puts before it is not part of it.
  const stops = suffixCore !== "" && lead !== "" ? [lead + suffixCore, suffixCore] : [end];
  const name = p.capture(NODE.argName, p.chars(`^${classEscape(nameEnd[0]!)}<>\n`, 1, 64));
  const open = p.atomic(
    p.seq(marker(p, a.namePrefix), spaceAroundName(p), name, marker(p, a.nameSuffix, { keepTrail: true })),
  );
  const prefix =
    a.valuePrefix !== "" ? p.seq(p.space(), valueMarker(ctx, a.valuePrefix, true, { keepTrail: true })) : p.eps();
  const json = p.capture(NODE.argJson, p.choice(p.json(), pythonValue(p)));
  const text = p.capture(NODE.argString, p.until(...stops));
  // A format that wraps strings in CDATA (see BuildContext.cdataStrings) may wrap an undeclared one too: a
  // block the value's closer follows (else the value is text that holds `]]>`).
  const cdata =
    ctx.cdataStrings && suffixCore !== ""
      ? [p.seq(cdataString(p, p.until("]]>")), p.and(p.seq(p.space(), p.literal(suffixCore))))]
      : [];
  // Where the schema types every other argument as a string (`additionalProperties: {type: "string"}`), a value is
  // its text (`42`, `null` stay strings).
  const value = stringsOnly(schema)
    ? p.choice(...cdata, text)
    : p.choice(guardedValue(ctx, {}, stops, json), ...cdata, text);
  const close = suffixCore === "" ? p.eps() : marker(p, a.valueSuffix, { keepLead: true });
  return p.tag(NODE.toolArg, p.seq(open, p.optional(p.seq(prefix, value, close))));
}

/** Whether `schema` gives the arguments it does not name the type string and no other. */
function stringsOnly(schema: JsonSchema): boolean {
  const extra = (schema as { additionalProperties?: unknown }).additionalProperties;
  if (extra === null || typeof extra !== "object" || Array.isArray(extra)) return false;
  const type = (extra as { type?: unknown }).type;
  return type === "string" || (Array.isArray(type) && type.length === 1 && type[0] === "string");
}

/** A value the format writes as JSON (or Python literals, where the template prints them with repr). */
function typedValue(ctx: BuildContext, typed: JsonSchema, argName: string): PegId {
  const { p } = ctx;
  // Python literals only differ from JSON for booleans, None and containers: numbers keep their schema.
  const python = ctx.pythonTaggedValues && !isNumeric(typed);
  if (!python) return p.capture(NODE.argJson, argumentValue(ctx, typed, argName));
  // The parser reads any literal; the grammar (also the lazy one of tool_choice auto) is typed.
  const typedGrammar = pythonTyped(ctx, typed, ruleName(ctx, argName));
  return p.capture(
    NODE.argJson,
    ctx.forGrammar ? typedGrammar : p.schema(pythonValue(p), typed, { name: argName, grammar: typedGrammar }),
  );
}

function isNumeric(schema: JsonSchema): boolean {
  const type = typeof schema === "object" && schema !== null ? (schema as { type?: unknown }).type : undefined;
  return type === "integer" || type === "number";
}

/** A string value in a CDATA block (`<![CDATA[a < b]]>`): the text inside. */
function cdataString(p: PegArena, inner: PegId): PegId {
  return p.seq(p.literal("<![CDATA["), p.capture(NODE.argString, inner), p.literal("]]>"));
}
