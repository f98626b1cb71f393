/**
 * Jinja2's builtin filters with Python semantics, plus transformers' `tojson` (plain
 * `json.dumps`, `ensure_ascii=False` by default) and llama.cpp's `from_json`.
 *
 * @example
 * callFilter(env, "join", ["a", "b"], { args: [", "], kwargs: new Map() }); // "a, b"
 */
import {
  PyError,
  PyFloat,
  PyIterator,
  PyMarkup,
  PyTuple,
  PyUndefined,
  failUndefined,
  fromJs,
  htmlEscape,
  isInt,
  isNumber,
  isStr,
  numVal,
  pyRepr,
  pyStr,
  strVal,
  truthy,
  typeName,
  type PyArgs,
  type PyValue,
} from "./py-values.js";
import { binaryOp, iterate, pyCompare, pyEquals, pyLen } from "./py-ops.js";
import { jsonDumps, percentFormat, toFixedPy } from "./py-format.js";
import { pyGetItem, pyAttribute, pySplitlines } from "./py-methods.js";
import { FILTER_NAMES } from "./jinja-tests.js";
import { checkLength, checkedJoin } from "./limits.js";

/** What filters need from the environment: tests and filters by name (for select/map). */
export interface FilterEnv {
  /** `byName`: the test was named in a string (select/reject), not written after `is`. */
  callTest(name: string, value: PyValue, args: PyValue[], byName?: boolean): boolean;
  callFilter(name: string, value: PyValue, args: PyArgs): PyValue;
}

type Filter = (env: FilterEnv, value: PyValue, a: PyArgs) => PyValue;

/** Binds Python-style parameters (positional, then by keyword, then defaults). */
function bind(fname: string, a: PyArgs, params: [string, PyValue?][]): PyValue[] {
  const out: PyValue[] = [];
  if (a.args.length > params.length) {
    throw new PyError(
      "TypeError",
      `${fname}() takes ${params.length + 1} positional arguments but ${a.args.length + 1} were given`,
    );
  }
  for (const k of a.kwargs.keys()) {
    if (!params.some(([p]) => p === k))
      throw new PyError("TypeError", `${fname}() got an unexpected keyword argument '${k}'`);
  }
  params.forEach(([name, dflt], i) => {
    const v = i < a.args.length ? a.args[i] : a.kwargs.get(name);
    if (v === undefined) {
      if (dflt === undefined)
        throw new PyError("TypeError", `${fname}() missing 1 required positional argument: '${name}'`);
      out.push(dflt);
    } else out.push(v);
  });
  return out;
}

function attrParts(attr: PyValue): PyValue[] {
  if (attr === null) return [];
  if (isStr(attr))
    return strVal(attr)
      .split(".")
      .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return [attr];
}

/** Jinja2's make_attrgetter. */
function attrGetter(attr: PyValue, lower: boolean, dflt: PyValue = null): (v: PyValue) => PyValue {
  const parts = attrParts(attr);
  return (item) => {
    let v = item;
    for (const p of parts) {
      v = pyGetItem(v, p);
      if (dflt !== null && v instanceof PyUndefined) v = dflt;
    }
    return lower && isStr(v) ? strVal(v).toLowerCase() : v;
  };
}

function sortKeyed(items: PyValue[], key: (v: PyValue) => PyValue, reverse: boolean): PyValue[] {
  const keyed = items.map((v, i) => ({ v, k: key(v), i }));
  keyed.sort((x, y) => {
    const c = pyCompare(x.k, y.k, "<");
    return c !== 0 ? (reverse ? -c : c) : x.i - y.i;
  });
  return keyed.map((x) => x.v);
}

function pyIntFromString(s: string, base: number): number | null {
  const t = s.trim().replace(/_/g, "");
  const re =
    base === 10
      ? /^[+-]?\d+$/
      : base === 16
        ? /^[+-]?(0x)?[0-9a-f]+$/i
        : base === 8
          ? /^[+-]?(0o)?[0-7]+$/i
          : /^[+-]?(0b)?[01]+$/i;
  if (!re.test(t)) return null;
  const neg = t.startsWith("-");
  const digits = t.replace(/^[+-]/, "").replace(/^0[xob]/i, "");
  const n = parseInt(digits, base);
  return neg ? -n : n;
}

function pyFloatFromString(s: string): number | null {
  const t = s.trim().replace(/_/g, "");
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return Number(t);
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith("-") ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(t)) return NaN;
  return null;
}

function toInt(v: PyValue, dflt: PyValue, base: number): PyValue {
  if (isStr(v)) {
    const n = pyIntFromString(strVal(v), base);
    if (n !== null) return n;
    const f = pyFloatFromString(strVal(v));
    return f !== null && Number.isFinite(f) ? Math.trunc(f) : dflt;
  }
  if (isNumber(v)) {
    const x = numVal(v);
    return Number.isFinite(x) ? Math.trunc(x) : dflt;
  }
  return dflt;
}

function pyRound(x: number, digits: number): number {
  // Python rounds half to even on the exact binary value; x * 10**digits would round first.
  if (digits < 0) return Math.round(x / 10 ** -digits) * 10 ** -digits;
  return Number(toFixedPy(x, digits));
}

function minMax(value: PyValue, a: PyArgs, name: string, sign: number): PyValue {
  const [cs, attr] = bind(`do_${name}`, a, [
    ["case_sensitive", false],
    ["attribute", null],
  ]);
  const items = iterate(value);
  if (items.length === 0) return new PyUndefined(undefined, undefined, "No aggregated item, sequence was empty.");
  const key = attrGetter(attr!, !truthy(cs!));
  let best: PyValue = items[0]!;
  let bestKey = key(best);
  for (const item of items.slice(1)) {
    const k = key(item);
    if (pyCompare(k, bestKey, sign < 0 ? "<" : ">") * sign > 0) {
      best = item;
      bestKey = k;
    }
  }
  return best;
}

function selectOrReject(env: FilterEnv, value: PyValue, a: PyArgs, lookupAttr: boolean, select: boolean): PyValue {
  if (!truthy(value)) return new PyIterator([]);
  const args = a.args.slice();
  let get = (v: PyValue): PyValue => v;
  if (lookupAttr) {
    if (args.length === 0) throw new PyError("FilterArgumentError", "Missing parameter for attribute name");
    get = attrGetter(args.shift()!, false);
  }
  let test: (v: PyValue) => boolean = truthy;
  if (args.length > 0) {
    const name = args.shift()!;
    test = (v) => env.callTest(pyStr(name), v, args, true);
  }
  return new PyIterator(iterate(value).filter((item) => test(get(item)) === select));
}

const FILTERS: Record<string, Filter> = {
  abs: (_e, v) => {
    if (!isNumber(v)) throw new PyError("TypeError", `bad operand type for abs(): '${typeName(v)}'`);
    return v instanceof PyFloat ? new PyFloat(Math.abs(v.value)) : Math.abs(numVal(v));
  },
  attr: (_e, v, a) => {
    const [name] = bind("do_attr", a, [["name"]]);
    const attr = pyAttribute(v, pyStr(name!));
    return attr !== undefined ? attr : new PyUndefined(pyStr(name!), v);
  },
  capitalize: (_e, v) => {
    const s = pyStr(v);
    return s.length ? s[0]!.toUpperCase() + s.slice(1).toLowerCase() : s;
  },
  center: (_e, v, a) => {
    const [w] = bind("do_center", a, [["width", 80]]);
    const s = pyStr(v);
    const n = Math.max(0, numVal(w as number) - s.length);
    checkLength(s.length + n, "a centered string");
    const left = Math.floor(n / 2) + (n & numVal(w as number) & 1);
    return " ".repeat(left) + s + " ".repeat(n - left);
  },
  count: (_e, v) => pyLen(v),
  default: (_e, v, a) => {
    const [d, boolean] = bind("do_default", a, [
      ["default_value", ""],
      ["boolean", false],
    ]);
    return v instanceof PyUndefined || (truthy(boolean!) && !truthy(v)) ? d! : v;
  },
  dictsort: (_e, v, a) => {
    const [cs, by, reverse] = bind("do_dictsort", a, [
      ["case_sensitive", false],
      ["by", "key"],
      ["reverse", false],
    ]);
    if (v instanceof PyUndefined) failUndefined(v);
    if (!(v instanceof Map)) throw new PyError("AttributeError", `'${typeName(v)}' object has no attribute 'items'`);
    const pos = pyStr(by!) === "key" ? 0 : pyStr(by!) === "value" ? 1 : -1;
    if (pos < 0) throw new PyError("FilterArgumentError", 'You can only sort by either "key" or "value"');
    const items = Array.from(v.entries(), ([k, x]) => new PyTuple([k, x]));
    return sortKeyed(
      items,
      (t) => {
        const x = (t as PyTuple).items[pos]!;
        return !truthy(cs!) && isStr(x) ? strVal(x).toLowerCase() : x;
      },
      truthy(reverse!),
    );
  },
  escape: (_e, v) => (v instanceof PyMarkup ? v : new PyMarkup(htmlEscape(pyStr(v)))),
  first: (_e, v) => {
    const items = iterate(v);
    return items.length ? items[0]! : new PyUndefined(undefined, undefined, "No first item, sequence was empty.");
  },
  float: (_e, v, a) => {
    const [d] = bind("do_float", a, [["default", new PyFloat(0)]]);
    if (isNumber(v)) return new PyFloat(numVal(v));
    if (isStr(v)) {
      const f = pyFloatFromString(strVal(v));
      return f === null ? d! : new PyFloat(f);
    }
    return d!;
  },
  forceescape: (_e, v) => new PyMarkup(htmlEscape(pyStr(v))),
  format: (_e, v, a) => {
    if (a.args.length && a.kwargs.size) {
      throw new PyError("FilterArgumentError", "can't handle positional and keyword arguments at the same time");
    }
    return percentFormat(pyStr(v), a.kwargs.size ? (a.kwargs as Map<string, PyValue>) : new PyTuple(a.args));
  },
  from_json: (_e, v) => {
    try {
      return fromJs(JSON.parse(pyStr(v)));
    } catch (e) {
      throw new PyError("JSONDecodeError", (e as Error).message);
    }
  },
  indent: (_e, v, a) => {
    const [width, first, blank] = bind("do_indent", a, [
      ["width", 4],
      ["first", false],
      ["blank", false],
    ]);
    if (v instanceof PyUndefined) failUndefined(v); // Python: `s += "\n"` on Undefined
    const ind = isStr(width!) ? strVal(width) : " ".repeat(numVal(width as number));
    const s = pyStr(v) + "\n";
    checkLength(s.length + pySplitlines(s).length * ind.length, "an indented string");
    let rv: string;
    if (truthy(blank!)) rv = pySplitlines(s).join("\n" + ind);
    else {
      const lines = pySplitlines(s);
      rv = lines.shift() ?? "";
      if (lines.length) rv += "\n" + lines.map((l) => (l ? ind + l : l)).join("\n");
    }
    return truthy(first!) ? ind + rv : rv;
  },
  int: (_e, v, a) => {
    const [d, base] = bind("do_int", a, [
      ["default", 0],
      ["base", 10],
    ]);
    return toInt(v, d!, numVal(base as number));
  },
  items: (_e, v) => {
    if (v instanceof PyUndefined) return new PyIterator([]);
    if (!(v instanceof Map)) throw new PyError("TypeError", "Can only get item pairs from a mapping.");
    return new PyIterator(Array.from(v.entries(), ([k, x]) => new PyTuple([k, x])));
  },
  join: (_e, v, a) => {
    const [d, attr] = bind("do_join", a, [
      ["d", ""],
      ["attribute", null],
    ]);
    let items = iterate(v);
    if (attr !== null) items = items.map(attrGetter(attr!, false));
    return checkedJoin(items.map(pyStr), pyStr(d!));
  },
  last: (_e, v) => {
    if (v instanceof PyIterator || v instanceof Map) {
      throw new PyError("TypeError", `'${typeName(v)}' object is not reversible`);
    }
    const items = iterate(v);
    return items.length
      ? items[items.length - 1]!
      : new PyUndefined(undefined, undefined, "No last item, sequence was empty.");
  },
  length: (_e, v) => pyLen(v),
  list: (_e, v) => iterate(v).slice(),
  lower: (_e, v) => pyStr(v).toLowerCase(),
  map: (env, v, a) => {
    const items = iterate(v);
    if (a.args.length === 0 && a.kwargs.has("attribute")) {
      const kw = new Map(a.kwargs);
      const attr = kw.get("attribute")!;
      kw.delete("attribute");
      const dflt = kw.get("default") ?? null;
      kw.delete("default");
      if (kw.size)
        throw new PyError("FilterArgumentError", `Unexpected keyword argument ${pyRepr(kw.keys().next().value!)}`);
      return new PyIterator(items.map(attrGetter(attr, false, dflt)));
    }
    if (a.args.length === 0) throw new PyError("FilterArgumentError", "map requires a filter argument");
    const name = pyStr(a.args[0]!);
    const rest: PyArgs = { args: a.args.slice(1), kwargs: a.kwargs };
    return new PyIterator(items.map((x) => env.callFilter(name, x, rest)));
  },
  max: (_e, v, a) => minMax(v, a, "max", 1),
  min: (_e, v, a) => minMax(v, a, "min", -1),
  pprint: (_e, v) => pyRepr(v),
  reject: (env, v, a) => selectOrReject(env, v, a, false, false),
  rejectattr: (env, v, a) => selectOrReject(env, v, a, true, false),
  replace: (_e, v, a) => {
    const [o, n, count] = bind("do_replace", a, [["old"], ["new"], ["count", null]]);
    const s = pyStr(v);
    const method = pyAttribute(s, "replace") as { fn: (x: PyArgs) => PyValue };
    const args = count === null ? [pyStr(o!), pyStr(n!)] : [pyStr(o!), pyStr(n!), count!];
    return method.fn({ args, kwargs: new Map() });
  },
  reverse: (_e, v) => {
    if (isStr(v)) return Array.from(strVal(v)).reverse().join("");
    if (Array.isArray(v) || v instanceof PyTuple) {
      return new PyIterator(iterate(v).slice().reverse(), Array.isArray(v) ? "list_reverseiterator" : "reversed");
    }
    return iterate(v).slice().reverse();
  },
  round: (_e, v, a) => {
    const [prec, method] = bind("do_round", a, [
      ["precision", 0],
      ["method", "common"],
    ]);
    if (!isNumber(v)) throw new PyError("TypeError", `type ${typeName(v)} doesn't define __round__ method`);
    const x = numVal(v);
    const p = numVal(prec as number);
    const m = pyStr(method!);
    if (m === "common") return new PyFloat(pyRound(x, p));
    if (m === "ceil") return new PyFloat(Math.ceil(x * 10 ** p) / 10 ** p);
    if (m === "floor") return new PyFloat(Math.floor(x * 10 ** p) / 10 ** p);
    throw new PyError("FilterArgumentError", "method must be common, ceil or floor");
  },
  safe: (_e, v) => (v instanceof PyMarkup ? v : new PyMarkup(pyStr(v))),
  select: (env, v, a) => selectOrReject(env, v, a, false, true),
  selectattr: (env, v, a) => selectOrReject(env, v, a, true, true),
  sort: (_e, v, a) => {
    const [reverse, cs, attr] = bind("do_sort", a, [
      ["reverse", false],
      ["case_sensitive", false],
      ["attribute", null],
    ]);
    const items = iterate(v);
    const attrs = attr !== null && isStr(attr!) ? strVal(attr).split(",") : [attr!];
    const getters = attrs.map((x) => attrGetter(x, !truthy(cs!)));
    // Jinja2 sorts by a list of attribute values, so equal (even Undefined) keys never get ordered.
    return sortKeyed(items, (x) => getters.map((g) => g(x)), truthy(reverse!));
  },
  string: (_e, v) => (v instanceof PyMarkup ? v : pyStr(v)),
  striptags: (_e, v) =>
    pyStr(v)
      .replace(/<!--.*?-->|<[^>]*>/gs, "")
      .replace(/\s+/g, " ")
      .trim(),
  sum: (_e, v, a) => {
    const [attr, start] = bind("do_sum", a, [
      ["attribute", null],
      ["start", 0],
    ]);
    let items = iterate(v);
    if (attr !== null) items = items.map(attrGetter(attr!, false));
    return items.reduce<PyValue>((acc, x) => binaryOp("+", acc, x), start!);
  },
  title: (_e, v) =>
    pyStr(v)
      .split(/([-\s({[<]+)/u)
      .filter((x) => x !== "")
      .map((w) => (/^[-\s({[<]+$/u.test(w) ? w : w[0]!.toUpperCase() + w.slice(1).toLowerCase()))
      .join(""),
  tojson: (_e, v, a) => {
    const [ensureAscii, indent, separators, sortKeys] = bind("tojson", a, [
      ["ensure_ascii", false],
      ["indent", null],
      ["separators", null],
      ["sort_keys", false],
    ]);
    let seps: [string, string] | null = null;
    if (separators !== null) {
      const parts = iterate(separators!);
      if (parts.length !== 2)
        throw new PyError("ValueError", `not enough values to unpack (expected 2, got ${parts.length})`);
      seps = [pyStr(parts[0]!), pyStr(parts[1]!)];
    }
    const ind = indent === null ? null : isStr(indent!) ? strVal(indent) : isInt(indent!) ? numVal(indent) : null;
    return jsonDumps(v, {
      ensureAscii: truthy(ensureAscii!),
      indent: ind,
      separators: seps,
      sortKeys: truthy(sortKeys!),
    });
  },
  trim: (_e, v, a) => {
    const [chars] = bind("do_trim", a, [["chars", null]]);
    const strip = pyAttribute(pyStr(v), "strip") as { fn: (x: PyArgs) => PyValue };
    return strip.fn({ args: chars === null ? [] : [chars!], kwargs: new Map() });
  },
  truncate: (_e, v, a) => {
    const [length, killwords, end, leeway] = bind("do_truncate", a, [
      ["length", 255],
      ["killwords", false],
      ["end", "..."],
      ["leeway", 5],
    ]);
    const len = numVal(length as number);
    if (pyLen(v) <= len + numVal(leeway as number)) return v;
    const s = pyStr(v);
    const e = pyStr(end!);
    if (truthy(killwords!)) return s.slice(0, len - e.length) + e;
    const cut = s.slice(0, len - e.length);
    const i = cut.lastIndexOf(" ");
    return (i >= 0 ? cut.slice(0, i) : cut) + e;
  },
  unique: (_e, v, a) => {
    const [cs, attr] = bind("do_unique", a, [
      ["case_sensitive", false],
      ["attribute", null],
    ]);
    const key = attrGetter(attr!, !truthy(cs!));
    const seen: PyValue[] = [];
    const out: PyValue[] = [];
    for (const item of iterate(v)) {
      const k = key(item);
      if (!seen.some((s) => pyEquals(s, k))) {
        seen.push(k);
        out.push(item);
      }
    }
    return new PyIterator(out);
  },
  upper: (_e, v) => pyStr(v).toUpperCase(),
  wordcount: (_e, v) => (pyStr(v).match(/\w+/gu) ?? []).length,
};
FILTERS.d = FILTERS.default!;
FILTERS.e = FILTERS.escape!;
for (const name of Object.keys(FILTERS)) FILTER_NAMES.add(name);

/** Whether a filter of this name exists (Jinja2 rejects unknown filters at compile time). */
export function hasFilter(name: string): boolean {
  return Object.hasOwn(FILTERS, name);
}

/** Applies filter `name` to `value`. */
export function callFilter(env: FilterEnv, name: string, value: PyValue, args: PyArgs, byName = false): PyValue {
  const f = Object.hasOwn(FILTERS, name) ? FILTERS[name] : undefined;
  // A filter written in the template fails "... found."; one named in a string (map) fails without it.
  if (!f) throw new PyError("TemplateRuntimeError", `No filter named '${name}'${byName ? "" : " found"}.`);
  return f(env, value, args);
}
