/**
 * Parser for ECMA-262 regular expressions as JSON Schema `pattern`s use them, read with
 * Unicode (code point) semantics. It also takes the Python spellings that real-world schemas
 * contain (`(?P<name>...)`, `(?P=name)`, `\A`, `\Z`), since those schemas are validated by
 * Python's `re` in practice. Inline flags like `(?i)` and `\p{...}` are reported as errors.
 */
import { type CodeRange, MAX_CODE_POINT, complementRanges, normalizeRanges } from "../char-set.js";
import { type RegexNode, RegexSyntaxError } from "./regex-ast.js";

/** `\d`. */
export const DIGIT: CodeRange[] = [[0x30, 0x39]];
/** `\w`. */
export const WORD: CodeRange[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
/** `\s` (ECMAScript WhiteSpace and LineTerminator). */
export const SPACE: CodeRange[] = normalizeRanges([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
/** `.`: anything but a line terminator. */
export const DOT: CodeRange[] = complementRanges([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
]);

const SYNTAX = new Set("^$\\.*+?()[]{}|/".split(""));

class RegexParser {
  private pos = 0;
  private groupCount = 0;

  constructor(private readonly src: string) {}

  private fail(msg: string, at = this.pos): never {
    throw new RegexSyntaxError(msg, this.src, at);
  }

  private peek(k = 0): string | undefined {
    return this.src[this.pos + k];
  }

  parse(): RegexNode {
    const node = this.alternation();
    if (this.pos < this.src.length) this.fail(`unexpected ${JSON.stringify(this.peek())}`);
    return node;
  }

  private alternation(): RegexNode {
    const items = [this.sequence()];
    while (this.peek() === "|") {
      this.pos++;
      items.push(this.sequence());
    }
    return items.length === 1 ? items[0]! : { type: "alt", items };
  }

  private sequence(): RegexNode {
    const items: RegexNode[] = [];
    while (this.pos < this.src.length && this.peek() !== "|" && this.peek() !== ")") {
      const atomStart = this.pos;
      let atom = this.atom();
      for (;;) {
        const q = this.quantifier();
        if (!q) break;
        if (atom.type === "start" || atom.type === "end" || atom.type === "wordBoundary" || atom.type === "look") {
          // A quantified assertion is legal in Annex B; {0,..} makes it optional, which we drop.
          if (q.min === 0) atom = { type: "seq", items: [] };
          continue;
        }
        if (atom.type === "repeat" && this.src[atomStart] !== "(") {
          this.fail("nothing to repeat");
        }
        atom = { type: "repeat", item: atom, min: q.min, max: q.max };
      }
      items.push(atom);
    }
    return items.length === 1 ? items[0]! : { type: "seq", items };
  }

  /** Reads `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` (and a lazy `?` after it); null if none. */
  private quantifier(): { min: number; max: number | null } | null {
    const c = this.peek();
    let q: { min: number; max: number | null } | null = null;
    if (c === "*") q = { min: 0, max: null };
    else if (c === "+") q = { min: 1, max: null };
    else if (c === "?") q = { min: 0, max: 1 };
    if (q) {
      this.pos++;
    } else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos));
      if (!m) return null; // Annex B: a lone `{` is a literal
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === "" ? null : Number(m[3]);
      if (max !== null && max < min) this.fail("numbers out of order in {} quantifier");
      this.pos += m[0].length;
      q = { min, max };
    } else {
      return null;
    }
    if (this.peek() === "?" || this.peek() === "+") this.pos++; // lazy (JS) or possessive (Python 3.11+)
    return q;
  }

  private atom(): RegexNode {
    const c = this.peek()!;
    const at = this.pos;
    switch (c) {
      case "^":
        this.pos++;
        return { type: "start" };
      case "$":
        this.pos++;
        return { type: "end" };
      case ".":
        this.pos++;
        return { type: "set", ranges: DOT };
      case "(":
        return this.group();
      case "[":
        return { type: "set", ranges: this.charClass() };
      case "\\":
        return this.escapeAtom();
      case "*":
      case "+":
      case "?":
        return this.fail("nothing to repeat", at);
      case ")":
        return this.fail("unmatched )", at);
      case "{": {
        if (/^\{\d+(,\d*)?\}/.test(this.src.slice(this.pos))) this.fail("nothing to repeat", at);
        this.pos++;
        return literal(0x7b);
      }
      default: {
        const cp = this.src.codePointAt(this.pos)!;
        this.pos += cp > 0xffff ? 2 : 1;
        return literal(cp);
      }
    }
  }

  private group(): RegexNode {
    const open = this.pos;
    this.pos++;
    let index: number | null = null;
    let name: string | null = null;
    let look: { ahead: boolean; negated: boolean } | null = null;
    if (this.peek() === "?") {
      const rest = this.src.slice(this.pos + 1);
      if (rest.startsWith(":")) this.pos += 2;
      else if (rest.startsWith("=")) (look = { ahead: true, negated: false }), (this.pos += 2);
      else if (rest.startsWith("!")) (look = { ahead: true, negated: true }), (this.pos += 2);
      else if (rest.startsWith("<=")) (look = { ahead: false, negated: false }), (this.pos += 3);
      else if (rest.startsWith("<!")) (look = { ahead: false, negated: true }), (this.pos += 3);
      else if (rest.startsWith("P=")) {
        const m = /^P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest);
        if (!m) this.fail("bad (?P=name) back-reference");
        this.pos += 1 + m[0].length;
        return { type: "backref", group: m[1]! };
      } else {
        const m = /^P?<([A-Za-z_$][A-Za-z0-9_$]*)>/.exec(rest);
        if (!m) this.fail(`unsupported group syntax (?${rest.slice(0, 3)}`, open);
        name = m[1]!;
        this.pos += 1 + m[0].length;
        index = ++this.groupCount;
      }
    } else {
      index = ++this.groupCount;
    }
    const item = this.alternation();
    if (this.peek() !== ")") this.fail("unterminated group", open);
    this.pos++;
    if (look) return { type: "look", ahead: look.ahead, negated: look.negated, item };
    return { type: "group", item, index, name };
  }

  private escapeAtom(): RegexNode {
    const at = this.pos;
    const e = this.peek(1);
    if (e === undefined) this.fail("\\ at end of pattern");
    switch (e) {
      case "b":
      case "B":
        this.pos += 2;
        return { type: "wordBoundary", negated: e === "B" };
      case "A":
        this.pos += 2;
        return { type: "start" };
      case "Z":
      case "z":
        this.pos += 2;
        return { type: "end" };
      case "k": {
        const m = /^\\k<([A-Za-z_$][A-Za-z0-9_$]*)>/.exec(this.src.slice(this.pos));
        if (!m) break;
        this.pos += m[0].length;
        return { type: "backref", group: m[1]! };
      }
      default:
        if (e >= "1" && e <= "9") {
          const m = /^\\(\d+)/.exec(this.src.slice(this.pos))!;
          this.pos += m[0].length;
          return { type: "backref", group: Number(m[1]) };
        }
    }
    this.pos = at;
    return { type: "set", ranges: this.classEscape(false) };
  }

  /** An escape inside or outside a class; returns its code-point set. */
  private classEscape(inClass: boolean): CodeRange[] {
    const at = this.pos;
    this.pos++; // backslash
    const e = this.peek();
    if (e === undefined) this.fail("\\ at end of pattern", at);
    this.pos++;
    switch (e) {
      case "d":
        return DIGIT;
      case "D":
        return complementRanges(DIGIT);
      case "w":
        return WORD;
      case "W":
        return complementRanges(WORD);
      case "s":
        return SPACE;
      case "S":
        return complementRanges(SPACE);
      case "t":
        return one(9);
      case "n":
        return one(10);
      case "v":
        return one(11);
      case "f":
        return one(12);
      case "r":
        return one(13);
      case "0":
        return one(0);
      case "b":
        if (inClass) return one(8);
        break;
      case "c": {
        const l = this.peek();
        if (l !== undefined && /[A-Za-z]/.test(l)) {
          this.pos++;
          return one(l.charCodeAt(0) % 32);
        }
        return one(0x5c);
      }
      case "x": {
        const m = /^[0-9a-fA-F]{2}/.exec(this.src.slice(this.pos));
        if (!m) return one(0x78);
        this.pos += 2;
        return one(parseInt(m[0], 16));
      }
      case "u": {
        const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(this.src.slice(this.pos));
        if (braced) {
          const cp = parseInt(braced[1]!, 16);
          if (cp > MAX_CODE_POINT) this.fail("code point out of range", at);
          this.pos += braced[0].length;
          return one(cp);
        }
        const m = /^[0-9a-fA-F]{4}/.exec(this.src.slice(this.pos));
        if (!m) return one(0x75);
        this.pos += 4;
        let cp = parseInt(m[0], 16);
        // A surrogate pair written as two escapes is one code point.
        const low = /^\\u([dD][c-fC-F][0-9a-fA-F]{2})/.exec(this.src.slice(this.pos));
        if (cp >= 0xd800 && cp <= 0xdbff && low) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (parseInt(low[1]!, 16) - 0xdc00);
          this.pos += 6;
        }
        return one(cp);
      }
      case "p":
      case "P":
        return this.fail(`unicode property escapes (\\${e}{...}) are not supported`, at);
      default:
        break;
    }
    // Identity escape (Annex B allows any non-word character, and most letters).
    const cp = this.src.codePointAt(this.pos - 1)!;
    if (cp > 0xffff) this.pos++;
    return one(cp);
  }

  private charClass(): CodeRange[] {
    const open = this.pos;
    this.pos++;
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.pos++;
    }
    // Collected, then normalised once: a class of 100,000 items must not re-sort per item.
    const ranges: CodeRange[] = [];
    const add = (r: readonly CodeRange[]): void => {
      for (const x of r) ranges.push(x);
    };
    const atom = (): CodeRange[] => {
      if (this.peek() === "\\") return this.classEscape(true);
      const cp = this.src.codePointAt(this.pos)!;
      this.pos += cp > 0xffff ? 2 : 1;
      return one(cp);
    };
    while (this.peek() !== "]") {
      if (this.peek() === undefined) this.fail("unterminated character class", open);
      // POSIX classes like [:alpha:] are not ECMAScript; they read as their characters, as JS does.
      const lo = atom();
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        const dashAt = this.pos;
        this.pos++;
        const hi = atom();
        const single = (r: CodeRange[]): number | null => (r.length === 1 && r[0]![0] === r[0]![1] ? r[0]![0] : null);
        const a = single(lo);
        const b = single(hi);
        if (a === null || b === null) {
          // Annex B: a class escape on either side makes the dash literal.
          add(lo);
          add(hi);
          add(one(0x2d));
          continue;
        }
        if (a > b) this.fail("range out of order in character class", dashAt);
        ranges.push([a, b]);
        continue;
      }
      add(lo);
    }
    this.pos++;
    return negated ? complementRanges(ranges) : normalizeRanges(ranges);
  }
}

function one(cp: number): CodeRange[] {
  return [[cp, cp]];
}

function literal(cp: number): RegexNode {
  return { type: "set", ranges: one(cp) };
}

/**
 * Parses a regex into a {@link RegexNode}. Throws {@link RegexSyntaxError}.
 *
 * @example
 * parseRegex("^[a-z]+$");
 * // { type: "seq", items: [{ type: "start" }, { type: "repeat", ... }, { type: "end" }] }
 */
export function parseRegex(pattern: string): RegexNode {
  if (typeof pattern !== "string")
    throw new TypeError(`parseRegex(pattern): pattern must be a string, got ${typeof pattern}`);
  return new RegexParser(pattern).parse();
}

/** Characters with syntactic meaning outside classes (for callers that escape literals). */
export const REGEX_SYNTAX_CHARS: ReadonlySet<string> = SYNTAX;
