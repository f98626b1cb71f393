/**
 * Printing GBNF expressions and rules in the dialect llama.cpp's grammar parser accepts:
 * escapes limited to `\x \u \U \t \r \n \\ \" \[ \] \-`, rule names `[a-zA-Z0-9-]+`,
 * and a newline only after `|` or inside parentheses.
 */
import { type CodeRange, complementRanges, normalizeRanges } from "./char-set.js";
import type { GbnfExpr } from "./gbnf-ast.js";

/**
 * How GBNF is printed: the options {@link jsonSchemaToGbnf} takes besides the conversion's own.
 *
 * @example
 * import { jsonSchemaToGbnf, type GbnfPrintOptions } from "toolwright/grammar";
 * const print: GbnfPrintOptions = { ascii: true, wrapAt: 0 };
 * jsonSchemaToGbnf({ const: "café" }, print); // the é written as \u00E9
 */
export interface GbnfPrintOptions {
  /** Escape every non-ASCII code point as `\uXXXX` / `\UXXXXXXXX` (default false: printable ones stay raw). */
  ascii?: boolean;
  /** Break a rule with several top-level alternatives over lines once it is longer than this (default 120; 0 never). */
  wrapAt?: number;
}

function hex(cp: number, width: number): string {
  return cp.toString(16).toUpperCase().padStart(width, "0");
}

/** Whether a non-ASCII code point is unsafe to print raw (controls, surrogates, separators, BOM, noncharacters). */
function needsUnicodeEscape(cp: number): boolean {
  return (
    (cp >= 0x80 && cp <= 0x9f) ||
    (cp >= 0xd800 && cp <= 0xdfff) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0xfeff ||
    (cp >= 0xfdd0 && cp <= 0xfdef) ||
    (cp & 0xfffe) === 0xfffe
  );
}

function escapeCodePoint(cp: number, ascii: boolean, special: ReadonlySet<number>): string {
  if (special.has(cp)) return "\\" + String.fromCodePoint(cp);
  if (cp === 0x0a) return "\\n";
  if (cp === 0x0d) return "\\r";
  if (cp === 0x09) return "\\t";
  if (cp < 0x20 || cp === 0x7f) return "\\x" + hex(cp, 2);
  if (cp < 0x80) return String.fromCharCode(cp);
  if (ascii || needsUnicodeEscape(cp)) return cp > 0xffff ? "\\U" + hex(cp, 8) : "\\u" + hex(cp, 4);
  return String.fromCodePoint(cp);
}

const LITERAL_SPECIAL = new Set([0x22, 0x5c]); // " \
const CLASS_SPECIAL = new Set([0x5c, 0x5b, 0x5d, 0x2d]); // \ [ ] -

/** Iterates code points of a string, keeping lone surrogates (which `for..of` also yields). */
function* cps(text: string): Generator<number> {
  for (const ch of text) yield ch.codePointAt(0)!;
}

/**
 * A GBNF string literal for `text`, quotes included.
 *
 * @example
 * escapeLiteral('say "hi"\n'); // "\"say \\\"hi\\\"\\n\""
 */
export function escapeLiteral(text: string, options: GbnfPrintOptions = {}): string {
  let out = '"';
  for (const cp of cps(text)) out += escapeCodePoint(cp, options.ascii ?? false, LITERAL_SPECIAL);
  return out + '"';
}

/**
 * A GBNF character class for `ranges`, brackets included.
 *
 * @example
 * escapeClass([[0x30, 0x39], [0x2d, 0x2d]], false); // "[\\-0-9]"
 */
export function escapeClass(ranges: readonly CodeRange[], negated: boolean, options: GbnfPrintOptions = {}): string {
  const ascii = options.ascii ?? false;
  let body = "";
  const one = (cp: number): string => {
    // A leading ^ would read as negation.
    if (cp === 0x5e && body === "") return "\\x5E";
    return escapeCodePoint(cp, ascii, CLASS_SPECIAL);
  };
  for (const [lo, hi] of ranges) {
    if (lo === hi) body += one(lo);
    else if (hi === lo + 1) body += one(lo) + one(hi);
    else body += one(lo) + "-" + one(hi);
  }
  return "[" + (negated ? "^" : "") + body + "]";
}

/** Prints a class or its complement, whichever needs fewer ranges (same language). */
function compactClass(ranges: readonly CodeRange[], negated: boolean, options: GbnfPrintOptions): string {
  const norm = normalizeRanges(ranges);
  const other = complementRanges(norm);
  if (other.length > 0 && other.length < norm.length) return escapeClass(other, !negated, options);
  return escapeClass(ranges, negated, options);
}

const PREC_CHOICE = 0;
const PREC_SEQUENCE = 1;
const PREC_POSTFIX = 2;

function printAt(e: GbnfExpr, prec: number, options: GbnfPrintOptions): string {
  switch (e.type) {
    case "literal":
      return escapeLiteral(e.text, options);
    case "class":
      // llama.cpp reads `[]` and `[^]` as the empty string, so never print them.
      if (e.ranges.length === 0) {
        if (e.negated) return ".";
        throw new RangeError("printExpr: an empty character class matches nothing and has no GBNF spelling");
      }
      return compactClass(e.ranges, e.negated, options);
    case "any":
      return ".";
    case "ref":
      return e.name;
    case "token": {
      const body = e.id !== null ? `<[${e.id}]>` : `<${e.text ?? ""}>`;
      return (e.negated ? "!" : "") + body;
    }
    case "sequence": {
      if (e.items.length === 0) return '""';
      const s = e.items.map((x) => printAt(x, PREC_POSTFIX, options)).join(" ");
      return prec > PREC_SEQUENCE && e.items.length > 1 ? `(${s})` : s;
    }
    case "choice": {
      const s = e.items.map((x) => printAt(x, PREC_SEQUENCE, options)).join(" | ");
      return prec > PREC_CHOICE ? `(${s})` : s;
    }
    case "repeat": {
      const inner = e.item;
      const needsParens =
        inner.type === "repeat" || inner.type === "choice" || (inner.type === "sequence" && inner.items.length !== 1);
      const base = needsParens ? `(${printAt(inner, PREC_CHOICE, options)})` : printAt(inner, PREC_POSTFIX, options);
      return base + repeatSuffix(e.min, e.max);
    }
  }
}

function repeatSuffix(min: number, max: number | null): string {
  if (min === 0 && max === 1) return "?";
  if (min === 0 && max === null) return "*";
  if (min === 1 && max === null) return "+";
  if (max === null) return `{${min},}`;
  if (min === max) return `{${min}}`;
  return `{${min},${max}}`;
}

/**
 * Prints an expression as a GBNF rule body.
 *
 * @example
 * printExpr(seq(lit("a"), star(ref("b")))); // "\"a\" b*"
 */
export function printExpr(e: GbnfExpr, options: GbnfPrintOptions = {}): string {
  return printAt(e, PREC_CHOICE, options);
}

/**
 * Prints `name ::= body`, breaking long top-level alternations after each `|`.
 *
 * @example
 * printRule("root", alt(lit("a"), lit("b"))); // 'root ::= "a" | "b"'
 */
export function printRule(name: string, body: GbnfExpr, options: GbnfPrintOptions = {}): string {
  const flat = `${name} ::= ${printExpr(body, options)}`;
  const wrapAt = options.wrapAt ?? 120;
  if (wrapAt <= 0 || flat.length <= wrapAt || body.type !== "choice") return flat;
  const alts = body.items.map((x) => "    " + printAt(x, PREC_SEQUENCE, options));
  return `${name} ::=\n${alts.join(" |\n")}`;
}
