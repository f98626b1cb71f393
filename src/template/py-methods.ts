/**
 * Python attributes of builtin values (str/dict/list methods) as the immutable sandbox exposes
 * them: mutating methods (list.append, dict.update, ...) come back as "unsafe" undefineds that
 * raise SecurityError when used, exactly like transformers' ImmutableSandboxedEnvironment.
 *
 * @example
 * const strip = pyAttribute("  hi ", "strip"); // bound PyCallable
 */
import {
  LoopContext,
  PyCallable,
  PyError,
  PyMarkup,
  PyNamespace,
  PyTuple,
  PyUndefined,
  isInt,
  isStr,
  numVal,
  pyRepr,
  pyStr,
  strVal,
  typeName,
  undefinedMessage,
  type PyArgs,
  type PyDict,
  type PyValue,
} from "./py-values.js";
import { dictGet, iterate, pyEquals } from "./py-ops.js";
import { strFormat } from "./py-format.js";
import { checkLength, checkedJoin } from "./limits.js";
import { mutatingMethod } from "./py-mutating.js";

const UNSAFE: Record<string, Set<string>> = {
  list: new Set(["append", "clear", "pop", "reverse", "insert", "sort", "extend", "remove"]),
  dict: new Set(["clear", "pop", "popitem", "setdefault", "update"]),
};

function unsafe(obj: PyValue, name: string): PyUndefined {
  return new PyUndefined(
    name,
    obj,
    `access to attribute ${pyRepr(name)} of ${pyRepr(typeName(obj))} object is unsafe.`,
    "SecurityError",
  );
}

function arg(a: PyArgs, i: number, name: string): PyValue | undefined {
  return i < a.args.length ? a.args[i] : a.kwargs.get(name);
}

function optStr(a: PyArgs, i: number, name: string, method: string): string | null {
  const v = arg(a, i, name);
  if (v === undefined || v === null) return null;
  if (!isStr(v)) throw new PyError("TypeError", `${method} arg must be None or str`);
  return strVal(v);
}

const PY_WS = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";

const WS_LEFT = new RegExp(`^[${PY_WS}]+`, "u");
const WS_RIGHT = new RegExp(`[${PY_WS}]+$`, "u");
const WS_RUN = new RegExp(`[${PY_WS}]+`, "u");
const WS_ONLY = new RegExp(`^[${PY_WS}]+$`, "u");

function stripChars(s: string, chars: string | null, left: boolean, right: boolean): string {
  if (chars === "") return s;
  if (chars === null) {
    let out = s;
    if (left) out = out.replace(WS_LEFT, "");
    if (right) out = out.replace(WS_RIGHT, "");
    return out;
  }
  // Explicit chars: scan by code point instead of building a RegExp per call.
  const set = new Set(Array.from(chars));
  const cps = Array.from(s);
  let b = 0;
  let e = cps.length;
  if (left) while (b < e && set.has(cps[b]!)) b++;
  if (right) while (e > b && set.has(cps[e - 1]!)) e--;
  return b === 0 && e === cps.length ? s : cps.slice(b, e).join("");
}

/** Python `str.split(sep=None, maxsplit=-1)`. */
export function pySplit(s: string, sep: string | null, maxsplit: number): string[] {
  if (sep === null) {
    const out: string[] = [];
    let rest = s.replace(WS_LEFT, "");
    while (rest !== "") {
      if (maxsplit >= 0 && out.length >= maxsplit) {
        out.push(rest);
        break;
      }
      const m = WS_RUN.exec(rest);
      if (!m) {
        out.push(rest);
        break;
      }
      out.push(rest.slice(0, m.index));
      rest = rest.slice(m.index + m[0].length);
    }
    return out;
  }
  if (sep === "") throw new PyError("ValueError", "empty separator");
  const parts = s.split(sep);
  if (maxsplit >= 0 && parts.length > maxsplit + 1) {
    return [...parts.slice(0, maxsplit), parts.slice(maxsplit).join(sep)];
  }
  return parts;
}

function pyRsplit(s: string, sep: string | null, maxsplit: number): string[] {
  if (maxsplit < 0) return pySplit(s, sep, -1);
  if (sep === null) {
    const rev = pySplit(Array.from(s).reverse().join(""), null, maxsplit);
    return rev.map((p) => Array.from(p).reverse().join("")).reverse();
  }
  if (sep === "") throw new PyError("ValueError", "empty separator");
  const parts = s.split(sep);
  if (parts.length > maxsplit + 1) {
    const head = parts.slice(0, parts.length - maxsplit).join(sep);
    return [head, ...parts.slice(parts.length - maxsplit)];
  }
  return parts;
}

/** Python `str.splitlines(keepends=False)`. */
export function pySplitlines(s: string, keepends = false): string[] {
  const out: string[] = [];
  const re = /\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]/g;
  let last = 0;
  for (const m of s.matchAll(re)) {
    out.push(s.slice(last, keepends ? m.index! + m[0].length : m.index));
    last = m.index! + m[0].length;
  }
  if (last < s.length) out.push(s.slice(last));
  return out;
}

function prefixes(v: PyValue, method: string): string[] {
  if (isStr(v)) return [strVal(v)];
  if (v instanceof PyTuple) return v.items.map((x) => (isStr(x) ? strVal(x) : pyStr(x)));
  throw new PyError("TypeError", `${method} first arg must be str or a tuple of str, not ${typeName(v)}`);
}

function pyTitle(s: string): string {
  return s.replace(/[\p{L}\p{N}]+/gu, (w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase());
}

function intArg(a: PyArgs, i: number, name: string, dflt: number): number {
  const v = arg(a, i, name);
  if (v === undefined || v === null) return dflt;
  if (!isInt(v)) throw new PyError("TypeError", `'${typeName(v)}' object cannot be interpreted as an integer`);
  return numVal(v);
}

function strMethod(s: string, name: string, markup: boolean): ((a: PyArgs) => PyValue) | undefined {
  const wrap = (r: string): PyValue => (markup ? new PyMarkup(r) : r);
  switch (name) {
    case "strip":
    case "lstrip":
    case "rstrip":
      return (a) => wrap(stripChars(s, optStr(a, 0, "chars", name), name !== "rstrip", name !== "lstrip"));
    case "upper":
      return () => wrap(s.toUpperCase());
    case "lower":
      return () => wrap(s.toLowerCase());
    case "casefold":
      return () => s.toLowerCase();
    case "swapcase":
      return () => wrap(Array.from(s, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join(""));
    case "title":
      return () => wrap(pyTitle(s));
    case "capitalize":
      return () => wrap(s.length ? s[0]!.toUpperCase() + s.slice(1).toLowerCase() : s);
    case "split":
      return (a) => pySplit(s, optStr(a, 0, "sep", name), intArg(a, 1, "maxsplit", -1)).map(wrap);
    case "rsplit":
      return (a) => pyRsplit(s, optStr(a, 0, "sep", name), intArg(a, 1, "maxsplit", -1)).map(wrap);
    case "splitlines":
      return (a) => pySplitlines(s, Boolean(arg(a, 0, "keepends"))).map(wrap);
    case "startswith":
    case "endswith":
      return (a) => {
        const p = arg(a, 0, "prefix");
        if (p === undefined) throw new PyError("TypeError", `${name}() takes at least 1 argument (0 given)`);
        const start = intArg(a, 1, "start", 0);
        const sub = s.slice(start);
        return prefixes(p, name).some((x) => (name === "startswith" ? sub.startsWith(x) : sub.endsWith(x)));
      };
    case "replace":
      return (a) => {
        const o = arg(a, 0, "old");
        const n = arg(a, 1, "new");
        if (o === undefined || n === undefined || !isStr(o) || !isStr(n)) {
          throw new PyError("TypeError", "replace() argument must be str");
        }
        return wrap(pyReplace(s, strVal(o), strVal(n), intArg(a, 2, "count", -1)));
      };
    case "find":
    case "rfind":
    case "index":
    case "rindex":
    case "count":
      return (a) => {
        const sub = arg(a, 0, "sub");
        if (sub === undefined || !isStr(sub))
          throw new PyError("TypeError", `must be str, not ${typeName(sub ?? null)}`);
        const t = strVal(sub);
        if (name === "count") return t === "" ? s.length + 1 : s.split(t).length - 1;
        const i = name.startsWith("r") ? s.lastIndexOf(t) : s.indexOf(t);
        if (i < 0 && name.endsWith("index")) throw new PyError("ValueError", "substring not found");
        return i;
      };
    case "join":
      return (a) =>
        wrap(
          checkedJoin(
            iterate(a.args[0] ?? []).map((x) => {
              if (!isStr(x))
                throw new PyError("TypeError", `sequence item 0: expected str instance, ${typeName(x)} found`);
              return strVal(x);
            }),
            s,
          ),
        );
    case "format":
      return (a) => wrap(strFormat(s, a.args, a.kwargs, (obj, key) => pyGetItem(obj, key)));
    case "isdigit":
    case "isnumeric":
    case "isdecimal":
      return () => s.length > 0 && /^\p{Nd}+$/u.test(s);
    case "isalpha":
      return () => s.length > 0 && /^\p{L}+$/u.test(s);
    case "isalnum":
      return () => s.length > 0 && /^[\p{L}\p{N}]+$/u.test(s);
    case "isspace":
      return () => s.length > 0 && WS_ONLY.test(s);
    case "isupper":
      return () => /\p{Lu}/u.test(s) && s === s.toUpperCase();
    case "islower":
      return () => /\p{Ll}/u.test(s) && s === s.toLowerCase();
    case "removeprefix":
      return (a) => {
        const p = strVal(arg(a, 0, "prefix") as string);
        return wrap(s.startsWith(p) ? s.slice(p.length) : s);
      };
    case "removesuffix":
      return (a) => {
        const p = strVal(arg(a, 0, "suffix") as string);
        return wrap(p !== "" && s.endsWith(p) ? s.slice(0, -p.length) : s);
      };
    case "zfill":
      return (a) => {
        const w = intArg(a, 0, "width", 0);
        const sign = /^[+-]/.test(s) ? s[0]! : "";
        checkLength(w, "a padded string");
        return sign + s.slice(sign.length).padStart(w - sign.length, "0");
      };
    case "center":
    case "ljust":
    case "rjust":
      return (a) => {
        const w = intArg(a, 0, "width", 0);
        const fill = a.args[1] !== undefined ? strVal(a.args[1] as string) : " ";
        const n = Math.max(0, w - s.length);
        checkLength(s.length + n * fill.length, "a padded string");
        if (name === "ljust") return s + fill.repeat(n);
        if (name === "rjust") return fill.repeat(n) + s;
        const left = Math.floor(n / 2) + (n & w & 1);
        return fill.repeat(left) + s + fill.repeat(n - left);
      };
    case "partition":
    case "rpartition":
      return (a) => {
        const sep = strVal(arg(a, 0, "sep") as string);
        const i = name === "partition" ? s.indexOf(sep) : s.lastIndexOf(sep);
        if (i < 0) return name === "partition" ? new PyTuple([s, "", ""]) : new PyTuple(["", "", s]);
        return new PyTuple([s.slice(0, i), sep, s.slice(i + sep.length)]);
      };
    case "encode":
      return () => s;
    case "expandtabs":
      return () => s.replace(/\t/g, "        ");
  }
  return undefined;
}

/** Python `str.replace(old, new, count)`. */
export function pyReplace(s: string, old: string, repl: string, count: number): string {
  if (count < 0) {
    if (old === "") return repl + checkedJoin(Array.from(s), repl) + repl;
    return checkedJoin(s.split(old), repl);
  }
  let out = s;
  let from = 0;
  for (let n = 0; n < count; n++) {
    const i = out.indexOf(old, from);
    if (i < 0) break;
    out = out.slice(0, i) + repl + out.slice(i + old.length);
    from = i + repl.length + (old === "" ? 1 : 0);
  }
  return out;
}

function dictMethod(d: PyDict, name: string): ((a: PyArgs) => PyValue) | undefined {
  switch (name) {
    case "get":
      return (a) => {
        const k = a.args[0];
        if (k === undefined) throw new PyError("TypeError", "get expected at least 1 argument, got 0");
        const v = dictGet(d, k);
        return v !== undefined ? v : (a.args[1] ?? null);
      };
    case "items":
      return () => Array.from(d.entries(), ([k, v]) => new PyTuple([k as PyValue, v]));
    case "keys":
      return () => Array.from(d.keys()) as PyValue[];
    case "values":
      return () => Array.from(d.values());
    case "copy":
      return () => new Map(d);
  }
  return undefined;
}

function listMethod(l: PyValue[], name: string): ((a: PyArgs) => PyValue) | undefined {
  switch (name) {
    case "index":
      return (a) => {
        const i = l.findIndex((x) => pyEquals(x, a.args[0] ?? null));
        if (i < 0) throw new PyError("ValueError", `${pyRepr(a.args[0] ?? null)} is not in list`);
        return i;
      };
    case "count":
      return (a) => l.filter((x) => pyEquals(x, a.args[0] ?? null)).length;
    case "copy":
      return () => l.slice();
  }
  return undefined;
}

function bound(obj: PyValue, name: string, fn: (a: PyArgs) => PyValue): PyCallable {
  return new PyCallable(name, fn, `<built-in method ${name} of ${typeName(obj)} object>`);
}

/** Python `getattr(obj, name)` as the sandbox allows it; `undefined` when there is no such attribute. */
export function pyAttribute(obj: PyValue, name: string, mutable = false): PyValue | undefined {
  if (mutable) {
    const m = mutatingMethod(obj, name);
    if (m) return bound(obj, name, m);
  }
  if (isStr(obj)) {
    const m = strMethod(strVal(obj), name, obj instanceof PyMarkup);
    return m && bound(obj, name, m);
  }
  if (obj instanceof Map) {
    if (UNSAFE.dict!.has(name)) return unsafe(obj, name);
    const m = dictMethod(obj, name);
    return m && bound(obj, name, m);
  }
  if (Array.isArray(obj)) {
    if (UNSAFE.list!.has(name)) return unsafe(obj, name);
    const m = listMethod(obj, name);
    return m && bound(obj, name, m);
  }
  if (obj instanceof PyNamespace) return obj.attrs.get(name);
  if (obj instanceof LoopContext) return loopAttribute(obj, name);
  return undefined;
}

function loopAttribute(loop: LoopContext, name: string): PyValue | undefined {
  const i = loop.index0;
  switch (name) {
    case "index":
      return i + 1;
    case "index0":
      return i;
    case "revindex":
      return loop.length - i;
    case "revindex0":
      return loop.length - i - 1;
    case "first":
      return i === 0;
    case "last":
      return i === loop.length - 1;
    case "length":
      return loop.length;
    case "depth":
      return loop.depth0 + 1;
    case "depth0":
      return loop.depth0;
    case "previtem":
      return loop.prev;
    case "nextitem":
      return loop.next;
    case "cycle":
      return bound(loop, name, ({ args }) => {
        if (args.length === 0) throw new PyError("TypeError", "no items for cycling given");
        return args[i % args.length]!;
      });
    case "changed":
      return bound(loop, name, ({ args }) => {
        const changed = loop.lastChanged === undefined || !pyEquals(args, loop.lastChanged);
        loop.lastChanged = args;
        return changed;
      });
  }
  return undefined;
}

function normIndex(i: number, len: number): number | undefined {
  const j = i < 0 ? i + len : i;
  return j >= 0 && j < len ? j : undefined;
}

/** Jinja2 `environment.getitem(obj, key)`: `obj[key]`, falling back to the attribute, else Undefined. */
export function pyGetItem(obj: PyValue, key: PyValue, mutable = false): PyValue {
  if (obj instanceof PyUndefined) {
    throw new PyError(obj.exc, undefinedMessage(obj));
  }
  if (obj instanceof Map) {
    const v = dictGet(obj, key);
    if (v !== undefined) return v;
  } else if ((Array.isArray(obj) || obj instanceof PyTuple || isStr(obj)) && isInt(key)) {
    const seq = Array.isArray(obj) ? obj : obj instanceof PyTuple ? obj.items : Array.from(strVal(obj));
    const j = normIndex(numVal(key), seq.length);
    if (j !== undefined) {
      const v = seq[j]!;
      return obj instanceof PyMarkup ? new PyMarkup(v as string) : v;
    }
  } else if (obj instanceof PyNamespace && isStr(key)) {
    const v = obj.attrs.get(strVal(key));
    if (v !== undefined) return v;
  }
  if (isStr(key)) {
    const a = pyAttribute(obj, strVal(key), mutable);
    if (a !== undefined) return a;
  }
  return new PyUndefined(isStr(key) ? strVal(key) : key, obj);
}

/** Jinja2 `environment.getattr(obj, name)`: the attribute first, then `obj[name]`, else Undefined. */
export function pyGetAttr(obj: PyValue, name: string, mutable = false): PyValue {
  if (obj instanceof PyUndefined) {
    throw new PyError(obj.exc, undefinedMessage(obj));
  }
  const a = pyAttribute(obj, name, mutable);
  if (a !== undefined) return a;
  if (obj instanceof Map && obj.has(name)) return obj.get(name)!;
  return new PyUndefined(name, obj);
}
