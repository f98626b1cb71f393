/**
 * `dependencies`, `dependentRequired` and `dependentSchemas` by branching: for each key, an
 * object either lacks it, or has it and satisfies what it brings (more required keys, or a
 * schema). The two branches exclude each other, so the grammar stays unambiguous; each key
 * doubles the alternatives, which the converter's anyOf expansion bound keeps finite.
 */
import type { SchemaLocation } from "./schema-document.js";
import type { NormalizeContext } from "./schema-normalize.js";

/** The dependency keywords, each an object from a key to what its presence requires. */
export const DEPENDENCY_KEYWORDS = ["dependencies", "dependentRequired", "dependentSchemas"] as const;

/**
 * One anyOf group per dependency of `loc`'s schema (keyword `keyword`), as synthetic locations.
 *
 * @example
 * dependencyGroups(ctx, loc, "dependentRequired"); // [[{lacks "a"}, {required: ["a", "b"]}]]
 */
export function dependencyGroups(
  ctx: NormalizeContext,
  loc: SchemaLocation,
  keyword: (typeof DEPENDENCY_KEYWORDS)[number],
): SchemaLocation[][] {
  const map = (loc.schema as Record<string, unknown>)[keyword];
  if (map === null || typeof map !== "object" || Array.isArray(map)) return [];
  const base = ctx.doc.baseOf(loc);
  const groups: SchemaLocation[][] = [];
  for (const [key, dep] of Object.entries(map)) {
    const where = `${loc.pointer}/${keyword}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    const absent: SchemaLocation = {
      schema: { type: "object", not: { required: [key] } },
      pointer: `${where}(absent)`,
      base,
    };
    if (Array.isArray(dep)) {
      // `required` holds for non-objects, so two branches cover every value.
      if (dep.length > 0)
        groups.push([absent, { schema: { required: [key, ...dep.map(String)] }, pointer: `${where}(present)`, base }]);
    } else if (dep === true || (dep !== null && typeof dep === "object" && Object.keys(dep).length === 0)) {
    } else if (dep === false || (dep !== null && typeof dep === "object")) {
      // The schema applies only to objects having the key; other values pass untouched.
      groups.push([
        absent,
        { schema: { not: { type: "object" } }, pointer: `${where}(other)`, base },
        { schema: { type: "object", allOf: [{ required: [key] }, dep] }, pointer: `${where}(present)`, base },
      ]);
    } else {
      ctx.relax("dependencies", loc.pointer, keyword, `${JSON.stringify(key)} is neither a key list nor a schema`);
    }
  }
  return groups;
}
