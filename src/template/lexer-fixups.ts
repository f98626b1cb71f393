/**
 * Adjustments around @huggingface/jinja's lexer so it reads what Python Jinja2 reads:
 * string-literal escapes decoded like Python's `unicode-escape` (unknown escapes such as `\\d`
 * stay as written instead of failing), and tests with arguments (`x is divisibleby(3)`).
 *
 * @example
 * tokenize(normalizeEscapes("{{ '\\d+' }}"));
 */

const NEEDS_REWRITE = /\\[^ntrbfv'"\\xu]/;
const KNOWN_ESCAPES = new Set(["n", "t", "r", "b", "f", "v", "'", '"', "\\", "x", "u"]);

function hexEscape(cp: number): string {
  if (cp <= 0xffff) return "\\u" + cp.toString(16).padStart(4, "0");
  const v = cp - 0x10000;
  return hexEscape(0xd800 + (v >> 10)) + hexEscape(0xdc00 + (v & 0x3ff));
}

/** Rewrites one escape at `s[i] === "\\"` inside a string literal; returns [replacement, length]. */
function rewriteEscape(s: string, i: number): [string, number] {
  const c = s[i + 1];
  if (c === undefined) return ["\\", 1];
  if (c === "\n") return ["", 2]; // backslash-newline continues the line
  if (c === "a") return ["\\x07", 2];
  const oct = /^[0-7]{1,3}/.exec(s.slice(i + 1, i + 4));
  if (oct) return [hexEscape(parseInt(oct[0], 8)), 1 + oct[0].length];
  if (c === "U" && /^[0-9a-fA-F]{8}$/.test(s.slice(i + 2, i + 10)))
    return [hexEscape(parseInt(s.slice(i + 2, i + 10), 16)), 10];
  if (c === "N") return [s.slice(i, i + 2), 2]; // \N{NAME}: unsupported, the lexer reports it
  if (KNOWN_ESCAPES.has(c)) return [s.slice(i, i + 2), 2];
  return ["\\\\" + c, 2]; // unknown escape: Python keeps the backslash
}

/**
 * Normalizes escapes in string literals inside `{{ }}` and `{% %}` (text and comments untouched),
 * tracking braces the way the lexer does so `}}` inside a dict literal does not end the tag.
 */
export function normalizeEscapes(src: string): string {
  // Fast path: every backslash is followed by an escape the lexer already decodes like Python.
  if (!NEEDS_REWRITE.test(src)) return src;
  let out = "";
  let i = 0;
  while (i < src.length) {
    const open = src.slice(i, i + 2);
    if (open === "{#") {
      const end = src.indexOf("#}", i + 2);
      const stop = end < 0 ? src.length : end + 2;
      out += src.slice(i, stop);
      i = stop;
      continue;
    }
    if (open !== "{{" && open !== "{%") {
      out += src[i++];
      continue;
    }
    const close = open === "{{" ? "}}" : "%}";
    out += open;
    i += 2;
    let depth = 0;
    while (i < src.length) {
      const ch = src[i]!;
      if (ch === "'" || ch === '"') {
        out += ch;
        i++;
        while (i < src.length && src[i] !== ch) {
          if (src[i] === "\\") {
            const [rep, len] = rewriteEscape(src, i);
            out += rep;
            i += len;
          } else out += src[i++];
        }
        if (i < src.length) out += src[i++];
        continue;
      }
      if (ch === "{") depth++;
      else if (ch === "}" && depth > 0) {
        depth--;
        out += ch;
        i++;
        continue;
      }
      if (depth === 0 && src.startsWith(close, i)) {
        out += close;
        i += close.length;
        break;
      }
      out += ch;
      i++;
    }
  }
  return out;
}

export interface Token {
  value: string;
  type: string;
}

/** Filter names standing in for tests that take arguments (see rewriteTestArguments). */
export const TEST_FILTER = "__jinja_test__";
export const NEGATED_TEST_FILTER = "__jinja_test_not__";

const ARG_START = new Set([
  "Identifier",
  "StringLiteral",
  "NumericLiteral",
  "OpenParen",
  "OpenSquareBracket",
  "OpenCurlyBracket",
]);
const OPENERS: Record<string, string> = {
  OpenParen: "CloseParen",
  OpenSquareBracket: "CloseSquareBracket",
  OpenCurlyBracket: "CloseCurlyBracket",
};

/** Index just past the bracket group opening at `i`. */
function skipGroup(tokens: Token[], i: number): number {
  let depth = 0;
  for (let k = i; k < tokens.length; k++) {
    const t = tokens[k]!.type;
    if (t in OPENERS) depth++;
    else if (t === "CloseParen" || t === "CloseSquareBracket" || t === "CloseCurlyBracket") {
      depth--;
      if (depth === 0) return k + 1;
    }
  }
  throw new Error("unbalanced brackets in a test's arguments");
}

/**
 * The parser only knows argument-less tests (`x is string`). Jinja2 also has tests with
 * arguments: `x is divisibleby(3)`, `x is sameas false`, `x is in seq`. Those are rewritten to a
 * filter call (`x|__jinja_test__('divisibleby', 3)`), which binds to the same operand, and the
 * evaluator runs the test. Argument rules follow Jinja2's parser: a parenthesized list, or one
 * primary expression with its postfixes unless the next word is `else`, `or` or `and`.
 */
export function rewriteTestArguments(tokens: Token[]): Token[] {
  const hasTestArgs = tokens.some(
    (t, i) =>
      t.type === "Identifier" &&
      t.value === "is" &&
      ARG_START.has(tokens[i + (tokens[i + 1]?.value === "not" ? 3 : 2)]?.type ?? ""),
  );
  if (!hasTestArgs) return tokens;
  const out: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    if (!(tok.type === "Identifier" && tok.value === "is")) {
      out.push(tok);
      continue;
    }
    let j = i + 1;
    const negated = tokens[j]?.type === "Identifier" && tokens[j]!.value === "not";
    if (negated) j++;
    const name = tokens[j];
    const next = tokens[j + 1];
    if (name?.type !== "Identifier" || !next || !ARG_START.has(next.type)) {
      out.push(tok);
      continue;
    }
    if (next.type === "Identifier" && (next.value === "else" || next.value === "or" || next.value === "and")) {
      out.push(tok);
      continue;
    }
    let args: Token[];
    let end: number;
    if (next.type === "OpenParen") {
      end = skipGroup(tokens, j + 1);
      args = tokens.slice(j + 2, end - 1);
    } else {
      let k = j + 1;
      if (tokens[k]!.type in OPENERS) k = skipGroup(tokens, k);
      else {
        k++;
        while (tokens[k - 1]!.type === "StringLiteral" && tokens[k]?.type === "StringLiteral") k++;
      }
      for (;;) {
        const t = tokens[k]?.type;
        if (t === "Dot") k += 2;
        else if (t === "OpenSquareBracket" || t === "OpenParen") k = skipGroup(tokens, k);
        else break;
      }
      args = tokens.slice(j + 1, k);
      end = k;
    }
    out.push(
      { value: "|", type: "Pipe" },
      { value: negated ? NEGATED_TEST_FILTER : TEST_FILTER, type: "Identifier" },
      { value: "(", type: "OpenParen" },
      { value: name.value, type: "StringLiteral" },
    );
    if (args.length > 0) out.push({ value: ",", type: "Comma" }, ...args);
    out.push({ value: ")", type: "CloseParen" });
    i = end - 1;
  }
  return out;
}
