/**
 * `oneOf` made exclusive: branch i becomes "branch i and none of the others", with each other
 * branch negated by `schema-negate.ts`. Branches that provably exclude each other (distinct
 * types, a required discriminator with distinct `const`s) need no negation, which keeps the
 * grammar small. Where a negation is only a superset, the branch stays looser than oneOf says
 * and the converter reports RELAXATIONS.oneOf.
 */
import type { NormalizeContext } from "./schema-normalize.js";
import type { SchemaLocation } from "./schema-document.js";
import { negateSchema, provablyDisjoint } from "./schema-negate.js";

/** Most branches whose pairwise exclusion is written out (n² negations). */
const MAX_EXCLUSIVE_BRANCHES = 8;

function resolved(ctx: NormalizeContext, loc: SchemaLocation): unknown {
  let s = loc.schema;
  let here = loc;
  for (let i = 0; i < 8 && s !== null && typeof s === "object" && typeof (s as { $ref?: unknown }).$ref === "string"; i++) {
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
  const out = branches.map((b, i) => {
    const negations: unknown[] = [];
    branches.forEach((other, j) => {
      if (j === i || provablyDisjoint(raw[i], raw[j])) return;
      const neg = negateSchema(ctx.doc, other, base);
      if (!neg.exact) exact = false;
      if (neg.schema !== true) negations.push(neg.schema);
    });
    if (negations.length === 0) return b;
    // The branch itself is copied by reference; `$ref`s in it resolve against the same base.
    return { schema: { allOf: [b.schema, ...negations] }, pointer: `${b.pointer}(only)`, base };
  });
  if (!exact) ctx.relax("oneOf", loc.pointer, "oneOf");
  return out;
}
