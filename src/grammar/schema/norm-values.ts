/**
 * What a normalised constraint set ({@link Norm}) allows: its effective types, whether it constrains anything,
 * which enum values pass its scalar keywords, and its identity (what was merged, the anyOf groups still open).
 */
import { ALL_TYPES, type Norm, type TypeName, jsonEqual } from "./schema-normalize.js";

/** Identity of a merged constraint set: what was merged, plus the anyOf groups still open. */
export function normKey(doc: number, n: Norm): string {
  return `${doc}|${[...n.merged].sort().join("|")}|${n.anyOf.map((g) => g.map((l) => l.pointer).join(",")).join(";")}`;
}

export function effectiveTypes(n: Norm): TypeName[] {
  const t = n.types ?? new Set(ALL_TYPES);
  const out = [...t];
  // number covers integer.
  return t.has("number") ? out.filter((x) => x !== "integer") : out;
}

export function isUnconstrained(n: Norm): boolean {
  return (
    n.types === null &&
    n.enumValues === null &&
    n.touched.size === 0 &&
    n.notValues.length === 0 &&
    n.required.size === 0 &&
    n.forbidden.size === 0 &&
    n.never === null
  );
}

export function typeOf(v: unknown): TypeName {
  if (v === null) return "null";
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (typeof v === "string") return "string";
  return Array.isArray(v) ? "array" : "object";
}

/** Whether an enum value passes the other scalar keywords (so it is not offered by the grammar for nothing). */
export function valueAllowed(n: Norm, v: unknown): boolean {
  const t = typeOf(v);
  if (n.types && !n.types.has(t) && !(t === "integer" && n.types.has("number"))) return false;
  if (n.notValues.some((w) => jsonEqual(v, w))) return false;
  if (typeof v === "string") {
    const len = [...v].length;
    if (len < n.minLength || (n.maxLength !== null && len > n.maxLength)) return false;
    for (const p of n.patterns) {
      try {
        if (!new RegExp(p.source, "u").test(v)) return false;
      } catch {
        // Not a JS regex: keep the value.
      }
    }
  }
  if (typeof v === "number") {
    if (n.minimum && (v < n.minimum.value || (n.minimum.strict && v === n.minimum.value))) return false;
    if (n.maximum && (v > n.maximum.value || (n.maximum.strict && v === n.maximum.value))) return false;
  }
  return true;
}
