/**
 * Accumulates GBNF rules with unique, valid names; identical rule bodies share one rule,
 * so converters can emit freely without bloating the grammar.
 */
import type { GbnfExpr } from "./gbnf-ast.js";
import { type GbnfPrintOptions, printExpr, printRule } from "./gbnf-print.js";

/**
 * Turns any text into a valid GBNF rule name (`[a-zA-Z0-9-]+`).
 *
 * @example
 * sanitizeRuleName("get_weather.args"); // "get-weather-args"
 */
export function sanitizeRuleName(hint: string): string {
  const name = String(hint)
    .replace(/[^a-zA-Z0-9-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "");
  return name === "" ? "r" : name;
}

/**
 * A rule name for a part of `parent`, kept readable: at most `max` characters, trimmed from
 * the left at a `-` boundary so the most specific part survives.
 *
 * @example
 * childRuleName("root-address", "zip_code"); // "root-address-zip-code"
 */
export function childRuleName(parent: string, child: string, max = 40): string {
  const name = sanitizeRuleName(`${parent}-${child}`);
  if (name.length <= max) return name;
  const tail = name.slice(name.length - max);
  const cut = tail.indexOf("-");
  return sanitizeRuleName(cut > 0 && cut < tail.length - 1 ? tail.slice(cut + 1) : tail);
}

/**
 * A set of named GBNF rules.
 *
 * @example
 * const b = new GbnfBuilder();
 * const digit = b.add("digit", cls([[0x30, 0x39]]));
 * b.define("root", plus(ref(digit)));
 * b.toString(); // 'root ::= digit+\ndigit ::= [0-9]'
 */
export class GbnfBuilder {
  private readonly bodies = new Map<string, GbnfExpr | null>();
  private readonly byBody = new Map<string, string>();

  /**
   * Adds a rule for `body` named after `nameHint`, or returns the name of an existing rule
   * with the identical body.
   */
  add(nameHint: string, body: GbnfExpr): string {
    // A rule that only names another rule is that rule.
    if (body.type === "ref" && this.bodies.has(body.name)) return body.name;
    const key = printExpr(body);
    const existing = this.byBody.get(key);
    if (existing !== undefined) return existing;
    const name = this.reserve(nameHint);
    this.define(name, body);
    return name;
  }

  /** Reserves a fresh rule name (for recursion); its body must be given later with {@link define}. */
  reserve(nameHint: string): string {
    const base = sanitizeRuleName(nameHint);
    let name = base;
    for (let i = 2; this.bodies.has(name); i++) name = `${base}-${i}`;
    this.bodies.set(name, null);
    return name;
  }

  /** Sets the body of `name` (reserved or new). Redefining a rule with a different body throws. */
  define(name: string, body: GbnfExpr): void {
    if (sanitizeRuleName(name) !== name)
      throw new RangeError(`GbnfBuilder.define: invalid rule name ${JSON.stringify(name)}`);
    const previous = this.bodies.get(name);
    const key = printExpr(body);
    if (previous) {
      if (printExpr(previous) !== key)
        throw new RangeError(`GbnfBuilder.define: rule ${name} is already defined differently`);
      return;
    }
    this.bodies.set(name, body);
    if (!this.byBody.has(key)) this.byBody.set(key, name);
  }

  /** Gives back a reserved name that was never defined (e.g. the rule turned out to match nothing). */
  release(name: string): void {
    if (this.bodies.get(name) === null) this.bodies.delete(name);
  }

  /** Whether a rule of that name exists (defined or reserved). */
  has(name: string): boolean {
    return this.bodies.has(name);
  }

  /** The body of a rule, or undefined when it is unknown or only reserved. */
  get(name: string): GbnfExpr | undefined {
    return this.bodies.get(name) ?? undefined;
  }

  /** All defined rules, in definition order. Throws if a reserved rule was never defined. */
  rules(): Map<string, GbnfExpr> {
    const out = new Map<string, GbnfExpr>();
    for (const [name, body] of this.bodies) {
      if (body === null) throw new RangeError(`GbnfBuilder: rule ${name} was reserved but never defined`);
      out.set(name, body);
    }
    return out;
  }

  /** The grammar text: `root` first (when present), then the other rules sorted by name. */
  toString(options: GbnfPrintOptions = {}): string {
    const rules = this.rules();
    const names = [...rules.keys()].sort((a, b) => (a === "root" ? -1 : b === "root" ? 1 : a < b ? -1 : a > b ? 1 : 0));
    return names.map((n) => printRule(n, rules.get(n)!, options)).join("\n") + "\n";
  }
}
