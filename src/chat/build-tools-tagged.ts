/**
 * Tool calls whose function name sits in markers: arguments as one JSON object
 * (TAG_WITH_JSON, `<function=f>{...}</function>`) or one tagged value per argument
 * (TAG_WITH_TAGGED, `<parameter=city>Paris</parameter>`: strings unquoted, other values JSON).
 * Call ids are read where the analysis found them (before the name, between name and
 * arguments, after the arguments).
 */
import type { PegId } from "../peg/index.js";
import type { JsonSchema } from "../types.js";
import type { ToolsAnalysis } from "../analysis/index.js";
import {
  type BuildContext,
  argumentValue,
  core,
  counterMarker,
  identifierEnd,
  jsonCallObject,
  eitherQuote,
  glyphSpellings,
  SPACE_GLYPH,
  marker,
  moreCalls,
  nameSuffix,
  tagAsAttribute,
  tagBeforeEquals,
  ruleName,
  schemaProperties,
  toolParameters,
} from "./build-helpers.js";
import { taggedArgument, undeclaredArgument } from "./build-tagged-arguments.js";
import { nameHandle } from "./name-handle.js";
import { viewRequired } from "./parameter-view.js";
import { NODE } from "./tree-names.js";
import { argRuleName } from "./rule-names.js";
import { withoutNamespaceToo } from "./tag-namespace.js";

/** What the grammar copy lets an id be: word characters, as ids are (call_0, functions.f:1, a1b2c3d4e). */
export const ID_CHARS = "A-Za-z0-9_\\-.:";
export const MAX_ID = 40;

/** The first marker that can end a call id: its suffix, else what follows it. */
function idSection(ctx: BuildContext, t: ToolsAnalysis, after: string): PegId {
  const { p } = ctx;
  const { prefix, suffix } = t.callId;
  const stop = core(suffix) || core(after) || "{";
  // The grammar copy bounds ids (free text up to a marker need not end).
  const id = p.capture(NODE.toolId, ctx.forGrammar ? p.chars(ID_CHARS, 1, MAX_ID) : p.until(stop));
  // The per-call opener may already be the id's prefix (Solar: <|tool_call:begin|>ID<|tool_call:name|>).
  const pre = prefix !== "" && core(prefix) !== core(t.format.perCallStart) ? marker(p, prefix) : p.eps();
  // Without an id the suffix may still open the arguments (Mistral: name[CALL_ID]id[ARGS]{...} or name[ARGS]{...}).
  // The grammar copy: after an id its suffix is required (the parser reads the id up to it).
  if (ctx.forGrammar && suffix !== "")
    return p.optional(p.choice(p.seq(pre, id, marker(p, suffix)), marker(p, suffix)));
  return p.seq(p.optional(p.seq(pre, id)), suffix !== "" ? p.optional(marker(p, suffix)) : p.eps());
}

/**
 * The arguments of one function: a JSON object, or tagged arguments in any order; `declared`: a function the
 * request declares (else any arguments of an undeclared one, see callOf).
 */
function argumentsOf(
  ctx: BuildContext,
  t: ToolsAnalysis,
  toolIndex: number,
  schema: JsonSchema,
  declared: boolean,
): PegId {
  const { p } = ctx;
  const a = t.arguments;
  let args: PegId;
  if (t.format.mode === "TAG_WITH_JSON") {
    args = p.capture(NODE.toolArgs, argumentValue(ctx, schema, `tool-${toolIndex}-args`));
    const empty = ctx.forGrammar || !declared || hasRequired(schema) ? null : noArguments(ctx, t);
    if (empty !== null) args = p.lenient(p.choice(args, empty), args);
  } else {
    const props = schemaProperties(schema);
    if (props.length === 0) args = p.eps();
    else if (ctx.forGrammar) {
      // The grammar writes the schema's arguments in its order, each once, the required ones always.
      const required = new Set(viewRequired(schema));
      args = p.seq(
        ...props.map(([name, s]) => {
          const one = p.seq(
            p.space(),
            p.rule(ruleName(ctx, argRuleName(toolIndex, name)), taggedArgument(ctx, t, toolIndex, name, s)),
          );
          return required.has(name) ? one : p.optional(one);
        }),
      );
    } else {
      // Models write arguments in the order they choose: any order, each at most once in practice.
      const one = p.choice(
        ...props.map(([name, s]) =>
          p.rule(ruleName(ctx, argRuleName(toolIndex, name)), taggedArgument(ctx, t, toolIndex, name, s)),
        ),
      );
      args = p.seq(one, p.repeat(p.seq(p.space(), one), 0, props.length - 1));
      if (!hasRequired(schema)) args = p.optional(args);
    }
    if (!ctx.forGrammar) args = p.lenient(lenientArguments(ctx, t, toolIndex, schema), args);
  }
  const start = a.start !== "" ? marker(p, a.start) : p.eps();
  const end = a.end !== "" ? marker(p, a.end) : p.eps();
  return p.seq(start, args, end);
}

/**
 * For the parser: tagged arguments in any number (an argument written twice makes the call
 * malformed, call-finish.ts), undeclared ones too, or the arguments as one JSON object.
 */
function lenientArguments(ctx: BuildContext, t: ToolsAnalysis, toolIndex: number, schema: JsonSchema): PegId {
  const { p } = ctx;
  const declared = schemaProperties(schema).map(([name]) => p.ref(ruleName(ctx, argRuleName(toolIndex, name))));
  const undeclared = undeclaredArgument(ctx, t, schema);
  const items = undeclared === null ? declared : [...declared, undeclared];
  const tagged = items.length === 0 ? p.eps() : p.zeroOrMore(p.seq(p.space(), p.choice(...items)));
  const json = p.seq(p.and(p.literal("{")), p.capture(NODE.toolArgs, p.json()));
  return p.choice(json, tagged);
}

/**
 * For the parser: JSON arguments left out of a call to a tool that requires none, right before the marker that
 * ends them or the call (`get_time<｜tool▁sep｜><｜tool▁call▁end｜>`): `{}`, as for a call written without arguments.
 * Null where nothing ends them.
 */
function noArguments(ctx: BuildContext, t: ToolsAnalysis): PegId | null {
  const { p } = ctx;
  const ends = [t.arguments.end, t.function.close, t.format.perCallEnd, t.format.sectionEnd].map(core);
  const end = ends.find((c) => c !== "");
  return end === undefined ? null : p.and(p.seq(p.space(), p.literal(end)));
}

function hasRequired(schema: JsonSchema): boolean {
  return viewRequired(schema).length > 0;
}

/**
 * Where a name written right before its arguments ends: no identifier character follows; for the parser also a
 * declared argument's name and its closing tag (`fkey</arg_key>…`: the first argument's opener left out, see
 * build-tagged-arguments.ts nameOpener).
 */
function nameEndOf(ctx: BuildContext, t: ToolsAnalysis, schema: JsonSchema): PegId {
  const { p } = ctx;
  const closer = core(t.arguments.nameSuffix);
  const keys = schemaProperties(schema).map(([k]) => k);
  if (ctx.forGrammar || !core(t.arguments.namePrefix).startsWith("<") || !closer.startsWith("</") || keys.length === 0)
    return identifierEnd(p);
  const argument = p.and(p.seq(p.choice(...keys.map((k) => p.literal(k))), p.literal(closer)));
  return p.lenient(p.choice(identifierEnd(p), argument), identifierEnd(p));
}

/**
 * One call of one function; `name` null: for the parser, a call of a function the request does
 * not declare (any identifier, any arguments), so reading goes on after it (the mapper keeps its
 * text as content).
 */
function callOf(ctx: BuildContext, t: ToolsAnalysis, name: string | null, schema: JsonSchema, index: number): PegId {
  const { p } = ctx;
  const fn = t.function;
  const nameNode = p.capture(NODE.toolName, name === null ? p.chars("A-Za-z0-9_.\\-", 1, null) : p.literal(name));
  const nameEnd = fn.nameSuffix.trim() === "" ? nameEndOf(ctx, t, schema) : p.eps();
  const digits = ctx.forGrammar ? 3 : null;
  const handle = t.callId.position === "NONE" ? nameHandle(fn) : null;
  let openItems: PegId[];
  // For the parser whitespace may come between a name's marker and the name (`<｜tool▁sep｜>  f`).
  const lead = ctx.forGrammar || core(fn.namePrefix) === "" ? p.eps() : p.space();
  const suffix = counterMarker(p, fn.nameSuffix, digits);
  const prefix = counterMarker(p, fn.namePrefix, digits);
  const quoted = (text: string, written: PegId): PegId =>
    ctx.forGrammar || name === null ? written : eitherQuote(p, text, written, (t) => counterMarker(p, t, digits));
  // For the parser a declared name may come in OpenAI's `functions.` namespace (`<function=functions.f>`), as models
  // that also learned GPT-OSS's or Kimi's call headers write it.
  const namespaced =
    ctx.forGrammar || name === null ? nameNode : p.choice(nameNode, p.seq(p.literal("functions."), nameNode));
  if (handle === null)
    openItems = [
      ctx.forGrammar || name === null ? prefix : tagAsAttribute(p, fn.namePrefix, quoted(fn.namePrefix, prefix)),
      lead,
      namespaced,
      nameEnd,
      ctx.forGrammar || name === null
        ? suffix
        : nameSuffix(p, fn.namePrefix, fn.nameSuffix, quoted(fn.nameSuffix, suffix)),
    ];
  else {
    // The numbered name is the call's id (functions.NAME:0): the model's own id is kept. The
    // parser also reads it without the head before the name (NAME:0), when the counter follows.
    const head = counterMarker(p, handle.before, digits);
    const counter = counterMarker(p, handle.after, digits);
    const optionalHead = !ctx.forGrammar && !/\d/.test(handle.before) && /\d/.test(handle.after);
    const headed = optionalHead
      ? p.lenient(p.choice(p.seq(head, nameNode), nameNode), p.seq(head, nameNode))
      : p.seq(head, nameNode);
    const numbered = p.tag(NODE.toolId, p.seq(headed, nameEnd, counter));
    // A declared name written alone where the id goes (NAME, neither head nor counter) is a call of it too; it is
    // no id (two such calls would share it), so the call gets a fresh one.
    const alone = p.seq(nameNode, nameEnd);
    const id = optionalHead && name !== null ? p.lenient(p.choice(numbered, alone), numbered) : numbered;
    openItems = [
      counterMarker(p, fn.namePrefix.slice(0, fn.namePrefix.length - handle.before.length), digits),
      id,
      counterMarker(p, fn.nameSuffix.slice(handle.after.length), digits),
    ];
  }
  if (fn.argsSeparator !== "") {
    const separator = p.seq(p.space(), marker(p, fn.argsSeparator));
    const skippable = name !== null && separatorSkippable(ctx, t);
    const next = argumentsNext(ctx, t, hasRequired(schema) ? "" : fn.close);
    openItems.push(skippable ? p.lenient(p.choice(separator, next), separator) : separator);
  }
  const open = p.atomic(p.seq(...openItems));
  const items: PegId[] = [];
  const pos = t.callId.position;
  const argsStart = t.arguments.start || (t.format.mode === "TAG_WITH_JSON" ? "{" : t.arguments.namePrefix);
  if (pos === "PRE_FUNC_NAME") items.push(idSection(ctx, t, fn.namePrefix), open);
  else if (pos === "BETWEEN_FUNC_AND_ARGS") items.push(open, idSection(ctx, t, argsStart));
  else items.push(open);
  const args = argumentsOf(ctx, t, index, schema, name !== null);
  items.push(p.space(), args);
  if (pos === "POST_ARGS") items.push(p.space(), idSection(ctx, t, fn.close || t.format.perCallEnd));
  if (fn.close !== "") items.push(p.space(), p.tag(NODE.callEnd, callCloser(ctx, t)));
  const call = p.seq(...items);
  const selfClosed = ctx.forGrammar || name === null ? null : selfClosingCall(ctx, t, name);
  const tagNamed = ctx.forGrammar || name === null || handle !== null ? null : nameTagCall(ctx, t, name, args);
  const bareNamed = ctx.forGrammar || name === null || handle !== null ? null : bareNameCall(ctx, t, name, args);
  const variants = [selfClosed, call, tagNamed, bareNamed].filter((v): v is PegId => v !== null);
  return p.tag(NODE.tool, variants.length === 1 ? call : p.lenient(p.choice(...variants), call));
}

/**
 * The marker closing a call; for the parser it may be left out right before the closer of the call's
 * wrapper or section (`<parameter=x>1</parameter></tool_call>` without `</function>`).
 */
function callCloser(ctx: BuildContext, t: ToolsAnalysis): PegId {
  const { p } = ctx;
  const written = marker(p, t.function.close);
  const outer = [t.format.perCallEnd, t.format.sectionEnd]
    .map(core)
    .filter((c) => c !== "" && c !== core(t.function.close));
  if (ctx.forGrammar || outer.length === 0) return written;
  return p.choice(written, p.and(p.seq(p.space(), p.choice(...outer.map((c) => p.literal(c))))));
}

/**
 * For the parser: whether a marker between a declared name and its arguments may be left out
 * (`NAME{…}` or `NAME<arg_key>…` for `NAME<sep>…`): only after a marker that opens the call, so a tool's name in
 * prose never starts one.
 */
function separatorSkippable(ctx: BuildContext, t: ToolsAnalysis): boolean {
  const f = t.format;
  return !ctx.forGrammar && [f.sectionStart, f.perCallStart, t.function.namePrefix].some((m) => core(m) !== "");
}

/**
 * Lookahead: the arguments follow right here, a JSON object (no whitespace: `NAME{`) or the first
 * argument's marker (`NAME<arg_key>`), or the call's `closer` (a call without arguments, `NAME</tool_call>`;
 * "" where the tool requires arguments).
 */
function argumentsNext(ctx: BuildContext, t: ToolsAnalysis, closer: string): PegId {
  const { p } = ctx;
  const first = t.format.mode === "TAG_WITH_TAGGED" ? core(t.arguments.start || t.arguments.namePrefix) : "";
  const next = [first, core(closer)].filter((m) => m !== "").map((m) => p.and(p.seq(p.space(), p.literal(m))));
  return p.choice(p.and(p.literal("{")), ...next);
}

/**
 * For the parser: a call whose numbered handle holds only its counter (`<|tool_call_begin|>0…`,
 * the name left out). Its name is the one declared tool its arguments fit (call-finish.ts).
 */
function bareCounterCall(ctx: BuildContext, t: ToolsAnalysis): PegId | null {
  const fn = t.function;
  const handle = t.callId.position === "NONE" ? nameHandle(fn) : null;
  if (ctx.forGrammar || handle === null || t.format.mode !== "TAG_WITH_JSON") return null;
  const { p } = ctx;
  const openItems = [
    counterMarker(p, fn.namePrefix.slice(0, fn.namePrefix.length - handle.before.length)),
    p.capture(NODE.toolName, p.eps()),
    p.chars("0-9", 1, null),
    counterMarker(p, fn.nameSuffix.slice(handle.after.length)),
  ];
  if (fn.argsSeparator !== "") openItems.push(p.space(), marker(p, fn.argsSeparator));
  const a = t.arguments;
  const items = [p.atomic(p.seq(...openItems)), p.space()];
  if (a.start !== "") items.push(marker(p, a.start));
  items.push(p.seq(p.and(p.literal("{")), p.capture(NODE.toolArgs, p.json())));
  if (a.end !== "") items.push(marker(p, a.end));
  if (fn.close !== "") items.push(p.space(), p.tag(NODE.callEnd, marker(p, fn.close)));
  return p.tag(NODE.tool, p.seq(...items));
}

/**
 * For the parser: a call without arguments written as one self-closing element
 * (`<invoke name="f"/>`), where the name marker closes an XML-style opening tag.
 */
function selfClosingCall(ctx: BuildContext, t: ToolsAnalysis, name: string): PegId | null {
  const { p } = ctx;
  const fn = t.function;
  const suffix = core(fn.nameSuffix);
  if (fn.close === "" || !suffix.endsWith(">") || !core(fn.namePrefix).startsWith("<")) return null;
  const closed = `${suffix.slice(0, -1)}/>`;
  // Atomic: while it is only a prefix it must not show a name another reading takes back.
  return p.atomic(
    p.seq(
      marker(p, fn.namePrefix),
      p.capture(NODE.toolName, p.literal(name)),
      p.space(),
      p.tag(NODE.callEnd, p.literal(closed)),
    ),
  );
}

/**
 * For the parser: a call whose function-name tag is the declared name itself (`<web_search>` for
 * `<function=web_search>`), closed by the function's closer or by that name's (`</web_search>`), as Nemotron 3 writes
 * it; only where the template writes the name after a tag and `=`, and only after the call's opener (the name alone
 * is no opener, so text never reaches it). Null elsewhere.
 */
function nameTagCall(ctx: BuildContext, t: ToolsAnalysis, name: string, args: PegId): PegId | null {
  const { p } = ctx;
  const fn = t.function;
  if (tagBeforeEquals(fn.namePrefix) === undefined || fn.close === "" || fn.argsSeparator !== "") return null;
  if (t.callId.position !== "NONE") return null;
  const open = p.atomic(p.seq(p.literal("<"), p.capture(NODE.toolName, p.literal(name)), p.literal(">")));
  const close = p.choice(callCloser(ctx, t), p.literal(`</${name}>`));
  return p.seq(open, p.space(), args, p.space(), p.tag(NODE.callEnd, close));
}

/**
 * For the parser: a call whose function tag is left out, the declared name alone on its line before the arguments
 * (`<tool_call>\nfile_info\n<parameter=path>…` for `<function=file_info>`), as Qwen 3.6 writes it and vMLX's tests read
 * it; with the same conditions as {@link nameTagCall}, and only where an argument's tag follows the name.
 */
function bareNameCall(ctx: BuildContext, t: ToolsAnalysis, name: string, args: PegId): PegId | null {
  const { p } = ctx;
  const fn = t.function;
  const argTag = core(t.arguments.namePrefix);
  if (tagBeforeEquals(fn.namePrefix) === undefined || fn.close === "" || fn.argsSeparator !== "") return null;
  if (t.callId.position !== "NONE" || t.format.mode !== "TAG_WITH_TAGGED" || argTag === "") return null;
  const open = p.atomic(
    p.seq(p.capture(NODE.toolName, p.literal(name)), p.chars(" \t\r\n", 1, 8), p.and(p.literal(argTag))),
  );
  return p.seq(open, args, p.space(), p.tag(NODE.callEnd, callCloser(ctx, t)));
}

/** The tool-call part for tag-based formats (a trigger rule starting the lazy grammar). */
export function buildTaggedTools(ctx: BuildContext, t: ToolsAnalysis): PegId {
  const { p } = ctx;
  const f = t.format;
  const declaredCalls = (c: BuildContext, format: ToolsAnalysis): PegId[] =>
    c.tools.map((tool, i) =>
      p.rule(ruleName(c, `tool-${i}`), callOf(c, format, tool.function.name, toolParameters(tool), i)),
    );
  const call = withoutNamespaceToo(ctx, t, withParserOnlyCalls(ctx, t, declaredCalls(ctx, t)), declaredCalls);
  const more = (item: PegId): PegId => moreCalls(ctx, item);
  let calls: PegId;
  // The parser reads calls whose models skip a marker another marker still makes clear (Qwen3-Coder
  // writing <function=…> with no <tool_call>, Kimi with no section marker, a last call unclosed);
  // the grammar's own copy writes every marker.
  const skip = ctx.forGrammar ? new Set<string>() : new Set(skippableMarkers(t));
  const mark = (m: string): PegId => (skip.has(m) ? p.optional(marker(p, m)) : marker(p, m));
  if (f.perCallStart !== "") {
    // The per-call closer ends the call where the function has no closer of its own (for the parser
    // also where the model left the function's closer out: callCloser).
    const closes = t.function.close === "" || !ctx.forGrammar;
    const perCallEnd = closes ? p.tag(NODE.callEnd, mark(f.perCallEnd)) : mark(f.perCallEnd);
    const one = p.seq(
      perCallOpener(ctx, t, mark),
      p.space(),
      call,
      p.space(),
      f.perCallEnd !== "" ? perCallEnd : p.eps(),
    );
    calls = p.seq(one, more(p.seq(p.space(), one)));
    if (f.sectionStart !== "")
      calls = p.seq(mark(f.sectionStart), p.space(), calls, p.space(), sectionEnd(ctx, t, mark));
  } else {
    const list = p.seq(call, more(p.seq(p.space(), p.optional(p.literal(",")), p.space(), call)));
    // The parser reads a section its model left unclosed; the grammar writes the closer.
    const end = f.sectionEnd === "" ? p.eps() : p.lenient(sectionEnd(ctx, t, mark), marker(p, f.sectionEnd));
    calls = p.seq(mark(f.sectionStart), p.space(), list, p.space(), end);
  }
  if (!ctx.forGrammar) ctx.quotedCalls = calls;
  return p.rule(ruleName(ctx, "tool-calls"), p.tag(NODE.toolSection, calls), {
    trigger: ctx.toolTrigger ? triggerOf(t) : false,
  });
}

/**
 * A call's own opener. For the parser it may be left out inside a section, right before a declared tool's name
 * (`<｜tool▁calls▁begin｜>get_weather<｜tool▁sep｜>{…}`): the section's opener already says calls follow.
 */
function perCallOpener(ctx: BuildContext, t: ToolsAnalysis, mark: (m: string) => PegId): PegId {
  const { p } = ctx;
  const f = t.format;
  const written = mark(f.perCallStart);
  if (ctx.forGrammar || core(f.sectionStart) === "" || ctx.tools.length === 0) return written;
  const prefix = t.function.namePrefix !== "" ? marker(p, t.function.namePrefix) : p.eps();
  const name = p.choice(...ctx.tools.map((tool) => p.literal(tool.function.name)));
  return p.choice(written, p.and(p.seq(prefix, name, identifierEnd(p))));
}

/** A section's closer; for the parser it also closes a last call whose own closer the model left out. */
function sectionEnd(ctx: BuildContext, t: ToolsAnalysis, mark: (m: string) => PegId): PegId {
  const end = mark(t.format.sectionEnd);
  return ctx.forGrammar || t.function.close === "" ? end : ctx.p.tag(NODE.callEnd, end);
}

/**
 * The calls of the declared tools; the parser also reads a bare-counter call and a call of an
 * undeclared tool (both to keep reading after them), which the grammar never writes.
 */
function withParserOnlyCalls(ctx: BuildContext, t: ToolsAnalysis, choices: PegId[]): PegId {
  const { p } = ctx;
  const declared = p.choice(...choices);
  if (ctx.forGrammar) return declared;
  const bare = bareCounterCall(ctx, t);
  const undeclared = p.rule(ruleName(ctx, "tool-undeclared"), callOf(ctx, t, null, { type: "object" }, choices.length));
  // A call written as a JSON call object inside the call's markers (`<tool_call>{"name": "f", "arguments": {…}}`).
  const json = t.format.perCallStart !== "" ? ctx.tools.map((tool) => jsonCallObject(p, tool.function.name)) : [];
  return p.lenient(p.choice(...choices, ...json, ...(bare === null ? [] : [bare]), undeclared), declared);
}

/** Looks like a format marker (bracketed or piped), not a word that prose may contain. */
function markerLike(text: string): boolean {
  return /^[<[{]/.test(text) || text.includes("|");
}

/**
 * Markers a model may leave out because the next one still opens the call unambiguously: the
 * section opener when a per-call opener follows (or, without one, a function-name opener that is a
 * marker), the per-call opener when the function-name opener is a marker; and every closer of a
 * section or call (the last call of an output that ends is closed by its end).
 */
function skippableMarkers(t: ToolsAnalysis): string[] {
  const f = t.format;
  const out: string[] = [f.sectionEnd, f.perCallEnd];
  // The section opener, where a per-call opener follows it, or the function-name opener where there is none.
  const next = f.perCallStart !== "" ? f.perCallStart : t.function.namePrefix;
  if (f.sectionStart !== "" && markerLike(core(next))) out.push(f.sectionStart);
  if (f.perCallStart !== "" && markerLike(core(t.function.namePrefix))) out.push(f.perCallStart);
  return out.filter((m) => m !== "");
}

/**
 * Every word that may open calls in a model's output: the section's trigger word, and the
 * markers that open calls when a model skips the ones before them.
 *
 * @example
 * callOpeners(qwen3Coder.tools); // ["<tool_call>", "<function="]
 */
export function callOpeners(t: ToolsAnalysis): string[] {
  const f = t.format;
  const skipped = new Set(skippableMarkers(t));
  const out = [toolTriggerWord(t)];
  if (skipped.has(f.sectionStart)) out.push(core(f.perCallStart) || core(t.function.namePrefix));
  if (skipped.has(f.perCallStart)) out.push(core(t.function.namePrefix));
  // An opener ending in an attribute's `="` also opens calls with `='` (eitherQuote reads the call).
  const quoted = out.filter((w) => w.endsWith('="')).map((w) => `${w.slice(0, -1)}'`);
  return [...new Set([...out, ...quoted].filter((w) => w !== "").flatMap(wordSpellings))];
}

/**
 * An opener as written, then as a model may write its inner whitespace otherwise (see marker): a space or
 * newline for the other, or none; a space between two words also as BPE's glyph; SentencePiece's glyph as models
 * spell it otherwise (glyphSpellings). The first is the opener.
 *
 * @example
 * wordSpellings("Action:\n```json"); // ["Action:\n```json", "Action: ```json", "Action:```json"]
 */
export function wordSpellings(word: string): string[] {
  if (word.includes(SPACE_GLYPH)) return [word, ...glyphSpellings(word)];
  if (!/\S\s+\S/.test(word)) return [word];
  const inner = /(?<=\S)\s+(?=\S)/g;
  const out = [word, word.replace(inner, " "), word.replace(inner, "\n"), word.replace(inner, "")];
  if (/\w \w/.test(word)) out.push(word.replace(/(\w) (?=\w)/g, "$1\u0120"));
  return [...new Set(out)];
}

/** The word that starts a call section (section, per-call or function-name opener). */
export function toolTriggerWord(t: ToolsAnalysis): string {
  const f = t.format;
  return (
    core(f.sectionStart) ||
    core(f.perCallStart) ||
    (t.callId.position === "PRE_FUNC_NAME" ? core(t.callId.prefix) : "") ||
    core(t.function.namePrefix.replace(/\d+/g, ""))
  );
}

function triggerOf(t: ToolsAnalysis): true | { word: string } {
  const word = toolTriggerWord(t);
  return word === "" ? true : { word };
}
