/**
 * Objects as a finite machine over their members: what has been written so far (the next
 * declared member allowed, in schema order, or the set of members seen, in any order) and how
 * many properties were written (for minProperties/maxProperties). Each state is one GBNF rule.
 * This is exact where the plain grammars of `schema-containers.ts` are not: any order without
 * repeated keys, and property counts with optional or extra properties. Its size is states ×
 * members, so the caller checks {@link machineStates} against a budget first.
 */
import { type GbnfExpr, EMPTY, alt, lit, ref, seq } from "../gbnf-ast.js";
import { childRuleName as sub } from "../gbnf-builder.js";
import type { JsonText } from "./json-text.js";
import { NOTHING } from "./string-language.js";

/** One declared member: its `"key": value` grammar and whether it is required. */
export interface ObjectMember {
  kv: GbnfExpr;
  required: boolean;
}

/** How the members of an object may be ordered. */
export type MemberOrder = "sequence" | "set";

/** Most states one object's machine may have (beyond, the caller falls back to a relaxation). */
export const MAX_MACHINE_STATES = 512;

/** Most members tracked as a set in any order (2^n positions). */
export const MAX_SET_MEMBERS = 4;

/** The same with `strict` (exact or an error): as many as the state budget allows (2^8 × 2). */
export const MAX_STRICT_SET_MEMBERS = 8;

/** The counts worth telling apart: 0..max, or 0..max(min, 1) saturating when there is no max. */
function countLimit(min: number, max: number | null): number {
  return max ?? Math.max(min, 1);
}

/** How many states the machine of these members has (before pruning unreachable ones). */
export function machineStates(order: MemberOrder, members: number, min: number, max: number | null): number {
  const positions = order === "set" ? 2 ** members : members + 1;
  return positions * (countLimit(min, max) + 1);
}

/**
 * The object `{ ... }` whose properties are `members` (in `order`) and any number of `extra`
 * members (null: none), with between `min` and `max` properties in all.
 *
 * @example
 * objectMachine(jt, members, null, "set", 0, 2, "root"); // any order, at most 2 properties
 */
export function objectMachine(
  jt: JsonText,
  members: readonly ObjectMember[],
  extra: GbnfExpr | null,
  order: MemberOrder,
  min: number,
  max: number | null,
  hint: string,
): GbnfExpr {
  const ws = jt.ws();
  const sep = jt.sep();
  const comma = seq(lit(","), sep);
  const limit = countLimit(min, max);
  const n = members.length;
  const allRequired = members.reduce((acc, m, i) => (m.required ? acc | (1 << i) : acc), 0);
  // Positions: in sequence order, the index of the next member allowed; as a set, the bitmask seen.
  const moves = (pos: number): [GbnfExpr, number][] => {
    const out: [GbnfExpr, number][] = [];
    if (order === "set") {
      members.forEach((m, k) => {
        if (!(pos & (1 << k))) out.push([m.kv, pos | (1 << k)]);
      });
      return out;
    }
    for (let k = pos; k < n; k++) {
      out.push([members[k]!.kv, k + 1]);
      if (members[k]!.required) break;
    }
    return out;
  };
  const done = (pos: number): boolean =>
    order === "set" ? (pos & allRequired) === allRequired : members.slice(pos).every((m) => !m.required);
  const names = new Map<string, string | null>();
  // A state's rule, or null when nothing can complete from it (pruned, so no dead rules remain).
  const state = (pos: number, count: number): string | null => {
    const key = `${pos}|${count}`;
    if (names.has(key)) return names.get(key)!;
    const name = jt.builder.reserve(sub(hint, `s${pos}-${count}`));
    names.set(key, name);
    const next = Math.min(count + 1, max === null ? limit : count + 1);
    const lead = count === 0 ? EMPTY : comma;
    const alts: GbnfExpr[] = [];
    if (max === null || count < max) {
      for (const [kv, to] of moves(pos)) {
        const r = state(to, next);
        if (r !== null) alts.push(seq(lead, kv, ref(r)));
      }
      if (extra !== null) {
        const r = state(pos, next);
        if (r !== null) alts.push(seq(lead, extra, ref(r)));
      }
    }
    if (count > 0 && done(pos) && count >= Math.min(min, limit)) alts.push(EMPTY);
    if (alts.length === 0) {
      names.set(key, null);
      jt.builder.release(name);
      return null;
    }
    jt.builder.define(name, alt(...alts));
    return name;
  };
  const start = 0;
  const body = state(start, 0);
  const emptyOk = done(start) && min === 0;
  if (body === null) return emptyOk ? seq(lit("{"), ws, lit("}")) : NOTHING;
  return emptyOk
    ? seq(lit("{"), ws, alt(seq(ref(body), ws), EMPTY), lit("}"))
    : seq(lit("{"), ws, ref(body), ws, lit("}"));
}
