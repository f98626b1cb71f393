/**
 * A call syntax the prompt teaches in words where no rendered call shows one. Granite 3.3
 * renders no tool calls in its history, but its system prompt, given tools, says "respond only
 * with <|tool_call|> followed by a JSON list of tools used": the model writes that marker, then
 * a JSON list of `{"name": …, "arguments": …}` objects. Found in the prompt rendered with tools,
 * as a marker followed, in the same sentence, by the JSON shape it opens ("a JSON list", "a JSON
 * array of …", "a JSON object"), where the marker is none the prompt without tools renders (a
 * turn marker is structure, not a taught call). Key names come from the sentence when it quotes
 * them (`{"name": …, "parameters": …}`), else they are OpenAI's.
 *
 * @example
 * const taught = taughtCallSection(renderer);
 * // { sectionStart: "<|tool_call|>", sectionEnd: "", toolsArrayWrapped: true,
 *      nameField: "name", argsField: "arguments" }
 */
import { ARG_FIRST, FUN_FIRST, FUN_SECOND, PROBE_TOOLS, USER_TURN } from "./probes.js";
import type { VariantRenderer } from "./render.js";

/** What the prose teaches: the section's markers and the JSON inside. */
export interface TaughtCallSection {
  sectionStart: string;
  /** A closing marker the sentence names with the opener (`<tool_call></tool_call>`), else "". */
  sectionEnd: string;
  /** The calls come as a JSON list (else as JSON objects). */
  toolsArrayWrapped: boolean;
  nameField: string;
  argsField: string;
}

/** A marker: angled (`<|tool_call|>`, `<tools>`) or squared (`[TOOL_CALLS]`), without blanks. */
const MARKER = /<[^<> \t\r\n]+>|\[[^[\] \t\r\n]+\]/g;

/** How far after the marker the JSON shape may be named ("followed by a", "and then an"). */
const SHAPE_GAP = 40;

/** "JSON list", "JSON array(s)", "JSON object(s)", "list of JSON …", "array of JSON …". */
const SHAPE = /\bJSON[ \t]+(list|array|object)s?\b|\b(list|array)[ \t]+of[ \t]+JSON\b/i;

/** A quoted key of an example object in the sentence: `"name":`. */
const QUOTED_KEY = /"([A-Za-z_][A-Za-z0-9_]*)"[ \t]*:/g;

/**
 * The call section the tools prompt teaches in prose, or null when it teaches none. Only for
 * templates whose renderings show no call (the caller checks): the prose is then all there is.
 */
export function taughtCallSection(renderer: VariantRenderer): TaughtCallSection | null {
  const prompt = renderer.render({ messages: [USER_TURN], tools: PROBE_TOOLS, addGenerationPrompt: true });
  const plain = renderer.render({ messages: [USER_TURN], tools: null, addGenerationPrompt: true });
  if (prompt === null || plain === null) return null;
  for (const m of prompt.matchAll(MARKER)) {
    const opener = m[0];
    if (isCloser(opener) || plain.includes(opener)) continue;
    if ([FUN_FIRST, FUN_SECOND, ARG_FIRST].some((needle) => opener.includes(needle))) continue;
    const sentence = sentenceAfter(prompt, m.index + opener.length);
    const taught = taughtShape(opener, sentence);
    if (taught !== null) return taught;
  }
  return null;
}

/** The rest of the sentence from `at`: up to a line break or a sentence-ending stop. */
function sentenceAfter(text: string, at: number): string {
  const rest = text.slice(at);
  const end = /\n|[.!?](?=[ \t\r\n]|$)/.exec(rest);
  return end === null ? rest : rest.slice(0, end.index);
}

/** The section `opener` opens, when `sentence` (what follows it) names a JSON shape right after it. */
function taughtShape(opener: string, sentence: string): TaughtCallSection | null {
  const closer = closerOf(opener);
  // A closer written right against the opener (`<tool_call></tool_call>`) is part of the marker.
  const paired = new RegExp(`^[ \t]*${escapeRegex(closer)}`).exec(sentence);
  const afterMarkers = paired === null ? sentence : sentence.slice(paired[0].length);
  const shape = SHAPE.exec(afterMarkers);
  if (shape === null || shape.index > SHAPE_GAP) return null;
  const keys = [...new Set([...afterMarkers.slice(shape.index).matchAll(QUOTED_KEY)].map((k) => k[1]!))];
  // An example object needs a name key and an arguments key; without one the keys are OpenAI's.
  const quoted = keys.length >= 2;
  const nameField = quoted ? (keys.find((k) => /name/i.test(k)) ?? keys[0]!) : "name";
  return {
    sectionStart: opener,
    sectionEnd: paired !== null || sentence.includes(closer) ? closer : "",
    toolsArrayWrapped: (shape[1] ?? shape[2] ?? "").toLowerCase() !== "object",
    nameField,
    argsField: quoted ? (keys.find((k) => k !== nameField) ?? "arguments") : "arguments",
  };
}

/** `</x>`, `<|/x|>`, `[/X]`: a marker that closes. */
function isCloser(marker: string): boolean {
  return /^(<\|?|\[)\//.test(marker);
}

/** The closing form of an opener: `<x>` → `</x>`, `<|x|>` → `<|/x|>`, `[X]` → `[/X]`. */
function closerOf(opener: string): string {
  const head = opener.startsWith("<|") ? 2 : 1;
  return `${opener.slice(0, head)}/${opener.slice(head)}`;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
