/**
 * `oneOf` made exclusive: branch i becomes "branch i and none of the others", with each other
 * branch negated by `schema-negate.ts`. Branches that provably exclude each other (distinct
 * types, a required discriminator with distinct `const`s) need no negation, which keeps the
 * grammar small. Where a negation is only a superset, or the exclusion would take too many
 * alternatives, the oneOf stays an anyOf and the converter reports RELAXATIONS.oneOf.
 */
import type { NormalizeContext } from "./schema-normalize.js";
import type { SchemaLocation } from "./schema-document.js";
import { negateSchema, provablyDisjoint } from "./schema-negate.js";

/** Most branches whose pairwise exclusion is written out (n² negations). */
const MAX_EXCLUSIVE_BRANCHES = 8;

/** Most alternatives the negations may add to one oneOf in all (each negation is an anyOf). */
const MAX_EXCLUSION_ALTERNATIVES = 32;

/** How many alternatives a negation adds when merged: its top-level anyOf, or one. */
function width(schema: unknown): number {
  const o = schema as { anyOf?: unknown } | null;
  return o !== null && typeof o === "object" && Array.isArray(o.anyOf) ? o.anyOf.length : 1;
}

function resolved(ctx: NormalizeContext, loc: SchemaLocation): unknown {
  let s = loc.schema;
  let here = loc;
  for (
    let i = 0;
    i < 8 && s !== null && typeof s === "object" && typeof (s as { $ref?: unknown }).$ref === "string";
    i++
  ) {
    const o = s as Record<string, unknown>;
    const onlyRef = Object.keys(o).every((k) => k === "$ref" || ["title", "description", "$comment"].includes(k));
    if (!onlyRef && !ctx.doc.refOverridesSiblings) break;
    try {
      here = ctx.doc.resolve(o.$ref as string, here);
    } catch {
      break;
    }
    s = here.schema;
  }
  return s;
}

/**
 * The alternatives of `loc`'s `oneOf` (already checked to be a non-empty array), each one
 * excluding the others where a grammar can say so.
 *
 * @example
 * exclusiveBranches(ctx, loc); // [branch0 ∧ ¬branch1, branch1 ∧ ¬branch0]
 */
export function exclusiveBranches(ctx: NormalizeContext, loc: SchemaLocation): SchemaLocation[] {
  const list = (loc.schema as { oneOf: unknown[] }).oneOf;
  const branches = list.map((_, i) => ctx.doc.child(loc, "oneOf", i));
  if (branches.length === 1) return branches;
  if (branches.length > MAX_EXCLUSIVE_BRANCHES) {
    ctx.relax("oneOf", loc.pointer, "oneOf", `more than ${MAX_EXCLUSIVE_BRANCHES} branches`);
    return branches;
  }
  const raw = branches.map((b) => resolved(ctx, b));
  const base = ctx.doc.baseOf(loc);
  let exact = true;
  const negated = new Map<number, unknown>();
  const negationOf = (j: number): unknown => {
    if (!negated.has(j)) {
      const neg = negateSchema(ctx.doc, branches[j]!, base);
      if (!neg.exact) exact = false;
      negated.set(j, neg.schema);
    }
    return negated.get(j);
  };
  // Each branch's alternatives multiply by the widths of the negations merged into it.
  let alternatives = 0;
  const plans = branches.map((_, i) => {
    const negations: unknown[] = [];
    branches.forEach((_other, j) => {
      if (j === i || provablyDisjoint(raw[i], raw[j])) return;
      const neg = negationOf(j);
      if (neg !== true) negations.push(neg);
    });
    alternatives += negations.reduce((acc: number, n) => acc * width(n), 1);
    return negations;
  });
  if (alternatives > MAX_EXCLUSION_ALTERNATIVES) {
    ctx.relax(
      "oneOf",
      loc.pointer,
      "oneOf",
      `exclusion would take more than ${MAX_EXCLUSION_ALTERNATIVES} alternatives`,
    );
    return branches;
  }
  // A partial exclusion would still copy every branch (no rule shared with the plain subschemas)
  // for a grammar that stays loose: only exact ones are worth their size.
  if (!exact) {
    ctx.relax("oneOf", loc.pointer, "oneOf");
    return branches;
  }
  // The branch itself is copied by reference; `$ref`s in it resolve against the same base.
  return branches.map((b, i) =>
    plans[i]!.length === 0 ? b : { schema: { allOf: [b.schema, ...plans[i]!] }, pointer: `${b.pointer}(only)`, base },
  );
}
