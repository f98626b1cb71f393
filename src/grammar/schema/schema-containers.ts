/**
 * Grammars for arrays (prefix items, rest items, counts) and objects (declared properties in
 * order, required ones enforced, extra properties by patternProperties / additionalProperties
 * anywhere between them, keys kept disjoint so the grammar stays unambiguous).
 */
import { type GbnfExpr, EMPTY, alt, lit, opt, ref, rep, seq, star } from "../gbnf-ast.js";
import type { RegexNode } from "../regex/regex-ast.js";
import { RegexSyntaxError } from "../regex/regex-ast.js";
import { parseRegex } from "../regex/regex-parse.js";
import { pythonJsonString } from "../python-json.js";
import type { JsonText } from "./json-text.js";
import { childRuleName as sub } from "../gbnf-builder.js";
import type { SchemaLocation } from "./schema-document.js";
import type { RelaxationKind } from "./schema-error.js";
import type { Norm } from "./schema-normalize.js";
import { NOTHING, isNothing, nothingBecause, nothingOr, stringLanguage } from "./string-language.js";
import { uniqueArray } from "./unique-items.js";
import { checkObjectBudget, checkPatternBudget } from "./schema-budget.js";
import {
  MAX_MACHINE_STATES,
  MAX_SET_MEMBERS,
  MAX_STRICT_SET_MEMBERS,
  type MemberOrder,
  machineStates,
  objectMachine,
} from "./object-machine.js";

/**
 * Where declared properties may appear: "schema" in `properties` order, "required-first" the
 * required ones first (each group in `properties` order), "any" in any order. Extra properties
 * (patternProperties, additionalProperties) may appear anywhere in each.
 */
export type PropertyOrder = "schema" | "required-first" | "any";

/** What container generation needs from the converter. */
export interface ContainerContext {
  jt: JsonText;
  /** Grammar for a value satisfying all of `locs` (an empty list: any value). */
  visit(locs: readonly SchemaLocation[], hint: string): GbnfExpr;
  /** The values satisfying all of `locs` when they are a finite list (enum, const, booleans, null), else null. */
  finiteValues(locs: readonly SchemaLocation[]): unknown[] | null;
  /** Normalises the string constraints of `locs` (for propertyNames). */
  stringConstraintsOf(
    locs: readonly SchemaLocation[],
  ): { patterns: RegexNode[]; minLength: number; maxLength: number | null } | null;
  relax(kind: RelaxationKind, pointer: string, keyword: string, detail?: string): void;
  /** What a missing additionalProperties means. */
  additionalDefault: boolean;
  /** How declared properties may be ordered (see {@link PropertyOrder}). */
  propertyOrder: PropertyOrder;
  /** Whether relaxations throw (the converter's `strict` option). */
  strict: boolean;
}

/** prefixItems per named rule of an array's tail: keeps the expression's nesting shallow. */
const TAIL_CHUNK = 32;

/** `item` named as a rule unless it already is a reference or a literal. */
function named(ctx: ContainerContext, hint: string, e: GbnfExpr): GbnfExpr {
  if (e.type === "ref" || e.type === "literal" || isNothing(e)) return e;
  return ref(ctx.jt.builder.add(hint, e));
}

/**
 * A JSON array satisfying the array keywords of `n`.
 *
 * @example
 * arrayExpr(ctx, norm, "tags"); // "[" ws ( tags-item ("," ws tags-item){0,9} ws )? "]"
 */
export function arrayExpr(ctx: ContainerContext, n: Norm, hint: string): GbnfExpr {
  const ws = ctx.jt.ws();
  const sep = ctx.jt.sep();
  const min = n.minItems;
  let max = n.maxItems;
  if (max !== null && max > 2000) {
    ctx.relax("repetitionCap", n.pointer, "maxItems");
    max = null;
  }
  if (max !== null && max < min)
    return nothingBecause(n.pointer, "minItems/maxItems", `minItems ${min} exceeds maxItems ${max}`);
  if (n.uniqueItems && (max === null || max > 1)) {
    const values = n.prefixItems.length === 0 && n.items !== false ? ctx.finiteValues(n.items) : null;
    const unique = values === null ? null : uniqueArray(ctx.jt, values, min, max, hint);
    if (unique !== null) return unique;
    ctx.relax("uniqueItems", n.pointer, "uniqueItems");
  }
  const prefix = n.prefixItems.map((locs, i) =>
    named(ctx, sub(hint, String(i)), ctx.visit(locs, sub(hint, String(i)))),
  );
  const rest = n.items === false ? null : named(ctx, sub(hint, "item"), ctx.visit(n.items, sub(hint, "item")));
  const open = seq(lit("["), ws);
  const close = lit("]");
  if (max === 0) return seq(open, close);
  // tail(i): the items from position i on, each preceded by a comma. Built from the end without
  // recursion (10k prefixItems must not overflow the stack), naming a rule every TAIL_CHUNK items
  // so the expression stays shallow for the printer and the grammar engines.
  const comma = seq(lit(","), sep);
  const tailOne = (i: number, next: () => GbnfExpr): GbnfExpr => {
    const limit = max === null ? null : max - i;
    if (limit !== null && limit <= 0) return EMPTY;
    if (i < prefix.length) {
      const p = prefix[i]!;
      if (isNothing(p)) return i < min ? NOTHING : EMPTY;
      const more = seq(comma, p, next());
      return i < min ? more : opt(more);
    }
    if (rest === null || isNothing(rest)) return i < min ? NOTHING : EMPTY;
    const need = Math.max(0, min - i);
    return rep(seq(comma, rest), need, limit);
  };
  const tail = (from: number): GbnfExpr => {
    let acc = tailOne(Math.max(from, prefix.length), () => EMPTY);
    for (let i = prefix.length - 1; i >= from; i--) {
      const next = acc;
      acc = tailOne(i, () => next);
      if ((prefix.length - i) % TAIL_CHUNK === 0 && i > from && !isNothing(acc) && acc !== EMPTY)
        acc = named(ctx, sub(hint, `tail-${i}`), acc);
    }
    return acc;
  };
  const first = prefix.length > 0 ? prefix[0]! : rest;
  const tooFew = (e: GbnfExpr | null): GbnfExpr =>
    nothingOr(e ?? NOTHING, n.pointer, "minItems", `minItems ${min}, but the items allowed match nothing`);
  if (first === null || isNothing(first)) return min > 0 ? tooFew(first) : seq(open, close);
  const body = seq(first, tail(1));
  if (containsNothing(body)) return min > 0 ? tooFew(null) : seq(open, close);
  return min > 0 ? seq(open, body, ws, close) : seq(open, opt(seq(body, ws)), close);
}

function containsNothing(e: GbnfExpr): boolean {
  if (isNothing(e)) return true;
  if (e.type === "sequence") return e.items.some(containsNothing);
  if (e.type === "repeat") return e.min > 0 && containsNothing(e.item);
  return false;
}

function compile(
  ctx: ContainerContext,
  source: string,
  pointer: string,
): { node: RegexNode; test: (k: string) => boolean } | null {
  let node: RegexNode;
  try {
    node = parseRegex(source);
  } catch (e) {
    if (!(e instanceof RegexSyntaxError)) throw e;
    ctx.relax("regexUnsupported", pointer, "patternProperties", e.message);
    return null;
  }
  checkPatternBudget(node, pointer, "patternProperties");
  let re: RegExp | null = null;
  try {
    re = new RegExp(source, "u");
  } catch {
    re = null;
  }
  return { node, test: (k) => (re ? re.test(k) : false) };
}

/**
 * A JSON object satisfying the object keywords of `n`.
 *
 * @example
 * objectExpr(ctx, norm, "root"); // "{" ws root-a-kv ("," ws root-b-kv)? ws "}"
 */
export function objectExpr(ctx: ContainerContext, n: Norm, hint: string): GbnfExpr {
  const ws = ctx.jt.ws();
  const sep = ctx.jt.sep();
  const patterns: { source: string; node: RegexNode; test: (k: string) => boolean; schemas: SchemaLocation[] }[] = [];
  for (const scope of n.scopes) {
    for (const p of scope.patterns) {
      const c = compile(ctx, p.source, scope.pointer);
      if (c) patterns.push({ source: p.source, ...c, schemas: p.schemas });
    }
  }
  // Declared keys: `properties` in order, then required keys declared nowhere.
  const keys = [...n.properties.keys()];
  for (const k of n.required) if (!n.properties.has(k)) keys.push(k);
  checkObjectBudget(keys.length, n.pointer);
  // Extra keys may be none of the declared or forbidden ones.
  const names = new Set([...keys, ...n.forbidden]);
  const nameRules = keyNameConstraint(ctx, n);

  const members: { kv: GbnfExpr; required: boolean }[] = [];
  for (const key of keys) {
    const required = n.required.has(key);
    const locs: SchemaLocation[] = [...(n.properties.get(key) ?? [])];
    let forbidden = n.forbidden.has(key) || (nameRules !== null && !nameRules.test(key));
    // Every subschema that does not declare the key constrains it by its patterns or additionalProperties.
    for (const scope of n.scopes) {
      if (scope.keys.has(key)) continue;
      const matching = scope.patterns.filter((p) => patterns.find((q) => q.source === p.source)?.test(key));
      if (matching.length > 0) for (const m of matching) locs.push(...m.schemas);
      else if (scope.additional) {
        if (scope.additional.schema === false) forbidden = true;
        else locs.push(scope.additional);
      }
    }
    const value = forbidden
      ? nothingBecause(n.pointer, "required", `property ${JSON.stringify(key)} is not allowed here`)
      : ctx.visit(locs, sub(hint, String(key)));
    if (isNothing(value)) {
      if (required)
        return nothingOr(value, n.pointer, "required", `required property ${JSON.stringify(key)} matches nothing`);
      continue;
    }
    members.push({
      kv: named(ctx, sub(hint, `${key}-kv`), seq(lit(pythonJsonString(key)), lit(":"), sep, value)),
      required,
    });
  }

  const extra = extraMember(ctx, n, patterns, names, nameRules, hint);
  const requiredCount = members.filter((m) => m.required).length;
  if (extra === null && members.length < n.minProperties) {
    const reason = `minProperties ${n.minProperties}, but only ${members.length} properties are allowed`;
    return nothingBecause(n.pointer, "minProperties", reason);
  }
  if (n.maxProperties !== null && requiredCount > n.maxProperties) {
    const reason = `${requiredCount} required properties exceed maxProperties ${n.maxProperties}`;
    return nothingBecause(n.pointer, "required/maxProperties", reason);
  }
  if (ctx.propertyOrder === "required-first") members.sort((a, b) => Number(b.required) - Number(a.required));
  // minProperties 1 is exact (the member list must not be empty); larger counts need counting.
  const needsCount =
    n.minProperties > Math.max(1, requiredCount) ||
    (n.maxProperties !== null && (extra !== null || members.length > n.maxProperties));
  const order: MemberOrder = ctx.propertyOrder === "any" && members.length > 1 ? "set" : "sequence";
  // Strict conversions pay for exact sets up to the state budget rather than allow repeated keys.
  const exactSet = order === "sequence" || members.length <= (ctx.strict ? MAX_STRICT_SET_MEMBERS : MAX_SET_MEMBERS);
  if ((needsCount || order === "set") && exactSet) {
    const states = machineStates(order, members.length, n.minProperties, n.maxProperties);
    if (states <= MAX_MACHINE_STATES) {
      if (order === "sequence" && members.length > 1 && members.some((m) => !m.required))
        ctx.relax("propertyOrder", n.pointer, "properties");
      return objectMachine(ctx.jt, members, extra, order, n.minProperties, n.maxProperties, hint);
    }
  }
  if (order === "set" && !exactSet && requiredCount <= MAX_SET_MEMBERS) {
    // Many members: the required ones tracked as a set, optional and extra ones free (and counted).
    const required = members.filter((m) => m.required);
    const loose = [...members.filter((m) => !m.required).map((m) => m.kv), ...(extra ? [extra] : [])];
    if (machineStates("set", required.length, n.minProperties, n.maxProperties) <= MAX_MACHINE_STATES) {
      ctx.relax("duplicateKeys", n.pointer, "properties");
      const others = loose.length === 0 ? null : named(ctx, sub(hint, "opt"), alt(...loose));
      return objectMachine(ctx.jt, required, others, "set", n.minProperties, n.maxProperties, hint);
    }
  }
  if (needsCount) ctx.relax("propertyCount", n.pointer, "minProperties/maxProperties");
  const nonEmpty = n.minProperties >= 1;
  const comma = seq(lit(","), sep);
  const extras = extra === null ? EMPTY : star(seq(comma, extra));

  if (members.length === 0) {
    if (extra === null) return seq(lit("{"), ws, lit("}"));
    const some = seq(extra, extras, ws);
    return seq(lit("{"), ws, nonEmpty ? some : opt(some), lit("}"));
  }
  if (order === "set") return anyOrderObject(ctx, n, members, extra, nonEmpty, hint);
  if (members.length > 1 && members.some((m) => !m.required)) ctx.relax("propertyOrder", n.pointer, "properties");
  // rest(i): members i.. each preceded by a comma; first(i): members i.. where the first present one has none.
  const restRules: (GbnfExpr | null)[] = new Array(members.length + 1).fill(null);
  const rest = (i: number): GbnfExpr => {
    if (i >= members.length) return EMPTY;
    // Filled from the last uncached member down to i, in the order the recursive definition
    // added the rules (so rule names do not change), without recursing 10k members deep.
    let j = i;
    while (j + 1 < members.length && restRules[j + 1] === null) j++;
    for (; j >= i; j--) {
      if (restRules[j]) continue;
      const m = members[j]!;
      const item = seq(comma, m.kv, extras);
      const next = j + 1 >= members.length ? EMPTY : restRules[j + 1]!;
      const body = m.required ? seq(item, next) : seq(opt(item), next);
      restRules[j] = j + 1 < members.length ? ref(ctx.jt.builder.add(sub(hint, "rest"), body)) : body;
    }
    return restRules[i]!;
  };
  // first(i): the alternatives for which member comes first, up to the first required one.
  const first = (i: number): GbnfExpr | null => {
    const options: GbnfExpr[] = [];
    for (let k = i; k < members.length; k++) {
      const m = members[k]!;
      options.push(seq(m.kv, extras, rest(k + 1)));
      if (m.required) break;
    }
    return options.length === 0 ? null : options.length === 1 ? options[0]! : alt(...options);
  };
  const firstExpr = first(0)!;
  const leading = extra === null ? null : seq(extra, extras, rest(0));
  const body = leading === null ? firstExpr : alt(firstExpr, leading);
  const anyRequired = nonEmpty || members.some((m) => m.required);
  if (anyRequired) return seq(lit("{"), ws, body, ws, lit("}"));
  // llama.cpp counts the rule names first seen inside `( ... )?` as rules the `?` repeats (2000 at
  // most): hundreds of optional members would make the grammar invalid. Their choice gets a rule.
  const optional = firstExpr.type === "choice" && firstExpr.items.length > MANY_FIRST_MEMBERS;
  return seq(lit("{"), ws, opt(seq(optional ? named(ctx, sub(hint, "members"), body) : body, ws)), lit("}"));
}

/** Leading alternatives of an object beyond which they are named as one rule (see above). */
const MANY_FIRST_MEMBERS = 256;

/** Most required keys tracked as a set in any-order objects (2^n rules); beyond, they are counted. */
const MAX_TRACKED_REQUIRED = 6;

/**
 * Members in any order, for objects with more members than {@link MAX_SET_MEMBERS} (fewer get
 * the exact machine of `object-machine.ts`). Required keys are tracked as the set seen so far
 * (few keys) or by count (many keys: exact for objects without repeated keys, which is every
 * parsed JSON object); optional and extra keys may appear anywhere. A repeated key is not
 * prevented (RELAXATIONS.duplicateKeys).
 */
function anyOrderObject(
  ctx: ContainerContext,
  n: Norm,
  members: { kv: GbnfExpr; required: boolean }[],
  extra: GbnfExpr | null,
  nonEmpty: boolean,
  hint: string,
): GbnfExpr {
  const ws = ctx.jt.ws();
  const sep = ctx.jt.sep();
  const comma = seq(lit(","), sep);
  const req = members.filter((m) => m.required).map((m) => m.kv);
  const optional = [...members.filter((m) => !m.required).map((m) => m.kv), ...(extra ? [extra] : [])];
  const optKv = optional.length > 0 ? named(ctx, sub(hint, "opt"), alt(...optional)) : null;
  ctx.relax("duplicateKeys", n.pointer, "properties");
  const b = ctx.jt.builder;
  const bySet = req.length <= MAX_TRACKED_REQUIRED;
  const anyReq = !bySet && req.length > 0 ? named(ctx, sub(hint, "req"), alt(...req)) : null;
  // State: the set (bitmask) of required keys seen, or how many were seen.
  const full = bySet ? (1 << req.length) - 1 : req.length;
  const successors = (s: number): [GbnfExpr, number][] => {
    if (!bySet) return s < req.length ? [[anyReq!, s + 1]] : [];
    const out: [GbnfExpr, number][] = [];
    req.forEach((kv, k) => {
      if (!(s & (1 << k))) out.push([kv, s | (1 << k)]);
    });
    return out;
  };
  const names = new Map<number, string>();
  // Counted states are a chain 0..full: name them all first, so defining one never recurses 10k deep.
  if (!bySet) for (let s = 0; s <= full; s++) names.set(s, b.reserve(sub(hint, `any${s}`)));
  const state = (s: number): GbnfExpr => {
    let name = names.get(s);
    if (!bySet) return ref(name!);
    if (name === undefined) {
      name = b.reserve(sub(hint, `any${s}`));
      names.set(s, name);
      const alts: GbnfExpr[] = [];
      if (optKv) alts.push(seq(comma, optKv, ref(name)));
      for (const [kv, next] of successors(s)) alts.push(seq(comma, kv, state(next)));
      if (s === full) alts.push(EMPTY);
      b.define(name, alt(...alts));
    }
    return ref(name);
  };
  if (!bySet) {
    for (let s = 0; s <= full; s++) {
      const alts: GbnfExpr[] = [];
      if (optKv) alts.push(seq(comma, optKv, ref(names.get(s)!)));
      if (s < full) alts.push(seq(comma, anyReq!, ref(names.get(s + 1)!)));
      else alts.push(EMPTY);
      b.define(names.get(s)!, alt(...alts));
    }
  }
  const firsts: GbnfExpr[] = [];
  if (optKv) firsts.push(seq(optKv, state(0)));
  for (const [kv, next] of successors(0)) firsts.push(seq(kv, state(next)));
  const body = alt(...firsts);
  return req.length === 0 && !nonEmpty
    ? seq(lit("{"), ws, opt(seq(body, ws)), lit("}"))
    : seq(lit("{"), ws, body, ws, lit("}"));
}

interface NameRules {
  patterns: RegexNode[];
  minLength: number;
  maxLength: number | null;
  test(key: string): boolean;
}

/** Constraints from `propertyNames`, as string constraints plus a JS test for declared keys. */
function keyNameConstraint(ctx: ContainerContext, n: Norm): NameRules | null {
  if (n.propertyNames.length === 0) return null;
  const c = ctx.stringConstraintsOf(n.propertyNames);
  if (c === null) return null;
  const sources: RegExp[] = [];
  for (const loc of n.propertyNames) {
    const p = (loc.schema as { pattern?: unknown } | null)?.pattern;
    if (typeof p === "string") {
      try {
        sources.push(new RegExp(p, "u"));
      } catch {
        // Unsupported in JS: only the grammar constrains it.
      }
    }
  }
  return {
    ...c,
    test: (k) => {
      const len = [...k].length;
      return len >= c.minLength && (c.maxLength === null || len <= c.maxLength) && sources.every((r) => r.test(k));
    },
  };
}

/** The grammar of one extra `"key": value` (patternProperties or additionalProperties), or null if none allowed. */
function extraMember(
  ctx: ContainerContext,
  n: Norm,
  patterns: { source: string; node: RegexNode; schemas: SchemaLocation[] }[],
  names: ReadonlySet<string>,
  nameRules: NameRules | null,
  hint: string,
): GbnfExpr | null {
  const sep = ctx.jt.sep();
  const exclude = [...names];
  const baseNamePatterns = nameRules?.patterns ?? [];
  const alts: GbnfExpr[] = [];
  const overlapped = patterns.length > 1;
  if (overlapped) ctx.relax("overlappingPatterns", n.pointer, "patternProperties");
  // Additional keys must satisfy every scope's additionalProperties; a scope without it allows anything.
  const additional: SchemaLocation[] = [];
  let additionalAllowed = true;
  let anyExplicit = false;
  for (const scope of n.scopes) {
    if (scope.additional === null) continue;
    anyExplicit = true;
    if (scope.additional.schema === false) additionalAllowed = false;
    else additional.push(scope.additional);
  }
  if (!anyExplicit && !ctx.additionalDefault && (names.size > 0 || patterns.length > 0)) additionalAllowed = false;
  patterns.forEach((p, i) => {
    const key = stringLanguage(
      ctx.jt,
      {
        patterns: [p.node, ...baseNamePatterns],
        minLength: nameRules?.minLength ?? 0,
        maxLength: nameRules?.maxLength ?? null,
        excludeWords: exclude,
      },
      sub(hint, `pk${i}`),
    );
    for (const r of key.relaxations) ctx.relax("regexFeature", n.pointer, "patternProperties", r);
    if (isNothing(key.expr)) return;
    const others = additionalScopesFor(n, p.source);
    if (others === null) return;
    const value = ctx.visit([...p.schemas, ...others], sub(hint, `pv${i}`));
    if (isNothing(value)) return;
    alts.push(seq(named(ctx, sub(hint, `pk${i}`), key.expr), lit(":"), sep, value));
  });
  if (additionalAllowed) {
    const key = stringLanguage(
      ctx.jt,
      {
        patterns: baseNamePatterns,
        minLength: nameRules?.minLength ?? 0,
        maxLength: nameRules?.maxLength ?? null,
        excludeWords: exclude,
        excludePatterns: patterns.map((p) => p.node),
      },
      sub(hint, "ak"),
    );
    for (const r of key.relaxations) ctx.relax("regexFeature", n.pointer, "additionalProperties", r);
    const value = ctx.visit(additional, sub(hint, "av"));
    if (!isNothing(key.expr) && !isNothing(value))
      alts.push(seq(named(ctx, sub(hint, "ak"), key.expr), lit(":"), sep, value));
  }
  if (alts.length === 0) return null;
  return named(ctx, sub(hint, "extra"), alt(...alts));
}

/**
 * Scopes that do not list this pattern constrain its keys through their additionalProperties;
 * null when one of them forbids additional keys.
 */
function additionalScopesFor(n: Norm, source: string): SchemaLocation[] | null {
  const out: SchemaLocation[] = [];
  for (const scope of n.scopes) {
    if (scope.patterns.some((p) => p.source === source)) continue;
    if (scope.additional === null) continue;
    if (scope.additional.schema === false) return null;
    out.push(scope.additional);
  }
  return out;
}
