/**
 * A character-level GBNF matcher: the pushdown automaton llama.cpp runs, over code points.
 * State is a set of parse stacks; stacks are hash-consed linked lists so equal stacks are one
 * id, and the expansion of a stack to its terminal tops is computed once and cached.
 * Used by tests and the schema-coverage script to check grammars char by char.
 */
import { type CompiledGbnf, El, compileGbnf } from "./gbnf-compile.js";
import type { GbnfGrammar } from "./gbnf-parse.js";

/**
 * Thrown when matching needs more stacks or expansion steps than the configured limits.
 *
 * @example
 * new GbnfMatcher(grammar, { maxStacks: 100 }); // throws GbnfMatchLimitError on a very ambiguous grammar
 */
export class GbnfMatchLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GbnfMatchLimitError";
  }
}

/** Limits that stop pathological (ambiguous or undetected left-recursive) grammars. */
export interface GbnfMatcherOptions {
  /** Most live stacks after one character (default 20000). */
  maxStacks?: number;
  /** Most steps to expand one stack to its terminal tops (default 200000). */
  maxExpansion?: number;
}

const EMPTY_STACK = 0;
/** One stack table per compiled grammar, shared by its matchers so expansions are computed once. */
const tables = new WeakMap<CompiledGbnf, StackTable>();
const isEnd = (t: number): boolean => t === El.End || t === El.Alt;

/** Shared, append-only stack table and caches for one compiled grammar. */
class StackTable {
  readonly elem: number[] = [-1];
  readonly parent: number[] = [-1];
  private readonly intern = new Map<number, number>();
  private readonly expansions = new Map<number, Int32Array>();

  constructor(
    readonly g: CompiledGbnf,
    private readonly maxExpansion: number,
  ) {}

  node(elem: number, parent: number): number {
    const key = parent * this.g.types.length + elem;
    let id = this.intern.get(key);
    if (id === undefined) {
      id = this.elem.length;
      this.elem.push(elem);
      this.parent.push(parent);
      this.intern.set(key, id);
    }
    return id;
  }

  /** A stack whose top is `elem` (or just `parent` when `elem` ends its alternative). */
  push(elem: number, parent: number): number {
    return isEnd(this.g.types[elem]!) ? parent : this.node(elem, parent);
  }

  /** Expands rule references until every stack's top is a terminal (or the stack is empty). */
  expand(start: number): Int32Array {
    const cached = this.expansions.get(start);
    if (cached) return cached;
    const { types, values, ruleStart } = this.g;
    const out: number[] = [];
    const seen = new Set<number>();
    const todo = [start];
    let steps = 0;
    while (todo.length > 0) {
      const cur = todo.pop()!;
      if (seen.has(cur)) continue;
      seen.add(cur);
      if (++steps > this.maxExpansion)
        throw new GbnfMatchLimitError(`expanding one parse stack took more than ${this.maxExpansion} steps`);
      if (cur === EMPTY_STACK) {
        out.push(cur);
        continue;
      }
      const e = this.elem[cur]!;
      if (types[e] !== El.RuleRef) {
        out.push(cur);
        continue;
      }
      const base = this.push(e + 1, this.parent[cur]!);
      let a = ruleStart[values[e]!]!;
      for (;;) {
        todo.push(this.push(a, base));
        while (!isEnd(types[a]!)) a++;
        if (types[a] === El.Alt) a++;
        else break;
      }
    }
    const result = Int32Array.from(out);
    this.expansions.set(start, result);
    return result;
  }

  /** Whether code point `cp` matches the char element at `e`; returns the element after it, or -1. */
  matchChar(e: number, cp: number): number {
    const { types, values } = this.g;
    const positive = types[e] === El.Char || types[e] === El.CharAny;
    let found = false;
    let p = e;
    do {
      if (types[p + 1] === El.CharRangeUpper) {
        found ||= values[p]! <= cp && cp <= values[p + 1]!;
        p += 2;
      } else if (types[p] === El.CharAny) {
        found = true;
        p += 1;
      } else {
        found ||= values[p] === cp;
        p += 1;
      }
    } while (types[p] === El.CharAlt);
    return found === positive ? p : -1;
  }
}

/**
 * Feeds text to a GBNF grammar one code point at a time.
 *
 * @example
 * const m = new GbnfMatcher('root ::= "a" [0-9]+');
 * m.accept("a1"); // true: still alive
 * m.isComplete;   // true: "a1" is a full match
 * m.accept("x");  // false: rejected
 */
export class GbnfMatcher {
  private readonly table: StackTable;
  private stacks: Int32Array;
  private readonly maxStacks: number;
  /** Code points accepted so far. */
  consumed = 0;

  constructor(grammar: string | GbnfGrammar | CompiledGbnf, options: GbnfMatcherOptions = {}) {
    const compiled = typeof grammar === "object" && "types" in grammar ? grammar : compileGbnf(grammar);
    this.maxStacks = options.maxStacks ?? 20000;
    let table = tables.get(compiled);
    if (!table) {
      table = new StackTable(compiled, options.maxExpansion ?? 200000);
      tables.set(compiled, table);
    }
    this.table = table;
    const starts: number[] = [];
    let a = compiled.ruleStart[compiled.root]!;
    for (;;) {
      starts.push(...this.table.expand(this.table.push(a, EMPTY_STACK)));
      while (!isEnd(compiled.types[a]!)) a++;
      if (compiled.types[a] === El.Alt) a++;
      else break;
    }
    this.stacks = Int32Array.from(new Set(starts));
  }

  /** True when the text so far is a complete match (the grammar may also allow more). */
  get isComplete(): boolean {
    return this.stacks.includes(EMPTY_STACK);
  }

  /** True when no further text can be accepted (either rejected or complete with nothing more allowed). */
  get isDead(): boolean {
    return this.stacks.every((s) => s === EMPTY_STACK);
  }

  /** Number of live parse stacks (a measure of grammar ambiguity at this point). */
  get stackCount(): number {
    return this.stacks.length;
  }

  /**
   * Feeds text; returns false as soon as a code point is rejected (the matcher is then dead
   * and `consumed` says how many code points were accepted).
   */
  accept(text: string): boolean {
    for (const ch of text) {
      if (!this.acceptCodePoint(ch.codePointAt(0)!)) return false;
    }
    return true;
  }

  /** Feeds one code point; returns false when it is rejected. */
  acceptCodePoint(cp: number): boolean {
    const t = this.table;
    const types = t.g.types;
    const next = new Set<number>();
    for (const s of this.stacks) {
      if (s === EMPTY_STACK) continue;
      const e = t.elem[s]!;
      const type = types[e]!;
      if (type === El.Token || type === El.TokenNot) continue;
      const after = t.matchChar(e, cp);
      if (after < 0) continue;
      for (const x of t.expand(t.push(after, t.parent[s]!))) next.add(x);
    }
    if (next.size > this.maxStacks)
      throw new GbnfMatchLimitError(`more than ${this.maxStacks} live parse stacks after ${this.consumed} code points`);
    this.stacks = Int32Array.from(next);
    if (next.size === 0) return false;
    this.consumed++;
    return true;
  }
}

/** Result of {@link matchGbnf}. */
export interface GbnfMatchResult {
  /** The whole text was accepted and is a complete match. */
  readonly ok: boolean;
  /** The whole text was accepted (complete or not). */
  readonly prefixOk: boolean;
  /** Code points accepted before the first rejection (the text length in code points when none). */
  readonly consumed: number;
}

/**
 * Matches a whole text against a grammar.
 *
 * @example
 * matchGbnf('root ::= [0-9]+', "123").ok; // true
 * matchGbnf('root ::= [0-9]+', "12a").consumed; // 2
 */
export function matchGbnf(
  grammar: string | GbnfGrammar | CompiledGbnf,
  text: string,
  options: GbnfMatcherOptions = {},
): GbnfMatchResult {
  const m = new GbnfMatcher(grammar, options);
  const prefixOk = m.accept(text);
  return { ok: prefixOk && m.isComplete, prefixOk, consumed: m.consumed };
}
