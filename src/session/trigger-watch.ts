/**
 * Where a lazy grammar starts in a generation's output, found as the runtime finds it: the first
 * trigger token generated, or the first trigger pattern (in the order given) that matches the
 * output so far, from its first capture group that matched something on, where it has one. The
 * session streams the calls from there on as they are written (`streamCalls`): the grammar makes
 * the model finish each of them.
 */
import type { GrammarOptions } from "../runtime/sampling.js";

const ANY_PREFIX = "^[\\s\\S]*?";
const ANY_LAZY = "[\\s\\S]*?";
const ANY_SUFFIX = "[\\s\\S]*";
const REGEX_SPECIAL = ".^$|()*+?[]{}\\";
/** The longest match of a trigger that is not one literal, as the runtime allows across tokens. */
const MAX_TRIGGER_MATCH = 4096;

/**
 * A trigger pattern. Those of the shape `^[\s\S]*?CORE[\s\S]*` (every lazy chat grammar's) are
 * searched by CORE alone, and only where a match can end in the text a token added: the whole
 * pattern, run again over all the output at every token, made a long generation quadratic.
 */
interface Trigger {
  whole: RegExp;
  core?: RegExp;
  /** CORE is one literal group. */
  literal?: string;
  /** A literal that must come first: `GUARD[\s\S]*?CORE`. */
  guard?: string;
  /** Where the guard ends in the output, once found. */
  guardEnd?: number;
}

/** Watches a generation's tokens for the point its lazy grammar takes over. */
export class TriggerWatch {
  private readonly triggers: Trigger[];
  private readonly tokens: ReadonlySet<number>;
  private text = "";
  private found = false;

  /** `lazy`: the grammar's triggers (patterns the runtime accepts; one JS does not read is never matched). */
  constructor(lazy: NonNullable<GrammarOptions["lazy"]>) {
    this.triggers = (lazy.patterns ?? []).flatMap((p) => {
      try {
        return [triggerOf(p)];
      } catch {
        return [];
      }
    });
    this.tokens = new Set(lazy.tokens ?? []);
  }

  /**
   * Takes the next token and its text; returns the offset in the output so far (this token's text
   * included) where the grammar starts, the first time it does, else null.
   */
  push(token: number, text: string): number | null {
    if (this.found) return null;
    const before = this.text.length;
    this.text += text;
    if (this.tokens.has(token)) return this.fire(before);
    for (const t of this.triggers) {
      const at =
        t.core === undefined && t.literal === undefined ? matchStart(t.whole, this.text, 0) : this.search(t, before);
      if (at !== null) return this.fire(at);
    }
    return null;
  }

  /** A match of an anywhere pattern's CORE that ends in the text added at `appendedAt`. */
  private search(t: Trigger, appendedAt: number): number | null {
    let from = 0;
    if (t.guard !== undefined) {
      if (t.guardEnd === undefined) {
        const at = this.text.indexOf(t.guard, Math.max(0, appendedAt - t.guard.length + 1));
        if (at < 0) return null;
        t.guardEnd = at + t.guard.length;
      }
      from = t.guardEnd;
    }
    const reach = t.literal === undefined ? MAX_TRIGGER_MATCH : Math.max(0, t.literal.length - 1);
    from = Math.max(from, appendedAt - reach);
    if (t.literal !== undefined) {
      const at = this.text.indexOf(t.literal, from);
      return at < 0 ? null : at;
    }
    return matchStart(t.core!, this.text, from);
  }

  private fire(at: number): number {
    this.found = true;
    return at;
  }
}

/** The first capture group that matched something, else the whole match, from `from` on; null if none. */
function matchStart(regex: RegExp, text: string, from: number): number | null {
  regex.lastIndex = from;
  const m = regex.exec(text);
  if (m?.indices === undefined) return null;
  for (let i = 1; i < m.length; i++) {
    const span = m.indices[i];
    if (span !== undefined && span[1] > span[0]) return span[0];
  }
  return m.indices[0]![0];
}

/** Compiles a pattern (throws SyntaxError when JS cannot read it), recognising the anywhere shape. */
function triggerOf(source: string): Trigger {
  const whole = new RegExp(source, "dg");
  let middle = source.startsWith(ANY_PREFIX)
    ? source.slice(ANY_PREFIX.length)
    : source.startsWith(ANY_LAZY)
      ? source.slice(ANY_LAZY.length)
      : null;
  if (middle === null) return { whole };
  if (middle.endsWith("$") && !middle.endsWith("\\$")) middle = middle.slice(0, -1);
  if (!middle.endsWith(ANY_SUFFIX)) return { whole };
  middle = middle.slice(0, -ANY_SUFFIX.length);
  const trigger: Trigger = { whole };
  const lazy = middle.indexOf(ANY_LAZY);
  const guard = lazy > 0 ? unescapeLiteral(middle.slice(0, lazy)) : null;
  if (guard !== null) {
    trigger.guard = guard;
    middle = middle.slice(lazy + ANY_LAZY.length);
  }
  if (middle === "" || hasAnchor(middle)) return { whole };
  const literal = middle.startsWith("(") && middle.endsWith(")") && middle[1] !== "?" ? middle.slice(1, -1) : null;
  const text = literal === null ? null : unescapeLiteral(literal);
  if (text !== null) trigger.literal = text;
  else trigger.core = new RegExp(middle, "dg");
  return trigger;
}

/**
 * The text an escaped literal stands for, or null when `regex` is not a plain (escaped) literal. A backslash before
 * any ASCII character but a letter or digit stands for that character, as in the runtime: the chat layer escapes
 * "/" and "-" too, so its `<\/think>` guard is a literal.
 */
function unescapeLiteral(regex: string): string | null {
  let out = "";
  for (let i = 0; i < regex.length; i++) {
    const c = regex[i]!;
    if (c === "\\") {
      const next = regex[i + 1];
      if (next === undefined || next > "\x7f" || /[A-Za-z0-9]/.test(next)) return null;
      out += next;
      i++;
    } else if (REGEX_SPECIAL.includes(c)) {
      return null;
    } else {
      out += c;
    }
  }
  return out;
}

/** Does the pattern hold an unescaped `^` or `$`? */
function hasAnchor(regex: string): boolean {
  for (let i = 0; i < regex.length; i++) {
    if (regex[i] === "\\") i++;
    else if (regex[i] === "^" || regex[i] === "$") return true;
  }
  return false;
}
