/**
 * Emits a DFA as GBNF rules, one per live state: `state ::= <chars> next | ... | <accept>`.
 * The caller decides how a set of code points is spelled (raw class, JSON escapes) and what
 * ends the language in an accepting state (nothing, or a closing quote).
 */
import type { CodeRange } from "../char-set.js";
import { type GbnfExpr, alt, ref, seq } from "../gbnf-ast.js";
import type { GbnfBuilder } from "../gbnf-builder.js";
import { type Dfa, liveStates, transitionsByTarget } from "./automaton.js";

/** How states are spelled. */
export interface DfaSpelling {
  /** GBNF for one code point from `ranges`. */
  char(ranges: readonly CodeRange[]): GbnfExpr;
  /** What an accepting state may end with (EMPTY for "the string may stop here"). */
  accept: GbnfExpr;
}

/**
 * Adds rules for the live states of `d`; returns a reference to the start state's rule.
 * Throws RangeError when the DFA accepts nothing (callers check emptiness first).
 *
 * @example
 * const start = dfaToGbnf(builder, complementDfa(regexToDfa(parseRegex("</s>"))), "until", {
 *   char: (r) => cls(r), accept: EMPTY,
 * });
 */
export function dfaToGbnf(builder: GbnfBuilder, d: Dfa, hint: string, spelling: DfaSpelling): GbnfExpr {
  const live = liveStates(d);
  if (!live.has(0)) throw new RangeError("dfaToGbnf: the automaton accepts nothing");
  const order: number[] = [];
  const seen = new Set([0]);
  const queue = [0];
  while (queue.length > 0) {
    const s = queue.shift()!;
    order.push(s);
    for (const [, , to] of d.trans[s]!) {
      if (live.has(to) && !seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  const names = new Map<number, string>();
  for (const s of order) names.set(s, builder.reserve(`${hint}-s${s}`));
  for (const s of order) {
    const alts: GbnfExpr[] = [];
    for (const [to, ranges] of transitionsByTarget(d.trans[s]!.filter(([, , t]) => live.has(t)))) {
      alts.push(seq(spelling.char(ranges), ref(names.get(to)!)));
    }
    if (d.accept[s]) alts.push(spelling.accept);
    builder.define(names.get(s)!, alt(...alts));
  }
  return ref(names.get(0)!);
}
