/**
 * Tool calls written entirely as JSON (JSON_NATIVE): `{"name": "f", "arguments": {...}}` with
 * the fields in the template's order (flat, or nested under a dotted key), `{"f": {...}}`
 * (name as key), optionally several in an array, optionally wrapped in section or per-call
 * markers.
 */
import type { PegId } from "../peg/index.js";
import type { JsonSchema } from "../types.js";
import type { ToolFormatAnalysis } from "../analysis/index.js";
import {
  type BareCalls,
  type BuildContext,
  argumentValue,
  marker,
  moreCalls,
  pythonValue,
  quotedKey,
  quotedName,
  ruleName,
  toolParameters,
  withoutSpecialTokens,
} from "./build-helpers.js";
import { ID_CHARS, MAX_ID } from "./build-tools-tagged.js";
import { NODE } from "./tree-names.js";
import { inFence } from "./fenced-calls.js";

/** `"key" : ` */
function keyColon(ctx: BuildContext, key: string): PegId {
  const { p } = ctx;
  return p.seq(quotedKey(ctx, key), p.space("tight"), p.literal(":"), p.space("separator"));
}

/** A string or numeric id value. */
function idValue(ctx: BuildContext): PegId {
  const { p } = ctx;
  // The grammar copy bounds ids (a free string need not end).
  if (ctx.forGrammar)
    return p.choice(
      p.seq(p.literal('"'), p.capture(NODE.toolId, p.chars(ID_CHARS, 1, MAX_ID)), p.literal('"')),
      p.capture(NODE.toolId, p.chars("0-9", 1, 9)),
    );
  return p.choice(
    p.seq(p.literal('"'), p.capture(NODE.toolId, p.chars('^"', 0)), p.literal('"')),
    p.capture(NODE.toolId, p.chars("0-9", 1)),
  );
}

/** Fields joined by `,`, optional ones with their separator. */
function fields(ctx: BuildContext, parts: { node: PegId; optional: boolean }[]): PegId {
  const { p } = ctx;
  const sep = p.seq(p.space("tight"), p.literal(","), p.space("separator"));
  const items: PegId[] = [];
  let first = true;
  for (const part of parts) {
    if (first) {
      items.push(part.optional ? p.optional(p.seq(part.node, sep)) : part.node);
      if (!part.optional) first = false;
      continue;
    }
    items.push(part.optional ? p.optional(p.seq(sep, part.node)) : p.seq(sep, part.node));
  }
  return p.seq(...items);
}

/** One call of one function. */
function callOf(ctx: BuildContext, f: ToolFormatAnalysis, name: string, schema: JsonSchema, index: number): PegId {
  const { p } = ctx;
  const args = p.capture(NODE.toolArgs, argumentValue(ctx, schema, `tool-${index}-args`));
  const nameValue = p.atomic(quotedName(ctx, name, (inner) => p.capture(NODE.toolName, inner)));

  if (f.funNameIsKey) {
    const body = p.seq(
      p.literal("{"),
      p.space("tight"),
      p.atomic(
        p.seq(
          quotedName(ctx, name, (inner) => p.capture(NODE.toolName, inner)),
          p.space("tight"),
          p.literal(":"),
        ),
      ),
      p.space("separator"),
      args,
      p.space("tight"),
      p.literal("}"),
    );
    return p.tag(NODE.tool, body);
  }

  const nameKey = f.nameField || "name";
  const argsKey = f.argsField || "arguments";
  const dotted = nameKey.includes(".")
    ? nameKey.slice(0, nameKey.indexOf("."))
    : argsKey.includes(".")
      ? argsKey.slice(0, argsKey.indexOf("."))
      : "";
  const leaf = (k: string): string => (k.includes(".") ? k.slice(k.indexOf(".") + 1) : k);

  const nameField = { key: nameKey, node: p.seq(keyColon(ctx, leaf(nameKey)), nameValue), optional: false };
  const argsField = { key: argsKey, node: p.seq(keyColon(ctx, leaf(argsKey)), args), optional: false };
  const idFields: { key: string; node: PegId; optional: boolean }[] = [];
  if (f.idField) idFields.push({ key: f.idField, node: p.seq(keyColon(ctx, f.idField), idValue(ctx)), optional: true });
  if (f.genIdField)
    idFields.push({ key: f.genIdField, node: p.seq(keyColon(ctx, f.genIdField), idValue(ctx)), optional: true });

  const order = (k: string): number => {
    const i = f.parameterOrder.indexOf(k);
    return i < 0 ? f.parameterOrder.length : i;
  };
  let body: PegId;
  if (dotted !== "") {
    // {"function": {"name": ..., "arguments": ...}} with the ids beside "function".
    const inner = p.seq(
      p.literal("{"),
      p.space("tight"),
      fields(ctx, [nameField, argsField]),
      p.space("tight"),
      p.literal("}"),
    );
    const outer = [{ key: dotted, node: p.seq(keyColon(ctx, dotted), inner), optional: false }, ...idFields].sort(
      (a, b) => order(a.key) - order(b.key),
    );
    body = fields(ctx, outer);
  } else {
    const all = [nameField, argsField, ...idFields].sort((a, b) => order(a.key) - order(b.key));
    body = fields(ctx, all);
    // The parser reads the fields in any order, the name also under the usual key ("name" where the template
    // writes "tool_name"), the arguments also under the other usual key.
    if (!ctx.forGrammar) {
      const usual = leaf(nameKey) === NAME_KEY ? [] : [p.seq(keyColon(ctx, NAME_KEY), nameValue)];
      const name = { keys: [leaf(nameKey), NAME_KEY], node: p.choice(nameField.node, ...usual) };
      body = p.lenient(anyOrder(ctx, name, [argsField, ...idFields], argsKey, args), body);
    }
  }
  // Models trained on OpenAI data sometimes add the wrapper's "type": "function".
  const typeField = f.openaiWrapperTrigger
    ? p.optional(
        p.seq(keyColon(ctx, "type"), p.literal('"function"'), p.space("tight"), p.literal(","), p.space("separator")),
      )
    : p.eps();
  const braces = (inside: PegId) => p.seq(p.literal("{"), p.space("tight"), inside, p.space("tight"), p.literal("}"));
  const call = p.tag(NODE.tool, braces(p.seq(typeField, body)));
  if (ctx.forGrammar) return call;
  // For the parser also in doubled braces (`{{"name": …}}`, a closing brace or more left over or left out), as
  // models copy a prompt that prints its call example with a template engine's escaped braces.
  const doubled = p.seq(
    p.literal("{"),
    p.space(),
    p.and(p.literal("{")),
    call,
    p.zeroOrMore(p.seq(p.space(), p.literal("}"))),
  );
  return p.lenient(p.choice(call, doubled), call);
}

/** For the parser also `calls` in a Markdown fence inside the format's markers (`<tool_call>\n```json\n{…}\n````). */
function fencedInside(ctx: BuildContext, calls: PegId): PegId {
  return ctx.forGrammar ? calls : ctx.p.lenient(ctx.p.choice(calls, inFence(ctx.p, calls)), calls);
}

/**
 * The section's opener; for the parser also its words without its special tokens (`function call{…}` for
 * `<|message_sep|>\n\nfunction call<|role_sep|>\n{…}`), as stacks that decode without special tokens leave it.
 */
function sectionOpener(ctx: BuildContext, opener: string): PegId {
  const { p } = ctx;
  const written = marker(p, opener);
  const words = withoutSpecialTokens(opener);
  if (ctx.forGrammar || words === "") return written;
  // Only right before the calls' JSON: while the written opener is still arriving its words must not match.
  const json = p.and(p.seq(p.space(), p.choice(p.literal("{"), p.literal("["))));
  return p.lenient(p.choice(written, p.seq(marker(p, words), json)), written);
}

/** Keys models use for a call's arguments. */
const ARGUMENT_KEYS = ["arguments", "parameters"];
/** The key models use for a call's name. */
const NAME_KEY = "name";

/**
 * For the parser: the call's fields in any order (each once in practice), the arguments under either usual key,
 * and other fields with a scalar value that a model adds (`"id": "call_1"`, `"type": "function"`), read and
 * dropped. The name is required: a JSON object without it is not a call, and its text stays content.
 */
function anyOrder(
  ctx: BuildContext,
  name: { keys: string[]; node: PegId },
  parts: { key: string; node: PegId }[],
  argsKey: string,
  args: PegId,
): PegId {
  const { p } = ctx;
  const aliases = ARGUMENT_KEYS.filter((k) => k !== argsKey).map((k) => p.seq(keyColon(ctx, k), args));
  const known = [...name.keys, ...ARGUMENT_KEYS, ...parts.map((x) => x.key)].map((k) => quotedKey(ctx, k));
  const quote = (): PegId => p.choice(p.literal('"'), p.literal("'"));
  const extra = p.seq(
    p.not(p.choice(...known)),
    quote(),
    p.chars("A-Za-z0-9_\\-.", 1, 64),
    quote(),
    p.space(),
    p.literal(":"),
    p.space(),
    // A scalar only: an object or list under another key may be the arguments misnamed, which are not dropped.
    p.not(p.choice(p.literal("{"), p.literal("["))),
    p.choice(p.json(), pythonValue(p)),
  );
  const other = p.choice(...parts.map((x) => x.node), ...aliases, extra);
  const sep = p.seq(p.space(), p.literal(","), p.space());
  const max = parts.length + aliases.length + 2;
  const member = p.choice(name.node, other);
  return p.seq(p.repeat(p.seq(other, sep), 0, max), name.node, p.repeat(p.seq(sep, member), 0, max));
}

/**
 * For the parser: a special token a model writes before a markerless call, recognised by its
 * shape (`<|python_tag|>`, or a bracketed upper-case word as `[TOOL_CALLS]`); it is not part of the call.
 */
export function specialToken(ctx: BuildContext): PegId {
  const { p } = ctx;
  return p.choice(
    p.seq(p.literal("<|"), p.chars("A-Za-z0-9_", 1, 32), p.literal("|>")),
    p.seq(p.literal("["), p.chars("A-Z", 1, 1), p.chars("A-Z0-9_", 0, 31), p.literal("]")),
  );
}

/** JSON calls written without their format's markers: one call object, or a list of them. */
function bareJson(ctx: BuildContext, call: PegId, more: (item: PegId) => PegId): BareCalls {
  const { p } = ctx;
  const list = p.seq(call, more(p.seq(p.space(), p.literal(","), p.space(), call)));
  const bare = p.choice(p.seq(p.literal("["), p.space(), list, p.space(), p.literal("]")), call);
  return { calls: bare, head: jsonCallsHead(ctx), starts: ["{", "["] };
}

/** `{"name": "NAME"`, a declared tool's name, alone or first in a list: how JSON calls start. */
function jsonCallsHead(ctx: BuildContext): PegId {
  const { p } = ctx;
  const names = p.choice(...ctx.tools.map((t) => p.literal(JSON.stringify(t.function.name))));
  const object = p.seq(p.literal("{"), p.space(), p.literal('"name"'), p.space(), p.literal(":"), p.space(), names);
  return p.choice(object, p.seq(p.literal("["), p.space(), object));
}

/**
 * The tool-call part for JSON_NATIVE formats: a trigger rule (it starts the lazy grammar) whose
 * trigger is the section / per-call marker, or for markerless formats a pattern on how the
 * call's JSON starts.
 */
export function buildJsonTools(ctx: BuildContext, f: ToolFormatAnalysis): PegId {
  const { p } = ctx;
  const choices = ctx.tools.map((t, i) =>
    p.rule(ruleName(ctx, `tool-${i}`), callOf(ctx, f, t.function.name, toolParameters(t), i)),
  );
  const call = p.choice(...choices);
  const more = (item: PegId): PegId => moreCalls(ctx, item);

  let calls: PegId;
  if (f.sectionStart.trim() === "" && f.perCallStart.trim() === "" && !ctx.forGrammar) {
    // Markerless calls: the parser also reads a special token before a call, calls separated by
    // `;`, `,` or whitespace, and the calls as one list or not, whichever the template writes.
    const token = p.optional(p.seq(specialToken(ctx), p.space()));
    const sep = p.seq(p.space(), p.optional(p.chars(",;", 1, 1)), p.space(), token);
    const original = p.seq(
      marker(p, f.sectionStart),
      p.space(),
      wrapArray(ctx, f, call, more),
      p.space(),
      marker(p, f.sectionEnd),
    );
    const list = p.seq(call, more(p.seq(sep, call)));
    const listed = p.seq(p.literal("["), p.space(), list, p.space(), p.literal("]"));
    const either = p.choice(listed, list);
    calls = p.lenient(p.seq(p.space(), token, either, p.space(), marker(p, f.sectionEnd)), original);
    ctx.fencedCalls = p.seq(token, either);
  } else if (f.sectionStart === "" && f.perCallStart !== "") {
    // The grammar copy repeats either the calls in one marker's array or the markers, so that
    // maxCalls bounds the calls.
    const inner = ctx.forGrammar && !f.toolsArrayWrapped ? (): PegId => p.eps() : more;
    const outer = ctx.forGrammar && f.toolsArrayWrapped ? (): PegId => p.eps() : more;
    // For the parser the per-call closer is the call's text (a call that is not one leaves it as content).
    const end =
      ctx.forGrammar || f.perCallEnd === "" ? marker(p, f.perCallEnd) : p.tag(NODE.callEnd, marker(p, f.perCallEnd));
    const one = p.seq(
      marker(p, f.perCallStart),
      p.space(),
      fencedInside(ctx, wrapArray(ctx, f, call, inner)),
      p.space(),
      end,
    );
    calls = p.seq(one, outer(p.seq(p.space(), one)));
    // For the parser also an output that is nothing but the calls, their markers left out (Ollama reads it).
    if (!ctx.forGrammar && f.perCallStart.trim() !== "")
      ctx.bareCalls = { ...bareJson(ctx, call, more), wholeOutput: true };
  } else {
    calls = p.seq(
      sectionOpener(ctx, f.sectionStart),
      p.space(),
      fencedInside(ctx, wrapArray(ctx, f, call, more)),
      p.space(),
      marker(p, f.sectionEnd),
    );
    // For the parser also the calls without their section's markers, as models write them (`[{"name": …}]`).
    if (!ctx.forGrammar && f.sectionStart.trim() !== "") ctx.bareCalls = bareJson(ctx, call, more);
  }
  const taught = f.taughtListStart ?? "";
  if (taught !== "") {
    // The list the prompt teaches (`functools[...]`), besides the bare calls the history renders.
    const list = p.seq(p.literal(taught), p.space(), wrapArray(ctx, { ...f, toolsArrayWrapped: true }, call, more));
    calls = p.choice(list, calls);
  }
  // Marked calls quoted as code are an example (markerless ones in a fence are calls, set above).
  if (!ctx.forGrammar && ctx.fencedCalls === undefined) ctx.quotedCalls = calls;
  const start = f.sectionStart || f.perCallStart;
  // The marker as the template writes it (its whitespace may vary in the output, the trigger
  // word is the rendered one, as llama.cpp's).
  const trigger = !ctx.toolTrigger
    ? false
    : start.trim() !== ""
      ? { word: start.trim() }
      : { pattern: markerlessTrigger(f) };
  if (start.trim() === "" && !ctx.forGrammar) {
    const head = markerlessHead(ctx, f);
    if (head !== null) ctx.callHead = head;
  }
  return p.rule(ruleName(ctx, "tool-calls"), p.tag(NODE.toolSection, calls), { trigger });
}

/** Calls, comma separated, in `[...]` when the template wraps them in an array. */
function wrapArray(ctx: BuildContext, f: ToolFormatAnalysis, call: PegId, more: (item: PegId) => PegId): PegId {
  const { p } = ctx;
  // The parser reads past a malformed object among the calls (its text is content), as past an undeclared tool.
  // Named by its own text, no declared tool's name, so the call is not one.
  const malformed = (): PegId => p.tag(NODE.tool, p.capture(NODE.toolName, bracedText(ctx)));
  const item = ctx.forGrammar ? call : p.lenient(p.choice(call, malformed()), call);
  // Calls are separated by commas (or only by newlines, as MiniMax writes them).
  const list = p.seq(item, more(p.seq(p.space(), p.optional(p.literal(",")), p.space(), item)));
  const listed = p.seq(p.literal("["), p.space(), list, p.space(), p.literal("]"));
  const written = f.toolsArrayWrapped ? listed : list;
  // The parser reads the calls in a list or not, whichever the template writes.
  return ctx.forGrammar
    ? written
    : p.lenient(f.toolsArrayWrapped ? p.choice(listed, list) : p.choice(list, listed), written);
}

/** For the parser: `{…}` with its braces balanced, whatever it holds (a malformed call). */
function bracedText(ctx: BuildContext): PegId {
  const { p } = ctx;
  const name = ruleName(ctx, "braced-text");
  // Built once per arena (the calls' list may be built twice: taught and rendered).
  if (p.ruleNode(name) !== undefined) return p.ref(name);
  return p.rule(name, () =>
    p.seq(p.literal("{"), p.zeroOrMore(p.choice(p.chars("^{}", 1), p.ref(name))), p.literal("}")),
  );
}

/**
 * How a markerless call starts, through its tool name (`{"name": "get_weather"`), where the name
 * is the first field; null where it is not (the head then has no fixed shape).
 */
function markerlessHead(ctx: BuildContext, f: ToolFormatAnalysis): PegId | null {
  const { p } = ctx;
  const names = p.choice(...ctx.tools.map((t) => quotedName(ctx, t.function.name, (inner) => inner)));
  let object: PegId;
  if (f.funNameIsKey) object = p.seq(p.literal("{"), p.space(), names, p.space(), p.literal(":"));
  else {
    const nameKey = f.nameField || "name";
    if (nameKey.includes(".") || (f.argsField ?? "").includes(".")) return null;
    const keys = [nameKey, f.argsField || "arguments", f.idField, f.genIdField].filter((k): k is string => !!k);
    const rank = (k: string): number => {
      const i = f.parameterOrder.indexOf(k);
      return i < 0 ? f.parameterOrder.length : i;
    };
    if (keys.some((k) => k !== nameKey && rank(k) <= rank(nameKey))) return null;
    const typeField = f.openaiWrapperTrigger
      ? p.optional(p.seq(keyColon(ctx, "type"), p.literal('"function"'), p.space(), p.literal(","), p.space()))
      : p.eps();
    object = p.seq(p.literal("{"), p.space(), typeField, keyColon(ctx, nameKey), names);
  }
  // The parser reads the calls in a list or not, whichever the template writes (see buildJsonTools).
  const bare = p.choice(p.seq(p.literal("["), p.space(), object), object);
  const taught = f.taughtListStart ?? "";
  const heads =
    taught !== "" ? p.choice(p.seq(p.literal(taught), p.space(), p.literal("["), p.space(), object), bare) : bare;
  return p.seq(p.space(), heads);
}

/** Without markers a call is recognised by how its JSON starts (at the start of the output). */
function markerlessTrigger(f: ToolFormatAnalysis): string {
  if (f.funNameIsKey) return '^\\s*(\\[?\\s*\\{\\s*")';
  const first = f.parameterOrder[0] ?? (f.nameField || "name");
  const key = first.includes(".") ? first.slice(0, first.indexOf(".")) : first;
  const keys = f.openaiWrapperTrigger ? `(?:type|${escapeRegex(key)})` : escapeRegex(key);
  const taught = f.taughtListStart ? `(?:${escapeRegex(f.taughtListStart)}\\s*\\[\\s*)?` : "";
  return `^\\s*(${taught}${f.toolsArrayWrapped ? "\\[\\s*" : ""}\\{\\s*"${keys}")`;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
