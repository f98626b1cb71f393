/**
 * Jinja2's builtin tests (`x is defined`, `x is string`, ...), with Python's type rules
 * (bool counts as a number; a dict is a sequence; Undefined is iterable).
 *
 * @example
 * JINJA_TESTS.get("mapping")!(new Map(), []); // true
 */
import {
  PyFloat,
  PyIterator,
  PyMarkup,
  PyRange,
  PyTuple,
  PyUndefined,
  isStr,
  numVal,
  strVal,
  type PyValue,
} from "./py-values.js";
import { binaryOp, isCallable, pyCompare, pyContains, pyEquals } from "./py-ops.js";

export type JinjaTest = (value: PyValue, args: PyValue[]) => boolean;

function isSequence(v: PyValue): boolean {
  return (
    isStr(v) ||
    Array.isArray(v) ||
    v instanceof PyTuple ||
    v instanceof Map ||
    v instanceof PyRange ||
    v instanceof PyUndefined
  );
}

const cmp =
  (op: string, pred: (c: number) => boolean): JinjaTest =>
  (v, [o]) =>
    pred(pyCompare(v, o ?? null, op));

export const JINJA_TESTS: ReadonlyMap<string, JinjaTest> = new Map<string, JinjaTest>([
  ["defined", (v) => !(v instanceof PyUndefined)],
  ["undefined", (v) => v instanceof PyUndefined],
  ["none", (v) => v === null],
  ["boolean", (v) => typeof v === "boolean"],
  ["false", (v) => v === false],
  ["true", (v) => v === true],
  ["integer", (v) => typeof v === "number"],
  ["float", (v) => v instanceof PyFloat],
  ["number", (v) => typeof v === "number" || typeof v === "boolean" || v instanceof PyFloat],
  ["string", (v) => isStr(v)],
  ["mapping", (v) => v instanceof Map],
  ["iterable", (v) => isSequence(v) || v instanceof PyIterator],
  ["sequence", isSequence],
  ["callable", (v) => isCallable(v)],
  ["lower", (v) => isStr(v) && /\p{Ll}/u.test(strVal(v)) && strVal(v) === strVal(v).toLowerCase()],
  ["upper", (v) => isStr(v) && /\p{Lu}/u.test(strVal(v)) && strVal(v) === strVal(v).toUpperCase()],
  ["odd", (v) => pyEquals(binaryOp("%", v, 2), 1)],
  ["even", (v) => pyEquals(binaryOp("%", v, 2), 0)],
  ["divisibleby", (v, [n]) => pyEquals(binaryOp("%", v, n ?? null), 0)],
  ["eq", (v, [o]) => pyEquals(v, o ?? null)],
  ["equalto", (v, [o]) => pyEquals(v, o ?? null)],
  ["==", (v, [o]) => pyEquals(v, o ?? null)],
  ["ne", (v, [o]) => !pyEquals(v, o ?? null)],
  ["!=", (v, [o]) => !pyEquals(v, o ?? null)],
  ["lt", cmp("<", (c) => c < 0)],
  ["lessthan", cmp("<", (c) => c < 0)],
  ["<", cmp("<", (c) => c < 0)],
  ["le", cmp("<=", (c) => c <= 0)],
  ["<=", cmp("<=", (c) => c <= 0)],
  ["gt", cmp(">", (c) => c > 0)],
  ["greaterthan", cmp(">", (c) => c > 0)],
  [">", cmp(">", (c) => c > 0)],
  ["ge", cmp(">=", (c) => c >= 0)],
  [">=", cmp(">=", (c) => c >= 0)],
  ["in", (v, [seq]) => pyContains(seq ?? null, v)],
  ["sameas", (v, [o]) => v === o || (typeof v === "number" && typeof o === "number" && numVal(v) === numVal(o))],
  ["escaped", (v) => v instanceof PyMarkup],
  ["filter", (v) => isStr(v) && FILTER_NAMES.has(strVal(v))],
  ["test", (v) => isStr(v) && JINJA_TESTS.has(strVal(v))],
]);

/** Filter names known to the environment (set by the filters module, read by the `filter` test). */
export const FILTER_NAMES = new Set<string>();
