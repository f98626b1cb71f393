/**
 * Gemma 4 argument objects the model wrote wrongly, read for the parser member by member as the serving projects
 * repair them (Ollama, LM Studio, oMLX, vLLM, Dynamo): round brackets for the braces (`call:f(k:<|"|>v<|"|>)`),
 * a string whose closing delimiter is left out (`k:<|"|>ls}`: it ends where the next argument or the call's end
 * begins), a value in single quotes with a stray delimiter after it (`k:'v'<|"|>`), a stray delimiter before a
 * key, an empty value (`k:,`) and a string argument's value written bare (`k: Tokyo`, only where the tool's schema
 * lets that argument be a string, as Ollama gates it). Only a call whose `<tool_call|>` is written reads so: the
 * object's end is where the call ends.
 */
import type { PegArena, PegId } from "../../peg/index.js";
import type { ToolDefinition } from "../../types.js";
import { mayBeString, schemaProperties, toolParameters } from "../build-helpers.js";
import { NODE } from "../tree-names.js";

/** The markers the repaired object sits between. */
export interface Gemma4Markers {
  /** The string delimiter (`<|"|>`). */
  string: string;
  /** The call's closer (`<tool_call|>`). */
  callEnd: string;
  /** The characters of a key written bare (a character class). */
  bareKeyChars: string;
}

/** Where a repaired object's parts end. */
interface Boundaries {
  /** After a well-formed value: any key follows, or the object and the call end. */
  afterValue: PegId;
  /** After repaired text: a declared key follows (any, where none is declared), or the call ends. */
  textEnd: PegId;
  /** The call ends, the object's closing bracket left out or not. */
  openEnd: PegId;
  /** The call ends right after the object's closing bracket. */
  closedEnd: PegId;
  /** A declared argument's name (any bare key where none is declared). */
  declaredKey: PegId;
}

function boundaries(p: PegArena, m: Gemma4Markers, declared: string[]): Boundaries {
  const ws = p.space();
  const bareKey = p.chars(m.bareKeyChars, 1);
  const memberAt = (key: PegId): PegId =>
    p.seq(ws, p.literal(","), ws, p.optional(p.literal(m.string)), key, ws, p.literal(":"));
  // The object's closing bracket may be left out only after a value whose own end was repaired (a string left
  // open, a bare one), as Ollama repairs it; an object left open after well-formed values is no call.
  const close = p.chars("})", 1, 1);
  const closedEnd = p.seq(ws, close, ws, p.and(p.literal(m.callEnd)));
  const openEnd = p.seq(ws, p.optional(close), ws, p.and(p.literal(m.callEnd)));
  const delimitedKey = p.seq(p.literal(m.string), p.until(m.string), p.literal(m.string));
  // `, k:` in prose is text: repaired text ends only where a declared key follows.
  const declaredKey = declared.length > 0 ? p.choice(...declared.map((k) => p.literal(k))) : bareKey;
  return {
    afterValue: p.choice(memberAt(p.choice(delimitedKey, bareKey)), closedEnd),
    textEnd: p.choice(memberAt(declaredKey), openEnd),
    openEnd,
    closedEnd,
    declaredKey,
  };
}

/** A value as written or repaired (`strict`), and also written bare (`withBare`), as `tool-arg` value nodes. */
function values(p: PegArena, value: PegId, m: Gemma4Markers, b: Boundaries): { strict: PegId; withBare: PegId } {
  const ws = p.space();
  const textUntil = (end: PegId): PegId => p.capture(NODE.argString, p.zeroOrMore(p.seq(p.not(end), p.any())));
  const wellFormed = p.seq(ws, p.capture(NODE.argJson, value), p.and(b.afterValue));
  const quote = p.literal("'");
  const singleQuoted = p.seq(
    ws,
    quote,
    p.capture(NODE.argString, p.chars("^'", 0)),
    quote,
    p.optional(p.literal(m.string)),
    p.and(b.afterValue),
  );
  // An unclosed string's text holds no delimiter (one there would have closed it).
  const unclosed = p.seq(ws, p.literal(m.string), textUntil(p.choice(b.textEnd, p.literal(m.string))));
  const strict = p.choice(wellFormed, singleQuoted, unclosed);
  // A bare value keeps line breaks after the colon (a document written bare starts with them); spaces are layout.
  // One that starts with the delimiter is a string, read above.
  const bare = p.seq(p.chars(" \\t", 0), p.not(p.literal(m.string)), textUntil(b.textEnd));
  return { strict, withBare: p.choice(strict, bare) };
}

/**
 * The repaired reading of one tool's argument object: tagged arguments (`tool-arg` nodes), `value` being the
 * format's own value rule, read where a well-formed value stands.
 *
 * @example
 * p.seq(name, repairedArguments(p, tool, p.ref("gemma4-value"), markers));
 */
export function repairedArguments(p: PegArena, tool: ToolDefinition, value: PegId, m: Gemma4Markers): PegId {
  const ws = p.space();
  const declared = schemaProperties(toolParameters(tool));
  const b = boundaries(
    p,
    m,
    declared.map(([k]) => k),
  );
  const v = values(p, value, m, b);
  const member = (key: PegId, val: PegId): PegId =>
    p.tag(NODE.toolArg, p.seq(p.atomic(p.seq(p.optional(p.literal(m.string)), key, ws, p.literal(":"))), val));
  const members = declared.map(([k, schema]) =>
    member(p.capture(NODE.argName, p.literal(k)), mayBeString(schema) ? v.withBare : v.strict),
  );
  // An undeclared argument has no schema to say it is no string.
  const undeclared = p.seq(
    declared.length > 0 ? p.not(p.seq(b.declaredKey, ws, p.literal(":"))) : p.eps(),
    p.choice(
      p.seq(p.literal(m.string), p.capture(NODE.argName, p.until(m.string)), p.literal(m.string)),
      p.capture(NODE.argName, p.chars(m.bareKeyChars, 1)),
    ),
  );
  members.push(member(undeclared, v.withBare));
  const one = p.choice(...members);
  const list = p.seq(one, p.zeroOrMore(p.seq(ws, p.literal(","), ws, one)), b.openEnd);
  return p.seq(p.chars("{(", 1, 1), ws, p.choice(list, b.closedEnd));
}
