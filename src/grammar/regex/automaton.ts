/**
 * Finite automata over code points, for the string languages GBNF structure alone cannot
 * express: "a key that is none of these names and matches none of these patterns", or
 * "matches this pattern and has 3 to 8 characters". Regexes become NFAs (anchors handled
 * exactly as position assertions), then DFAs by subset construction over code-point intervals;
 * DFAs support complement and products. Every construction is capped in states.
 */
import { type CodeRange, MAX_CODE_POINT } from "../char-set.js";
import type { RegexNode } from "./regex-ast.js";

/**
 * Thrown when an automaton would exceed its state budget.
 *
 * @example
 * regexToDfa(parseRegex("(a|b)*a(a|b){20}"), { limit: 100 }); // throws AutomatonLimitError
 */
export class AutomatonLimitError extends Error {
  constructor(readonly limit: number) {
    super(`automaton exceeds ${limit} states`);
    this.name = "AutomatonLimitError";
  }
}

/** A deterministic automaton. Missing transitions go to an implicit dead state. */
export interface Dfa {
  /** Per state: sorted, disjoint transitions `[lo, hi, target]`. */
  readonly trans: readonly (readonly (readonly [number, number, number])[])[];
  readonly accept: readonly boolean[];
  /** Start state (always 0). */
  readonly start: 0;
}

/** Which regex features were approximated (the automaton accepts a superset). */
export interface RegexRelaxations {
  lookaround?: boolean;
  wordBoundary?: boolean;
  backref?: boolean;
}

const DEFAULT_LIMIT = 4000;

// ---------------------------------------------------------------- NFA

const EPS = 0;
const AT_START = 1;
const AT_END = 2;

interface NfaState {
  /** Epsilon-like edges: [kind, target]. */
  eps: [number, number][];
  trans: [number, number, number][];
}

class Nfa {
  readonly states: NfaState[] = [];
  constructor(private readonly relax: RegexRelaxations) {}

  add(): number {
    this.states.push({ eps: [], trans: [] });
    return this.states.length - 1;
  }

  edge(from: number, to: number, kind = EPS): void {
    this.states[from]!.eps.push([kind, to]);
  }

  /** Builds `node` between fresh states; returns [entry, exit]. */
  build(node: RegexNode, groups: Map<number | string, RegexNode>): [number, number] {
    const a = this.add();
    const b = this.add();
    switch (node.type) {
      case "set":
        for (const [lo, hi] of node.ranges) this.states[a]!.trans.push([lo, hi, b]);
        break;
      case "seq": {
        let cur = a;
        for (const item of node.items) {
          const [s, e] = this.build(item, groups);
          this.edge(cur, s);
          cur = e;
        }
        this.edge(cur, b);
        break;
      }
      case "alt":
        for (const item of node.items) {
          const [s, e] = this.build(item, groups);
          this.edge(a, s);
          this.edge(e, b);
        }
        break;
      case "group":
        return this.build(node.item, groups);
      case "repeat": {
        let cur = a;
        for (let i = 0; i < node.min; i++) {
          const [s, e] = this.build(node.item, groups);
          this.edge(cur, s);
          cur = e;
        }
        if (node.max === null) {
          const [s, e] = this.build(node.item, groups);
          this.edge(cur, s);
          this.edge(e, cur);
          this.edge(cur, b);
        } else {
          for (let i = node.min; i < node.max; i++) {
            this.edge(cur, b);
            const [s, e] = this.build(node.item, groups);
            this.edge(cur, s);
            cur = e;
          }
          this.edge(cur, b);
        }
        break;
      }
      case "start":
        this.edge(a, b, AT_START);
        break;
      case "end":
        this.edge(a, b, AT_END);
        break;
      case "look":
        this.relax.lookaround = true;
        this.edge(a, b);
        break;
      case "wordBoundary":
        this.relax.wordBoundary = true;
        this.edge(a, b);
        break;
      case "backref": {
        this.relax.backref = true;
        const target = groups.get(node.group);
        if (target) {
          const [s, e] = this.build(target, groups);
          this.edge(a, s);
          this.edge(e, b);
        } else {
          this.edge(a, b);
        }
        break;
      }
    }
    return [a, b];
  }
}

function collectGroups(node: RegexNode, out: Map<number | string, RegexNode>): void {
  switch (node.type) {
    case "group":
      if (node.index !== null) out.set(node.index, node.item);
      if (node.name !== null) out.set(node.name, node.item);
      collectGroups(node.item, out);
      return;
    case "seq":
    case "alt":
      for (const x of node.items) collectGroups(x, out);
      return;
    case "repeat":
    case "look":
      collectGroups(node.item, out);
      return;
    case "set":
    case "start":
    case "end":
    case "wordBoundary":
    case "backref":
      return;
  }
}

/** Closure of `set` over epsilon edges; `atStart`/`atEnd` allow the anchor edges. */
function closure(nfa: Nfa, set: Iterable<number>, atStart: boolean, atEnd: boolean): number[] {
  const seen = new Set<number>();
  const stack = [...set];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    for (const [kind, to] of nfa.states[s]!.eps) {
      if (kind === EPS || (kind === AT_START && atStart) || (kind === AT_END && atEnd)) stack.push(to);
    }
  }
  return [...seen].sort((x, y) => x - y);
}

/**
 * The DFA of strings in which `node` matches somewhere (JSON Schema `pattern` semantics),
 * or, with `anchored`, strings it matches entirely.
 *
 * @example
 * const d = regexToDfa(parseRegex("^a+$"));
 * dfaAccepts(d, "aaa"); // true
 */
export function regexToDfa(
  node: RegexNode,
  options: { anchored?: boolean; limit?: number; relaxations?: RegexRelaxations } = {},
): Dfa {
  const relax = options.relaxations ?? {};
  const limit = options.limit ?? DEFAULT_LIMIT;
  const nfa = new Nfa(relax);
  const groups = new Map<number | string, RegexNode>();
  collectGroups(node, groups);
  const [s, e] = nfa.build(node, groups);
  let start = s;
  let accept = e;
  if (!options.anchored) {
    // Search semantics: anything may come before and after the match.
    start = nfa.add();
    nfa.states[start]!.trans.push([0, MAX_CODE_POINT, start]);
    nfa.edge(start, s);
    accept = nfa.add();
    nfa.edge(e, accept);
    nfa.states[accept]!.trans.push([0, MAX_CODE_POINT, accept]);
  }
  const finalState = accept;
  const isAccepting = (set: number[]): boolean => closure(nfa, set, false, true).includes(finalState);
  const initial = closure(nfa, [start], true, false);
  // The start set may also accept the empty string through both anchors.
  const initialAccepts = closure(nfa, initial, true, true).includes(finalState);
  const keyOf = (set: number[]): string => set.join(",");
  const index = new Map<string, number>([[keyOf(initial), 0]]);
  const sets = [initial];
  const trans: [number, number, number][][] = [];
  const acc: boolean[] = [];
  for (let i = 0; i < sets.length; i++) {
    const set = sets[i]!;
    acc.push(i === 0 ? initialAccepts : isAccepting(set));
    const edges: [number, number, number][] = [];
    for (const st of set) edges.push(...nfa.states[st]!.trans);
    const out: [number, number, number][] = [];
    for (const [lo, hi, targets] of partition(edges)) {
      const next = closure(nfa, targets, false, false);
      if (next.length === 0) continue;
      const key = keyOf(next);
      let id = index.get(key);
      if (id === undefined) {
        id = sets.length;
        if (id >= limit) throw new AutomatonLimitError(limit);
        index.set(key, id);
        sets.push(next);
      }
      pushMerged(out, lo, hi, id);
    }
    trans.push(out);
  }
  return { trans, accept: acc, start: 0 };
}

/** Splits overlapping labelled ranges into disjoint intervals with the union of their targets. */
function partition(edges: readonly (readonly [number, number, number])[]): [number, number, number[]][] {
  if (edges.length === 0) return [];
  const points = new Set<number>();
  for (const [lo, hi] of edges) {
    points.add(lo);
    points.add(hi + 1);
  }
  const bounds = [...points].sort((a, b) => a - b);
  const out: [number, number, number[]][] = [];
  for (let k = 0; k + 1 < bounds.length; k++) {
    const lo = bounds[k]!;
    const hi = bounds[k + 1]! - 1;
    const targets: number[] = [];
    for (const [elo, ehi, to] of edges) if (elo <= lo && hi <= ehi) targets.push(to);
    if (targets.length > 0) out.push([lo, hi, targets]);
  }
  return out;
}

function pushMerged(out: [number, number, number][], lo: number, hi: number, to: number): void {
  const last = out[out.length - 1];
  if (last && last[2] === to && last[1] + 1 === lo) last[1] = hi;
  else out.push([lo, hi, to]);
}

// ---------------------------------------------------------------- DFA operations

/**
 * The DFA of exactly the given strings (a trie).
 *
 * @example
 * dfaAccepts(literalsToDfa(["id", "name"]), "id"); // true
 */
export function literalsToDfa(words: readonly string[]): Dfa {
  const trans: [number, number, number][][] = [[]];
  const accept = [false];
  for (const w of words) {
    let s = 0;
    for (const ch of w) {
      const cp = ch.codePointAt(0)!;
      const edge = trans[s]!.find(([lo]) => lo === cp);
      if (edge) {
        s = edge[2];
      } else {
        trans.push([]);
        accept.push(false);
        const t = trans.length - 1;
        trans[s]!.push([cp, cp, t]);
        trans[s]!.sort((a, b) => a[0] - b[0]);
        s = t;
      }
    }
    accept[s] = true;
  }
  return { trans, accept, start: 0 };
}

/**
 * The DFA of all strings with `min` to `max` code points (max null: unbounded).
 *
 * @example
 * dfaAccepts(lengthDfa(1, 2), "abc"); // false
 */
export function lengthDfa(min: number, max: number | null, limit = DEFAULT_LIMIT): Dfa {
  const top = max ?? min;
  if (top + 1 > limit) throw new AutomatonLimitError(limit);
  const trans: [number, number, number][][] = [];
  const accept: boolean[] = [];
  for (let i = 0; i <= top; i++) {
    accept.push(i >= min);
    if (i < top) trans.push([[0, MAX_CODE_POINT, i + 1]]);
    else trans.push(max === null ? [[0, MAX_CODE_POINT, i]] : []);
  }
  return { trans, accept, start: 0 };
}

/**
 * The complement DFA (all strings the input rejects).
 *
 * @example
 * dfaAccepts(complementDfa(literalsToDfa(["a"])), "b"); // true
 */
export function complementDfa(d: Dfa): Dfa {
  const dead = d.trans.length;
  const trans = d.trans.map((edges) => {
    const out: [number, number, number][] = [];
    let next = 0;
    for (const [lo, hi, to] of edges) {
      if (lo > next) out.push([next, lo - 1, dead]);
      out.push([lo, hi, to]);
      next = hi + 1;
    }
    if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT, dead]);
    return out;
  });
  trans.push([[0, MAX_CODE_POINT, dead]]);
  const accept = [...d.accept.map((a) => !a), true];
  return { trans, accept, start: 0 };
}

/**
 * The product DFA: `and` for intersection, `or` for union.
 *
 * @example
 * const both = productDfa(regexToDfa(parseRegex("^a")), lengthDfa(0, 3), "and");
 */
export function productDfa(a: Dfa, b: Dfa, mode: "and" | "or", limit = DEFAULT_LIMIT): Dfa {
  const DEAD = -1;
  const index = new Map<string, number>();
  const pairs: [number, number][] = [[0, 0]];
  index.set("0,0", 0);
  const trans: [number, number, number][][] = [];
  const accept: boolean[] = [];
  for (let i = 0; i < pairs.length; i++) {
    const [x, y] = pairs[i]!;
    const ax = x !== DEAD && a.accept[x]!;
    const by = y !== DEAD && b.accept[y]!;
    accept.push(mode === "and" ? ax && by : ax || by);
    const edges: [number, number, number][] = [];
    if (x !== DEAD) for (const [lo, hi, to] of a.trans[x]!) edges.push([lo, hi, to * 2]);
    if (y !== DEAD) for (const [lo, hi, to] of b.trans[y]!) edges.push([lo, hi, to * 2 + 1]);
    const out: [number, number, number][] = [];
    for (const [lo, hi, targets] of partition(edges)) {
      let nx = DEAD;
      let ny = DEAD;
      for (const t of targets) {
        if (t % 2 === 0) nx = t / 2;
        else ny = (t - 1) / 2;
      }
      if (mode === "and" && (nx === DEAD || ny === DEAD)) continue;
      const key = `${nx},${ny}`;
      let id = index.get(key);
      if (id === undefined) {
        id = pairs.length;
        if (id >= limit) throw new AutomatonLimitError(limit);
        index.set(key, id);
        pairs.push([nx, ny]);
      }
      pushMerged(out, lo, hi, id);
    }
    trans.push(out);
  }
  return { trans, accept, start: 0 };
}

/**
 * States from which an accepting state can be reached (the others are dead ends).
 *
 * @example
 * liveStates(literalsToDfa(["a"])); // Set {0, 1}
 */
export function liveStates(d: Dfa): Set<number> {
  const rev: number[][] = d.trans.map(() => []);
  d.trans.forEach((edges, s) => edges.forEach(([, , to]) => rev[to]!.push(s)));
  const live = new Set<number>();
  const stack: number[] = [];
  d.accept.forEach((a, s) => {
    if (a) {
      live.add(s);
      stack.push(s);
    }
  });
  while (stack.length > 0) {
    const s = stack.pop()!;
    for (const p of rev[s]!) if (!live.has(p)) live.add(p), stack.push(p);
  }
  return live;
}

/**
 * Whether the DFA accepts `text`.
 *
 * @example
 * dfaAccepts(literalsToDfa(["ab"]), "ab"); // true
 */
export function dfaAccepts(d: Dfa, text: string): boolean {
  let s = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const edge = d.trans[s]!.find(([lo, hi]) => lo <= cp && cp <= hi);
    if (!edge) return false;
    s = edge[2];
  }
  return d.accept[s]!;
}

/**
 * Shortest and longest accepted lengths (longest null: unbounded); null when nothing is accepted.
 *
 * @example
 * dfaLengthRange(lengthDfa(2, 5)); // [2, 5]
 */
export function dfaLengthRange(d: Dfa): [number, number | null] | null {
  const live = liveStates(d);
  if (!live.has(0)) return null;
  // Shortest by BFS; longest: unbounded if a live cycle exists, else longest path in the DAG.
  const dist = new Map<number, number>([[0, 0]]);
  const queue = [0];
  let shortest: number | null = null;
  for (let i = 0; i < queue.length; i++) {
    const s = queue[i]!;
    if (d.accept[s] && shortest === null) shortest = dist.get(s)!;
    for (const [, , to] of d.trans[s]!) {
      if (live.has(to) && !dist.has(to)) {
        dist.set(to, dist.get(s)! + 1);
        queue.push(to);
      }
    }
  }
  const memo = new Map<number, number>();
  const onPath = new Set<number>();
  let cyclic = false;
  const longest = (s: number): number => {
    if (memo.has(s)) return memo.get(s)!;
    if (onPath.has(s)) {
      cyclic = true;
      return 0;
    }
    onPath.add(s);
    let best = d.accept[s] ? 0 : -Infinity;
    for (const [, , to] of d.trans[s]!) if (live.has(to)) best = Math.max(best, 1 + longest(to));
    onPath.delete(s);
    memo.set(s, best);
    return best;
  };
  const l = longest(0);
  return [shortest ?? 0, cyclic ? null : l];
}

/**
 * Transitions of a DFA state grouped by target, each group as code-point ranges.
 *
 * @example
 * transitionsByTarget([[97, 97, 1], [99, 99, 1], [98, 98, 2]]); // Map { 1 => [[97, 97], [99, 99]], 2 => [[98, 98]] }
 */
export function transitionsByTarget(edges: readonly (readonly [number, number, number])[]): Map<number, CodeRange[]> {
  const out = new Map<number, CodeRange[]>();
  for (const [lo, hi, to] of edges) {
    const list = out.get(to) ?? [];
    list.push([lo, hi]);
    out.set(to, list);
  }
  return out;
}
