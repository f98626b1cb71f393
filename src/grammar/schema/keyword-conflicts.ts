/**
 * Keyword pairs of one schema object that contradict each other: `minLength` above `maxLength`,
 * `minimum` above `maximum`, exclusive bounds that leave no number, more required keys than
 * `maxProperties`... Two bounds written side by side that exclude every value of their type are
 * an authoring mistake; the converter refuses them with a SchemaError naming the pointer rather
 * than emit a grammar that silently drops (or, worse, mis-shapes) that type. The check is per
 * object, on the keywords as written: a contradiction that only appears when several subschemas
 * are merged (allOf, `$ref` + siblings) is left to the generators, which emit nothing for it.
 * Keywords of a type the object's own `type` excludes are not checked (they never apply).
 */
import { SchemaError } from "./schema-error.js";

type Family = "string" | "number" | "array" | "object";

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** Whether the object's `type` (absent: any) lets keywords of `family` apply. */
function applies(o: Record<string, unknown>, family: Family): boolean {
  if (o.type === undefined) return true;
  const types = Array.isArray(o.type) ? o.type : [o.type];
  return types.some((t) => t === family || (family === "number" && t === "integer"));
}

/** Whether the object's `type` admits integers only (so bounds must leave an integer). */
function integersOnly(o: Record<string, unknown>): boolean {
  const types = Array.isArray(o.type) ? o.type : [o.type];
  return types.includes("integer") && !types.includes("number");
}

function countPair(o: Record<string, unknown>, pointer: string, lo: string, hi: string, what: string): void {
  const a = num(o[lo]);
  const b = num(o[hi]);
  if (a !== null && b !== null && a > b)
    throw new SchemaError(pointer, `${lo}/${hi}`, `${lo} ${a} exceeds ${hi} ${b}: no ${what} satisfies both`);
}

interface Bound {
  value: number;
  strict: boolean;
  keyword: string;
}

/** The tightest lower and upper bound the object writes (draft 4 boolean exclusives included). */
function numericBounds(o: Record<string, unknown>): [Bound | null, Bound | null] {
  let lo: Bound | null = null;
  let hi: Bound | null = null;
  const lower = (b: Bound): void => {
    if (lo === null || b.value > lo.value || (b.value === lo.value && b.strict)) lo = b;
  };
  const upper = (b: Bound): void => {
    if (hi === null || b.value < hi.value || (b.value === hi.value && b.strict)) hi = b;
  };
  const min = num(o.minimum);
  const max = num(o.maximum);
  if (min !== null) lower({ value: min, strict: o.exclusiveMinimum === true, keyword: "minimum" });
  if (max !== null) upper({ value: max, strict: o.exclusiveMaximum === true, keyword: "maximum" });
  const exMin = num(o.exclusiveMinimum);
  const exMax = num(o.exclusiveMaximum);
  if (exMin !== null) lower({ value: exMin, strict: true, keyword: "exclusiveMinimum" });
  if (exMax !== null) upper({ value: exMax, strict: true, keyword: "exclusiveMaximum" });
  return [lo, hi];
}

function checkNumericBounds(o: Record<string, unknown>, pointer: string): void {
  const [lo, hi] = numericBounds(o);
  if (lo === null || hi === null) return;
  const keyword = `${lo.keyword}/${hi.keyword}`;
  const empty = lo.value > hi.value || (lo.value === hi.value && (lo.strict || hi.strict));
  if (empty)
    throw new SchemaError(pointer, keyword, `${lo.keyword} ${lo.value} and ${hi.keyword} ${hi.value} leave no number`);
  if (!integersOnly(o)) return;
  // The least and greatest integers within the bounds.
  const first = Number.isInteger(lo.value) ? lo.value + (lo.strict ? 1 : 0) : Math.ceil(lo.value);
  const last = Number.isInteger(hi.value) ? hi.value - (hi.strict ? 1 : 0) : Math.floor(hi.value);
  if (first > last)
    throw new SchemaError(pointer, keyword, `${lo.keyword} ${lo.value} and ${hi.keyword} ${hi.value} leave no integer`);
}

function checkObjectCounts(o: Record<string, unknown>, pointer: string): void {
  countPair(o, pointer, "minProperties", "maxProperties", "object");
  const max = num(o.maxProperties);
  if (max === null || !Array.isArray(o.required)) return;
  const required = new Set(o.required.filter((k) => typeof k === "string"));
  if (required.size > max)
    throw new SchemaError(
      pointer,
      "required/maxProperties",
      `${required.size} required properties exceed maxProperties ${max}: no object satisfies both`,
    );
}

/**
 * Throws a {@link SchemaError} naming `pointer` when two keywords of `schema` exclude every value
 * of the type they constrain.
 *
 * @example
 * checkKeywordConflicts({ minLength: 10, maxLength: 2 }, "#/properties/code"); // throws SchemaError
 */
export function checkKeywordConflicts(schema: Record<string, unknown>, pointer: string): void {
  if (applies(schema, "string")) countPair(schema, pointer, "minLength", "maxLength", "string");
  if (applies(schema, "number")) checkNumericBounds(schema, pointer);
  if (applies(schema, "array")) {
    countPair(schema, pointer, "minItems", "maxItems", "array");
    if (schema.contains !== undefined) countPair(schema, pointer, "minContains", "maxContains", "array");
  }
  if (applies(schema, "object")) checkObjectCounts(schema, pointer);
}
