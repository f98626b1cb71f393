/**
 * Regular expressions (JSON Schema `pattern`, ECMA-262 syntax) as plain data, over code points.
 */
import type { CodeRange } from "../char-set.js";

/** A parsed regex node; `type` is the discriminant. */
export type RegexNode =
  /** One code point from `ranges` (a literal, a class, `.`, `\d`...). */
  | { readonly type: "set"; readonly ranges: readonly CodeRange[] }
  /** Items in order (none: the empty string). */
  | { readonly type: "seq"; readonly items: readonly RegexNode[] }
  /** Any one of the items. */
  | { readonly type: "alt"; readonly items: readonly RegexNode[] }
  /** `item{min,max}` (`max` null: unbounded); laziness does not change the language. */
  | { readonly type: "repeat"; readonly item: RegexNode; readonly min: number; readonly max: number | null }
  /** A group; `index` is its capture number (null for `(?:...)`), `name` its capture name. */
  | { readonly type: "group"; readonly item: RegexNode; readonly index: number | null; readonly name: string | null }
  /** `^` (or Python's `\A`). */
  | { readonly type: "start" }
  /** `$` (or Python's `\Z`, `\z`). */
  | { readonly type: "end" }
  /** `(?=x)`, `(?!x)`, `(?<=x)`, `(?<!x)`. */
  | { readonly type: "look"; readonly ahead: boolean; readonly negated: boolean; readonly item: RegexNode }
  /** `\b` / `\B`. */
  | { readonly type: "wordBoundary"; readonly negated: boolean }
  /** `\1`, `\k<name>`, `(?P=name)`. */
  | { readonly type: "backref"; readonly group: number | string };

/**
 * A regex the parser could not read (bad syntax, or syntax we do not support).
 *
 * @example
 * try { parseRegex("("); } catch (e) { (e as RegexSyntaxError).offset; } // 0
 */
export class RegexSyntaxError extends SyntaxError {
  constructor(
    message: string,
    readonly pattern: string,
    readonly offset: number,
  ) {
    super(`regex ${JSON.stringify(pattern)} at offset ${offset}: ${message}`);
    this.name = "RegexSyntaxError";
  }
}
