/**
 * The shortest text a GBNF grammar accepts: what the least output under it costs (the session
 * reserves room for the shortest required call). Each rule's least length is found by a fixed
 * point over the AST, then one shortest text is built from the alternatives that reach it.
 */
import { type CodeRange, complementRanges } from "./char-set.js";
import type { GbnfExpr } from "./gbnf-ast.js";
import { type GbnfGrammar, parseGbnf } from "./gbnf-parse.js";

/**
 * The least cost of an expression: its length in code points, then the depth of rule references
 * its derivation needs. Depth breaks ties, so the chosen derivation never goes round a cycle of
 * rules and building it ends.
 */
interface Cost {
  readonly length: number;
  readonly depth: number;
}

const NEVER: Cost = { length: Infinity, depth: Infinity };
const FREE: Cost = { length: 0, depth: 0 };

/** A cost that cannot be met is NEVER, whatever depth it came with. */
const finite = (c: Cost): Cost => (c.length === Infinity ? NEVER : c);
const less = (a: Cost, b: Cost): boolean => a.length < b.length || (a.length === b.length && a.depth < b.depth);

/** One code point of a class: the first printable one (from space on), else the first; null when empty. */
function classPoint(ranges: readonly CodeRange[], negated: boolean): number | null {
  const set = negated ? complementRanges(ranges) : ranges;
  for (const [lo, hi] of set) if (hi >= 0x20) return Math.max(lo, 0x20);
  return set[0]?.[0] ?? null;
}

/** A token element's text when it has one to write (`<text>`); an id or a negated token has none. */
const tokenText = (e: Extract<GbnfExpr, { type: "token" }>): string | null => (e.negated ? null : e.text);

class Shortest {
  readonly #rules: ReadonlyMap<string, GbnfExpr>;
  readonly #costs = new Map<string, Cost>();

  constructor(grammar: GbnfGrammar) {
    this.#rules = grammar.rules;
    for (const name of this.#rules.keys()) this.#costs.set(name, NEVER);
    // Relax until nothing improves: at most one pass per rule on a derivation's longest chain.
    for (let changed = true; changed; ) {
      changed = false;
      for (const [name, expr] of this.#rules) {
        const c = finite(this.cost(expr));
        if (less(c, this.#costs.get(name)!)) {
          this.#costs.set(name, c);
          changed = true;
        }
      }
    }
  }

  cost(e: GbnfExpr): Cost {
    switch (e.type) {
      case "literal":
        return { length: [...e.text].length, depth: 0 };
      case "class":
        return classPoint(e.ranges, e.negated) === null ? NEVER : { length: 1, depth: 0 };
      case "any":
        return { length: 1, depth: 0 };
      case "token": {
        const text = tokenText(e);
        return text === null ? NEVER : { length: [...text].length, depth: 0 };
      }
      case "ref": {
        const c = this.#costs.get(e.name) ?? NEVER;
        return { length: c.length, depth: c.depth + 1 };
      }
      case "sequence":
        return e.items.reduce<Cost>((sum, item) => {
          const c = this.cost(item);
          return { length: sum.length + c.length, depth: Math.max(sum.depth, c.depth) };
        }, FREE);
      case "choice":
        return e.items.reduce<Cost>((best, item) => {
          const c = this.cost(item);
          return less(c, best) ? c : best;
        }, NEVER);
      case "repeat": {
        if (e.min === 0) return FREE;
        const c = this.cost(e.item);
        return { length: c.length * e.min, depth: c.depth };
      }
    }
  }

  /** One shortest text of `e` (its cost must be finite). */
  build(e: GbnfExpr, out: string[]): void {
    switch (e.type) {
      case "literal":
        out.push(e.text);
        return;
      case "class":
        out.push(String.fromCodePoint(classPoint(e.ranges, e.negated)!));
        return;
      case "any":
        out.push("a");
        return;
      case "token":
        out.push(tokenText(e)!);
        return;
      case "ref":
        this.build(this.#rules.get(e.name)!, out);
        return;
      case "sequence":
        for (const item of e.items) this.build(item, out);
        return;
      case "choice": {
        let best = e.items[0]!;
        for (const item of e.items) if (less(this.cost(item), this.cost(best))) best = item;
        this.build(best, out);
        return;
      }
      case "repeat":
        for (let i = 0; i < e.min; i++) this.build(e.item, out);
        return;
    }
  }
}

/**
 * One shortest text a grammar accepts from `root` (fewest code points; ties go to the first
 * alternative), or null when it accepts none it can write (only token ids, or empty classes).
 * A class contributes its first printable code point, `.` an "a".
 *
 * @example
 * shortestGbnfText('root ::= "{" ws "}" | "null"\nws ::= [ \\t]*'); // "{}"
 */
export function shortestGbnfText(grammar: string | GbnfGrammar, root = "root"): string | null {
  const parsed = typeof grammar === "string" ? parseGbnf(grammar) : grammar;
  const start = parsed.rules.get(root);
  if (start === undefined) throw new RangeError(`shortestGbnfText: the grammar has no rule ${JSON.stringify(root)}`);
  const shortest = new Shortest(parsed);
  if (shortest.cost(start).length === Infinity) return null;
  const out: string[] = [];
  shortest.build(start, out);
  return out.join("");
}
