/**
 * Lenient rendering: the relaxations of Python Jinja2's rules that llama.cpp's own Jinja engine
 * makes, for templates written against llama.cpp (Kimi-K2 appends to lists, llama.cpp's
 * deepseek-r1 template dumps a `map` result, firefunction-v2 concatenates a variable nobody
 * passes). This file is the one place they are listed and implemented.
 *
 * The rule that keeps them safe: every relaxation only touches an operation that RAISES under
 * strict (transformers) semantics. A template that renders strictly renders byte-identically in
 * lenient mode (test/oracle/template-parity.test.ts checks this on every golden), so "strict, then
 * lenient when strict raised" never changes a prompt that transformers would produce.
 * (The one observable exception: a mutating method tested with `is defined` is defined.)
 *
 * A template's own `raise_exception(...)` (TemplateError) is never relaxed or retried.
 *
 * @example
 * // {{ "Today is " + datetime }} with no `datetime` variable:
 * //   strict  → TemplateRuntimeError("'datetime' is undefined", "UndefinedError")
 * //   lenient → "Today is "
 */
import { checkLength } from "./limits.js";
import { TemplateError, TemplateRuntimeError } from "./errors.js";
import { PyIterator, PyTuple, PyUndefined, isStr, type PyDict, type PyValue } from "./py-values.js";

/** One relaxation: what strict mode raises, and what lenient mode does instead. */
export interface Relaxation {
  /** Short stable name. */
  id: "mutation" | "chainable-undefined" | "concat-missing" | "iterator-as-list" | "none-iteration";
  /** The Python exceptions strict mode raises there. */
  strictRaises: readonly ("SecurityError" | "UndefinedError" | "TypeError")[];
  /** What lenient mode does instead. */
  rule: string;
}

/**
 * Every relaxation lenient mode makes, each matching llama.cpp's engine (common/jinja).
 *
 * @example
 * for (const r of LENIENT_RELAXATIONS) console.log(`${r.id}: ${r.rule}`);
 */
export const LENIENT_RELAXATIONS: readonly Readonly<Relaxation>[] = Object.freeze(
  (
    [
      {
        id: "mutation",
        strictRaises: ["SecurityError"],
        rule:
          "list.append/extend/insert/pop/remove/reverse/sort/clear and dict.pop/popitem/setdefault/update/clear work " +
          "(transformers' immutable sandbox refuses them; llama.cpp allows them).",
      },
      {
        id: "chainable-undefined",
        strictRaises: ["UndefinedError"],
        rule:
          "`x.attr`, `x[key]` and `x[a:b]` on an undefined value give that undefined value again (Jinja2's " +
          "ChainableUndefined; llama.cpp returns undefined) instead of raising.",
      },
      {
        id: "concat-missing",
        strictRaises: ["UndefinedError", "TypeError"],
        rule:
          '`+` between a string and an undefined value or None treats the missing side as "" (llama.cpp\'s ' +
          "concatenation rule); Python raises UndefinedError or TypeError.",
      },
      {
        id: "iterator-as-list",
        strictRaises: ["TypeError"],
        rule:
          "A one-shot iterator (the result of map, select, reject, selectattr, rejectattr, unique, items, reverse) " +
          "is read as the list of its items where Python needs a real sequence: tojson (at any depth), length, " +
          "count, last, and `+` with a list (llama.cpp's filters return lists). It is not consumed.",
      },
      {
        id: "none-iteration",
        strictRaises: ["TypeError"],
        rule:
          "A `for` loop over None loops zero times (llama.cpp leaves a `tools` the request does not give undefined, " +
          "which Jinja2 iterates as empty; transformers passes None, which raises): a tool-use template renders " +
          "without tools.",
      },
    ] satisfies Relaxation[]
  ).map((r) => Object.freeze(r)),
);

/** Python exception types some relaxation turns into a rendering: the only ones worth a lenient retry. */
const RELAXABLE_ERRORS: ReadonlySet<string> = new Set(LENIENT_RELAXATIONS.flatMap((r) => r.strictRaises));

/**
 * Whether a strict render that threw `e` may render leniently: a runtime error of a type some
 * relaxation addresses. Never a TemplateError (the template's own refusal).
 */
export function isRelaxable(e: unknown): boolean {
  if (e instanceof TemplateError) return false;
  return e instanceof TemplateRuntimeError && RELAXABLE_ERRORS.has(e.pythonType);
}

/** concat-missing: the string `a + b` gives in lenient mode, or undefined when the rule does not apply. */
export function lenientConcat(a: PyValue, b: PyValue): PyValue | undefined {
  const missing = (v: PyValue) => v === null || v instanceof PyUndefined;
  if (isStr(a) && missing(b)) return a;
  if (missing(a) && isStr(b)) return b;
  return undefined;
}

/** iterator-as-list for `+`: `a + b` when one side is an iterator and the other a list/iterator. */
export function lenientListConcat(a: PyValue, b: PyValue): PyValue[] | undefined {
  if (!(a instanceof PyIterator) && !(b instanceof PyIterator)) return undefined;
  const list = (v: PyValue) => (v instanceof PyIterator ? v.peek() : Array.isArray(v) ? v : undefined);
  const x = list(a);
  const y = list(b);
  if (!x || !y) return undefined;
  checkLength(x.length + y.length, "a list", "item");
  return [...x, ...y];
}

/** Filters that iterator-as-list applies to, and whether they read nested values too. */
const LIST_FILTERS: ReadonlyMap<string, boolean> = new Map([
  ["tojson", true],
  ["length", false],
  ["count", false],
  ["last", false],
]);

/**
 * iterator-as-list for filters: `value` with iterators read as lists (nested ones too for
 * tojson). Containers without iterators inside are returned as they are (same identity).
 */
export function listifyForFilter(name: string, value: PyValue): PyValue {
  const deep = LIST_FILTERS.get(name);
  if (deep === undefined) return value;
  if (!deep) return value instanceof PyIterator ? value.peek().slice() : value;
  return listifyDeep(value);
}

function listifyDeep(v: PyValue): PyValue {
  if (v instanceof PyIterator) return v.peek().map(listifyDeep);
  if (Array.isArray(v)) {
    const out = v.map(listifyDeep);
    return out.some((x, i) => x !== v[i]) ? out : v;
  }
  if (v instanceof PyTuple) {
    const out = v.items.map(listifyDeep);
    return out.some((x, i) => x !== v.items[i]) ? new PyTuple(out) : v;
  }
  if (v instanceof Map) {
    let changed = false;
    const out: PyDict = new Map();
    for (const [k, x] of v) {
      const y = listifyDeep(x);
      if (y !== x) changed = true;
      out.set(k, y);
    }
    return changed ? out : v;
  }
  return v;
}
