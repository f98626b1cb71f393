/**
 * Flattens a parsed GBNF grammar into llama.cpp's element layout: each rule is a run of
 * elements (chars, classes, refs) with ALT between alternatives and END after the last;
 * groups and repetitions become helper rules rewritten the way llama.cpp rewrites them.
 * Keeping the same layout makes our matcher behave (and blow up) exactly where llama.cpp would.
 */
import type { GbnfExpr } from "./gbnf-ast.js";
import { type GbnfGrammar, GbnfSyntaxError, parseGbnf } from "./gbnf-parse.js";

/** Element kinds of the flat layout. */
export enum El {
  End = 0,
  Alt = 1,
  RuleRef = 2,
  Char = 3,
  CharNot = 4,
  CharRangeUpper = 5,
  CharAlt = 6,
  CharAny = 7,
  Token = 8,
  TokenNot = 9,
}

/** A grammar flattened for matching. All rules live in one element array. */
export interface CompiledGbnf {
  /** Element kinds: llama.cpp's `llama_gretype` codes (end 0, alternate 1, rule reference 2, char 3, ...). */
  readonly types: Int32Array;
  /** Element values: code point, rule index or token id. */
  readonly values: Int32Array;
  /** Offset of each rule's first element. */
  readonly ruleStart: Int32Array;
  /** Rule index by name (named rules only). */
  readonly ruleIndex: ReadonlyMap<string, number>;
  /** Index of the start rule. */
  readonly root: number;
}

class Flattener {
  readonly types: number[] = [];
  readonly values: number[] = [];
  readonly bodies: number[][] = [];
  readonly ruleIndex = new Map<string, number>();

  constructor(private readonly grammar: GbnfGrammar) {
    for (const name of grammar.rules.keys()) this.ruleIndex.set(name, this.ruleIndex.size);
    for (let i = 0; i < this.ruleIndex.size; i++) this.bodies.push([]);
  }

  private newRule(): number {
    this.bodies.push([]);
    return this.bodies.length - 1;
  }

  /** Fills rule `index` with the alternatives of `e`. */
  fillRule(index: number, e: GbnfExpr): void {
    const out: number[] = [];
    const alts = e.type === "choice" ? e.items : [e];
    alts.forEach((a, i) => {
      if (i > 0) out.push(El.Alt, 0);
      this.emitSequence(a, out);
    });
    out.push(El.End, 0);
    this.bodies[index] = out;
  }

  private emitSequence(e: GbnfExpr, out: number[]): void {
    if (e.type === "sequence") {
      for (const x of e.items) this.emitItem(x, out);
    } else {
      this.emitItem(e, out);
    }
  }

  /** Emits one item; returns nothing, writes pairs of (type, value) into `out`. */
  private emitItem(e: GbnfExpr, out: number[]): void {
    switch (e.type) {
      case "literal":
        for (const ch of e.text) out.push(El.Char, ch.codePointAt(0)!);
        return;
      case "class": {
        // llama.cpp emits nothing for an empty class, so `[]` matches the empty string.
        e.ranges.forEach(([lo, hi], i) => {
          out.push(i === 0 ? (e.negated ? El.CharNot : El.Char) : El.CharAlt, lo);
          if (hi !== lo) out.push(El.CharRangeUpper, hi);
        });
        return;
      }
      case "any":
        out.push(El.CharAny, 0);
        return;
      case "ref": {
        const idx = this.ruleIndex.get(e.name);
        if (idx === undefined) throw new GbnfSyntaxError(`undefined rule identifier '${e.name}'`, 0, 0, null);
        out.push(El.RuleRef, idx);
        return;
      }
      case "token":
        out.push(e.negated ? El.TokenNot : El.Token, e.id ?? -1);
        return;
      case "sequence":
      case "choice": {
        // A nested sequence or choice is a parenthesised group: llama.cpp gives it its own rule.
        const sub = this.newRule();
        this.fillRule(sub, e);
        out.push(El.RuleRef, sub);
        return;
      }
      case "repeat":
        this.emitRepeat(e.item, e.min, e.max, out);
        return;
    }
  }

  /** S{m,n} becomes S..S (m times) then a chain of optional helper rules, as llama.cpp does. */
  private emitRepeat(item: GbnfExpr, min: number, max: number | null, out: number[]): void {
    const unit: number[] = [];
    if (item.type === "sequence" || item.type === "choice") {
      const sub = this.newRule();
      this.fillRule(sub, item);
      unit.push(El.RuleRef, sub);
    } else {
      this.emitItem(item, unit);
    }
    for (let i = 0; i < min; i++) out.push(...unit);
    const optional = max === null ? 1 : max - min;
    let last = -1;
    for (let i = 0; i < optional; i++) {
      const id = this.newRule();
      const body = [...unit];
      if (max === null) body.push(El.RuleRef, id);
      else if (i > 0) body.push(El.RuleRef, last);
      body.push(El.Alt, 0, El.End, 0);
      this.bodies[id] = body;
      last = id;
    }
    if (optional > 0) out.push(El.RuleRef, last);
  }

  run(rootName: string): CompiledGbnf {
    for (const [name, body] of this.grammar.rules) this.fillRule(this.ruleIndex.get(name)!, body);
    const root = this.ruleIndex.get(rootName);
    if (root === undefined) throw new GbnfSyntaxError(`grammar does not contain a '${rootName}' rule`, 0, 0, null);
    const ruleStart = new Int32Array(this.bodies.length);
    let total = 0;
    for (let i = 0; i < this.bodies.length; i++) {
      ruleStart[i] = total;
      total += this.bodies[i]!.length / 2;
    }
    const types = new Int32Array(total);
    const values = new Int32Array(total);
    let k = 0;
    for (const body of this.bodies) {
      for (let j = 0; j < body.length; j += 2) {
        types[k] = body[j]!;
        values[k] = body[j + 1]!;
        k++;
      }
    }
    const compiled: CompiledGbnf = { types, values, ruleStart, ruleIndex: this.ruleIndex, root };
    checkLeftRecursion(compiled);
    return compiled;
  }
}

const isEndOfSequence = (t: number): boolean => t === El.End || t === El.Alt;

/**
 * Rejects left recursion with llama.cpp's criterion: a rule reaching itself through leftmost
 * references, where a reference can be skipped only if that rule has a literally empty alternative.
 */
function checkLeftRecursion(g: CompiledGbnf): void {
  const n = g.ruleStart.length;
  const mayBeEmpty = new Array<boolean>(n).fill(false);
  for (let r = 0; r < n; r++) {
    let atStart = true;
    for (let i = g.ruleStart[r]!; ; i++) {
      const t = g.types[i]!;
      if (isEndOfSequence(t)) {
        if (atStart) mayBeEmpty[r] = true;
        atStart = true;
        if (t === El.End) break;
        continue;
      }
      atStart = false;
    }
  }
  const leftRefs: number[][] = [];
  // After a leftmost ref, the next item is leftmost only if that ref may be empty.
  for (let r = 0; r < n; r++) {
    const refs: number[] = [];
    let leftmost = true;
    for (let i = g.ruleStart[r]!; ; i++) {
      const t = g.types[i]!;
      if (isEndOfSequence(t)) {
        leftmost = true;
        if (t === El.End) break;
        continue;
      }
      if (t === El.RuleRef && leftmost) {
        refs.push(g.values[i]!);
        leftmost = mayBeEmpty[g.values[i]!]!;
      } else {
        leftmost = false;
      }
    }
    leftRefs.push(refs);
  }
  const state = new Uint8Array(n); // 0 new, 1 in progress, 2 done
  const names = new Map<number, string>();
  for (const [name, i] of g.ruleIndex) names.set(i, name);
  const visit = (start: number): void => {
    const stack: [number, number][] = [[start, 0]];
    state[start] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const [r, k] = top;
      const refs = leftRefs[r]!;
      if (k >= refs.length) {
        state[r] = 2;
        stack.pop();
        continue;
      }
      top[1] = k + 1;
      const s = refs[k]!;
      if (state[s] === 1) {
        const owner = names.get(s) ?? names.get(stack.find(([x]) => names.has(x))?.[0] ?? -1) ?? `#${s}`;
        throw new GbnfSyntaxError(`left recursion detected through rule '${owner}'`, 0, 0, owner);
      }
      if (state[s] === 0) {
        state[s] = 1;
        stack.push([s, 0]);
      }
    }
  };
  for (let r = 0; r < n; r++) if (state[r] === 0) visit(r);
}

/**
 * Flattens a grammar (text or parsed) for {@link GbnfMatcher}; checks the start rule exists
 * and that there is no left recursion.
 *
 * @example
 * const compiled = compileGbnf('root ::= [a-z]+');
 */
export function compileGbnf(grammar: string | GbnfGrammar, root = "root"): CompiledGbnf {
  const parsed = typeof grammar === "string" ? parseGbnf(grammar) : grammar;
  return new Flattener(parsed).run(root);
}
