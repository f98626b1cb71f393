/**
 * Markers as models write them, for the chat parser builders: the whitespace around and inside a marker, names after
 * a marker (a tag's attribute, a `>` left out), counters in markers, and SentencePiece's space glyph spelled otherwise.
 */
import type { PegArena, PegId } from "../peg/index.js";

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

/**
 * The words of a marker without its special tokens (`function call` for
 * `<|message_sep|>\n\nfunction call<|role_sep|>`), as stacks that decode without special tokens leave it; "" where
 * no word of three letters or more remains, or no special token was taken out.
 *
 * @example
 * withoutSpecialTokens("<|message_sep|>\n\nfunction call<|role_sep|>\n"); // "function call"
 */
export function withoutSpecialTokens(text: string): string {
  const words = text
    .replace(/<[|｜][^<>]{1,40}?[|｜]>/g, " ")
    .trim()
    .replace(/\s+/g, " ");
  return words !== text.trim() && /[A-Za-z]{3}/.test(words) && !/[<>]/.test(words) ? words : "";
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
export function tagBeforeEquals(text: string): string | undefined {
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
