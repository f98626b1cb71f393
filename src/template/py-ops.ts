/**
 * Python operators over template values: ==, <, +, -, *, /, //, %, **, `in`, iteration and len(),
 * raising the TypeErrors (and Jinja2 UndefinedErrors) Python raises.
 *
 * @example
 * binaryOp("+", "a", "b"); // "ab"
 * pyEquals(1, new PyFloat(1)); // true
 */
import {
  LoopContext,
  PyCallable,
  PyError,
  PyFloat,
  PyIterator,
  PyMarkup,
  PyRange,
  PyTuple,
  PyUndefined,
  failUndefined,
  htmlEscape,
  isInt,
  isNumber,
  isStr,
  numVal,
  pyStr,
  strVal,
  typeName,
  type PyDict,
  type PyKey,
  type PyValue,
} from "./py-values.js";
import { percentFormat } from "./py-format.js";
import { chargeChars, chargeSteps, checkConcat, checkLength } from "./limits.js";

/** Python `==`. */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  // A step per comparison: nested lists can share items, so a deep compare can be exponential.
  chargeSteps(1);
  if (a === b) return true;
  if (isNumber(a) && isNumber(b)) return numVal(a) === numVal(b);
  if (isStr(a) && isStr(b)) return strVal(a) === strVal(b);
  if (Array.isArray(a) && Array.isArray(b)) return seqEquals(a, b);
  if (a instanceof PyTuple && b instanceof PyTuple) return seqEquals(a.items, b.items);
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) {
      const bv = dictGet(b, k);
      if (bv === undefined || !pyEquals(v, bv)) return false;
    }
    return true;
  }
  // Undefined.__eq__: equal to any other Undefined.
  if (a instanceof PyUndefined && b instanceof PyUndefined) return true;
  if (a instanceof PyRange && b instanceof PyRange) return seqEquals(a.toArray(), b.toArray());
  return false;
}

function seqEquals(a: PyValue[], b: PyValue[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!pyEquals(a[i]!, b[i]!)) return false;
  return true;
}

/** Python ordering (`<`): -1, 0 or 1; TypeError across incomparable types. */
export function pyCompare(a: PyValue, b: PyValue, op: string): number {
  if (a instanceof PyUndefined) failUndefined(a);
  if (b instanceof PyUndefined) failUndefined(b);
  if (isNumber(a) && isNumber(b)) {
    const x = numVal(a);
    const y = numVal(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (isStr(a) && isStr(b)) {
    const x = strVal(a);
    const y = strVal(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const seqA = Array.isArray(a) ? a : a instanceof PyTuple ? a.items : null;
  const seqB = Array.isArray(b) ? b : b instanceof PyTuple ? b.items : null;
  if (seqA && seqB && Array.isArray(a) === Array.isArray(b)) {
    const n = Math.min(seqA.length, seqB.length);
    for (let i = 0; i < n; i++) {
      if (!pyEquals(seqA[i]!, seqB[i]!)) return pyCompare(seqA[i]!, seqB[i]!, op);
    }
    return seqA.length - seqB.length < 0 ? -1 : seqA.length > seqB.length ? 1 : 0;
  }
  throw new PyError("TypeError", `'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}

/** Items of an iterable as Python iterates them (dict → keys, str → chars). */
export function iterate(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return v;
  if (v instanceof PyTuple) return v.items;
  chargeSteps(pyLenOrZero(v)); // the list built below: a step per item
  if (typeof v === "string") return Array.from(v);
  if (v instanceof PyMarkup) return Array.from(v.value);
  if (v instanceof Map) return Array.from(v.keys());
  if (v instanceof PyIterator) return v.take();
  if (v instanceof PyRange) return v.toArray();
  if (v instanceof PyUndefined) {
    if (v.exc !== "UndefinedError") failUndefined(v);
    return [];
  }
  throw new PyError("TypeError", `'${typeName(v)}' object is not iterable`);
}

function pyLenOrZero(v: PyValue): number {
  if (typeof v === "string") return v.length;
  if (v instanceof PyMarkup) return v.value.length;
  if (v instanceof Map) return v.size;
  if (v instanceof PyRange) return v.length;
  return 0;
}

/** Python `len()`. */
export function pyLen(v: PyValue): number {
  if (typeof v === "string") return codePointLength(v);
  if (v instanceof PyMarkup) return codePointLength(v.value);
  if (Array.isArray(v)) return v.length;
  if (v instanceof PyTuple) return v.items.length;
  if (v instanceof Map) return v.size;
  if (v instanceof PyRange) return v.length;
  if (v instanceof PyUndefined) return 0;
  throw new PyError("TypeError", `object of type '${typeName(v)}' has no len()`);
}

const SURROGATE = /[\uD800-\uDFFF]/;

export function codePointLength(s: string): number {
  return SURROGATE.test(s) ? Array.from(s).length : s.length;
}

/** Python `needle in haystack`. */
export function pyContains(haystack: PyValue, needle: PyValue): boolean {
  if (isStr(haystack)) {
    if (!isStr(needle)) {
      if (needle instanceof PyUndefined) failUndefined(needle);
      throw new PyError("TypeError", `'in <string>' requires string as left operand, not ${typeName(needle)}`);
    }
    chargeChars(strVal(haystack).length);
    return strVal(haystack).includes(strVal(needle));
  }
  if (haystack instanceof Map) return findKey(haystack, needle) !== undefined;
  if (haystack instanceof PyUndefined) {
    if (haystack.exc !== "UndefinedError") failUndefined(haystack);
    return false;
  }
  if (
    Array.isArray(haystack) ||
    haystack instanceof PyTuple ||
    haystack instanceof PyIterator ||
    haystack instanceof PyRange
  ) {
    return iterate(haystack).some((x) => pyEquals(x, needle));
  }
  throw new PyError("TypeError", `argument of type '${typeName(haystack)}' is not iterable`);
}

/**
 * The key under which `d` holds a key equal to `key` in Python's sense (1 == 1.0 == True, equal
 * tuples), or undefined. Strings and None hit the Map directly; numbers and tuples may scan.
 */
export function findKey(d: PyDict, key: PyValue): PyKey | undefined {
  const k = (key instanceof PyMarkup ? key.value : key) as PyKey;
  if (d.has(k)) return k;
  if (isNumber(k) || k instanceof PyTuple) {
    for (const existing of d.keys()) {
      if ((isNumber(existing) || existing instanceof PyTuple) && pyEquals(existing, k)) return existing;
    }
  }
  return undefined;
}

/** Python `d[key]`, or undefined when absent. */
export function dictGet(d: PyDict, key: PyValue): PyValue | undefined {
  const k = findKey(d, key);
  return k === undefined ? undefined : d.get(k);
}

/** Python `d[key] = value` (an equal existing key keeps its original form, as in Python). */
export function dictSet(d: PyDict, key: PyValue, value: PyValue): void {
  if (!isHashable(key)) throw new PyError("TypeError", `unhashable type: '${typeName(key)}'`);
  const k = findKey(d, key);
  d.set(k === undefined ? ((key instanceof PyMarkup ? key.value : key) as PyKey) : k, value);
}

function isHashable(v: PyValue): boolean {
  if (v === null || typeof v !== "object") return true;
  if (v instanceof PyTuple) return v.items.every(isHashable);
  return v instanceof PyFloat || v instanceof PyMarkup;
}

function unsupported(op: string, a: PyValue, b: PyValue): never {
  throw new PyError("TypeError", `unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`);
}

function numberResult(x: number, float: boolean): PyValue {
  return float ? new PyFloat(x) : x;
}

function pyMod(x: number, y: number): number {
  const r = x % y;
  return r !== 0 && r < 0 !== y < 0 ? r + y : r;
}

/** Python binary arithmetic: + - * / // % **. */
export function binaryOp(op: string, a: PyValue, b: PyValue): PyValue {
  if (a instanceof PyUndefined) failUndefined(a);
  if (b instanceof PyUndefined) failUndefined(b);
  if (isNumber(a) && isNumber(b)) {
    const x = numVal(a);
    const y = numVal(b);
    const float = a instanceof PyFloat || b instanceof PyFloat;
    switch (op) {
      case "+":
        return numberResult(x + y, float);
      case "-":
        return numberResult(x - y, float);
      case "*":
        return numberResult(x * y, float);
      case "/":
        if (y === 0) throw new PyError("ZeroDivisionError", float ? "float division by zero" : "division by zero");
        return new PyFloat(x / y);
      case "//":
        if (y === 0)
          throw new PyError(
            "ZeroDivisionError",
            float ? "float floor division by zero" : "integer division or modulo by zero",
          );
        return numberResult(Math.floor(x / y), float);
      case "%":
        if (y === 0) throw new PyError("ZeroDivisionError", float ? "float modulo" : "integer modulo by zero");
        return numberResult(pyMod(x, y), float);
      case "**":
        if (x === 0 && y < 0) throw new PyError("ZeroDivisionError", "0.0 cannot be raised to a negative power");
        return numberResult(x ** y, float || (y < 0 && !float));
    }
  }
  if (op === "+") {
    if (a instanceof PyMarkup || b instanceof PyMarkup) {
      if (!isStr(a) || !isStr(b)) unsupported(op, a, b);
      const left = a instanceof PyMarkup ? a.value : htmlEscape(a);
      const right = b instanceof PyMarkup ? b.value : htmlEscape(b);
      return new PyMarkup(left + right);
    }
    if (typeof a === "string") {
      if (typeof b === "string") {
        checkConcat(a.length, b.length);
        return a + b;
      }
      throw new PyError("TypeError", `can only concatenate str (not "${typeName(b)}") to str`);
    }
    if (Array.isArray(a)) {
      if (Array.isArray(b)) {
        checkLength(a.length + b.length, "a list", "item");
        return a.concat(b);
      }
      throw new PyError("TypeError", `can only concatenate list (not "${typeName(b)}") to list`);
    }
    if (a instanceof PyTuple) {
      if (b instanceof PyTuple) {
        checkLength(a.items.length + b.items.length, "a tuple", "item");
        return new PyTuple(a.items.concat(b.items));
      }
      throw new PyError("TypeError", `can only concatenate tuple (not "${typeName(b)}") to tuple`);
    }
    unsupported(op, a, b);
  }
  if (op === "*") {
    const [seq, n] = isInt(b) ? [a, numVal(b)] : isInt(a) ? [b, numVal(a)] : [null, 0];
    if (typeof seq === "string" || Array.isArray(seq) || seq instanceof PyTuple) {
      const len = typeof seq === "string" ? seq.length : Array.isArray(seq) ? seq.length : seq.items.length;
      if (len > 0 && n > 0) checkLength(len * n, `a ${typeName(seq)}`, typeof seq === "string" ? "char" : "item");
    }
    if (typeof seq === "string") return seq.repeat(Math.max(0, n));
    if (Array.isArray(seq)) return Array.from({ length: Math.max(0, n) }, () => seq).flat();
    if (seq instanceof PyTuple) return new PyTuple(Array.from({ length: Math.max(0, n) }, () => seq.items).flat());
    if (seq !== null && (isStr(a) || isStr(b))) {
      throw new PyError("TypeError", `can't multiply sequence by non-int of type '${typeName(isInt(a) ? b : a)}'`);
    }
    unsupported(op, a, b);
  }
  if (op === "%" && isStr(a)) {
    const out = percentFormat(strVal(a), b);
    return a instanceof PyMarkup ? new PyMarkup(out) : out;
  }
  if (op === "**") unsupported("** or pow()", a, b);
  unsupported(op, a, b);
}

/** Unary minus / plus. */
export function unaryOp(op: string, v: PyValue): PyValue {
  if (v instanceof PyUndefined) failUndefined(v);
  if (isNumber(v)) {
    const x = numVal(v);
    return v instanceof PyFloat ? new PyFloat(op === "-" ? -x : x) : op === "-" ? -x : x;
  }
  throw new PyError("TypeError", `bad operand type for unary ${op}: '${typeName(v)}'`);
}

/** Jinja's `~`: str() of both sides, concatenated. */
export function concat(a: PyValue, b: PyValue): string {
  const left = pyStr(a);
  const right = pyStr(b);
  checkConcat(left.length, right.length);
  return left + right;
}

/** Whether `v` is callable (`is callable`). */
export function isCallable(v: PyValue): boolean {
  return v instanceof PyCallable || v instanceof LoopContext;
}

/** Python slicing of a list, tuple or str. */
export function pySlice(obj: PyValue, start: PyValue, stop: PyValue, step: PyValue): PyValue {
  const seq = Array.isArray(obj)
    ? obj
    : obj instanceof PyTuple
      ? obj.items
      : isStr(obj)
        ? Array.from(strVal(obj))
        : null;
  if (seq === null) throw new PyError("TypeError", `'${typeName(obj)}' object is not subscriptable`);
  const num = (v: PyValue, what: string): number | null => {
    if (v === null || v instanceof PyUndefined) return null;
    if (!isInt(v))
      throw new PyError("TypeError", `slice indices must be integers or None or have an __index__ method (${what})`);
    return numVal(v);
  };
  const len = seq.length;
  const st = num(step, "step") ?? 1;
  if (st === 0) throw new PyError("ValueError", "slice step cannot be zero");
  const clamp = (v: number | null, dflt: number, lo: number, hi: number): number => {
    if (v === null) return dflt;
    const x = v < 0 ? v + len : v;
    return Math.min(Math.max(x, lo), hi);
  };
  const out: PyValue[] = [];
  if (st > 0) {
    const b = clamp(num(start, "start"), 0, 0, len);
    const e = clamp(num(stop, "stop"), len, 0, len);
    for (let i = b; i < e; i += st) out.push(seq[i]!);
  } else {
    const b = clamp(num(start, "start"), len - 1, -1, len - 1);
    const e = clamp(num(stop, "stop"), -1, -1, len - 1);
    for (let i = b; i > e; i += st) out.push(seq[i]!);
  }
  if (Array.isArray(obj)) return out;
  if (obj instanceof PyTuple) return new PyTuple(out);
  const s = (out as string[]).join("");
  return obj instanceof PyMarkup ? new PyMarkup(s) : s;
}
