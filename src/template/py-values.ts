/**
 * Python values as the template evaluator sees them, and Python's `str()` / `repr()` / truthiness.
 * JS primitives stand for str/int/bool/None; containers and the few special kinds are classes.
 *
 * @example
 * pyStr(fromJs({ a: [1, "x", null] })); // "{'a': [1, 'x', None]}"
 */
// limits.ts imports PyError from here: the cycle is safe, each side uses the other only inside functions.
import { chargeChars, chargeSteps } from "./limits.js";

/** A Python float (ints are plain JS numbers; a float must stay a float when integral, e.g. 2.0). */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A markupsafe `Markup` string (what `|safe` returns): `+` escapes the plain-string operand. */
export class PyMarkup {
  constructor(readonly value: string) {}
}

/** A Python tuple. */
export class PyTuple {
  constructor(readonly items: PyValue[]) {}
}

/** A one-shot iterator (generator, reversed(), map/select results). */
export class PyIterator {
  #items: PyValue[] | null;
  constructor(
    items: PyValue[],
    /** Python's type name, for repr and error messages ("generator", "list_reverseiterator"). */
    readonly typeName: string = "generator",
  ) {
    this.#items = items;
  }
  /** Takes the remaining items; a second take yields nothing, as in Python. */
  take(): PyValue[] {
    const items = this.#items ?? [];
    this.#items = null;
    return items;
  }
  /** The remaining items, left in place (lenient mode reads an iterator as a list: compat.ts). */
  peek(): readonly PyValue[] {
    return this.#items ?? [];
  }
}

/** Python `range` (kept lazy-looking for repr; iterates like a list). */
export class PyRange {
  constructor(
    readonly start: number,
    readonly stop: number,
    readonly step: number,
  ) {}
  /** Python's `len(range(...))`, computed without building the list (a huge range never allocates). */
  get length(): number {
    const span = this.step > 0 ? this.stop - this.start : this.start - this.stop;
    return span <= 0 ? 0 : Math.ceil(span / Math.abs(this.step));
  }
  toArray(): number[] {
    const out: number[] = [];
    if (this.step > 0) for (let i = this.start; i < this.stop; i += this.step) out.push(i);
    // biome-ignore lint/correctness/useValidForDirection: the step is negative on this branch
    else for (let i = this.start; i > this.stop; i += this.step) out.push(i);
    return out;
  }
}

/** Jinja2's `namespace()` object: attributes assignable with `{% set ns.x = ... %}`. */
export class PyNamespace {
  constructor(readonly attrs: Map<string, PyValue>) {}
}

/**
 * Jinja2's default `Undefined`: prints as "", is falsy, iterates empty, and raises
 * UndefinedError (or `exc`, e.g. SecurityError) with its message on most other uses.
 */
export class PyUndefined {
  constructor(
    /** The name looked up (string attribute or key, or int index). */
    readonly name?: PyValue,
    /** The object the lookup was on; `NO_OBJECT` when it was a plain variable. */
    readonly obj: PyValue | typeof NO_OBJECT = NO_OBJECT,
    readonly hint?: string,
    readonly exc: string = "UndefinedError",
  ) {}
}
export const NO_OBJECT: unique symbol = Symbol("no object");

/** Positional + keyword arguments of a call. */
export interface PyArgs {
  args: PyValue[];
  kwargs: Map<string, PyValue>;
}

/** Anything callable from a template: globals, bound methods, macros, `caller`. */
export class PyCallable {
  constructor(
    readonly name: string,
    readonly fn: (args: PyArgs) => PyValue,
    /** repr as Python shows it, e.g. "<Macro 'm'>". */
    readonly reprText: string = `<function ${name}>`,
  ) {}
}

/** Python dict: a Map keeps insertion order and distinguishes 1 from "1" like Python. */
export type PyDict = Map<PyKey, PyValue>;
export type PyKey = string | number | boolean | null | PyFloat | PyTuple;

export type PyValue =
  | string
  | number
  | boolean
  | null
  | PyFloat
  | PyMarkup
  | PyValue[]
  | PyTuple
  | PyDict
  | PyIterator
  | PyRange
  | PyNamespace
  | PyUndefined
  | PyCallable
  | LoopContext;

/** The `loop` variable inside `{% for %}`. */
export class LoopContext {
  index0 = 0;
  prev: PyValue = new PyUndefined("previtem");
  next: PyValue = new PyUndefined("nextitem");
  lastChanged: PyValue[] | undefined;
  constructor(
    readonly length: number,
    readonly depth0: number,
  ) {}
}

/** Thrown for Python-level errors; the evaluator turns it into a TemplateRuntimeError. */
export class PyError extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------

/** Converts JSON-like JS data into Python values (objects become dicts, non-integers floats). */
export function fromJs(v: unknown): PyValue {
  switch (typeof v) {
    case "string":
    case "boolean":
      return v;
    case "number":
      return Number.isInteger(v) ? v : new PyFloat(v);
    case "bigint":
      return Number(v);
    case "undefined":
      return new PyUndefined();
    case "function":
      return new PyCallable((v as { name?: string }).name || "function", ({ args }) =>
        fromJs((v as (...a: unknown[]) => unknown)(...args.map(toJs))),
      );
    case "object": {
      if (v === null) return null;
      if (Array.isArray(v)) return v.map(fromJs);
      if (v instanceof Map) {
        const m: PyDict = new Map();
        for (const [k, x] of v) m.set(k as PyKey, fromJs(x));
        return m;
      }
      if (isPyObject(v)) return v as PyValue;
      const m: PyDict = new Map();
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        // An absent optional field (undefined) is simply not in the Python dict.
        if (x !== undefined) m.set(k, fromJs(x));
      }
      return m;
    }
    default:
      throw new TypeError(`cannot pass a ${typeof v} to a template`);
  }
}

function isPyObject(v: object): boolean {
  return (
    v instanceof PyFloat ||
    v instanceof PyMarkup ||
    v instanceof PyTuple ||
    v instanceof PyIterator ||
    v instanceof PyRange ||
    v instanceof PyNamespace ||
    v instanceof PyUndefined ||
    v instanceof PyCallable
  );
}

/** Converts a Python value back to plain JS (for JS callbacks and `from_json`-style helpers). */
export function toJs(v: PyValue): unknown {
  if (v instanceof PyFloat || v instanceof PyMarkup) return v.value;
  if (Array.isArray(v)) return v.map(toJs);
  if (v instanceof PyTuple) return v.items.map(toJs);
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v) o[String(k)] = toJs(x);
    return o;
  }
  if (v instanceof PyUndefined) return undefined;
  return v;
}

export function isStr(v: PyValue): v is string | PyMarkup {
  return typeof v === "string" || v instanceof PyMarkup;
}

/** The JS string of a str or Markup value. */
export function strVal(v: string | PyMarkup): string {
  return typeof v === "string" ? v : v.value;
}

export function isInt(v: PyValue): v is number | boolean {
  return typeof v === "number" || typeof v === "boolean";
}

export function isNumber(v: PyValue): v is number | boolean | PyFloat {
  return typeof v === "number" || typeof v === "boolean" || v instanceof PyFloat;
}

export function numVal(v: number | boolean | PyFloat): number {
  return typeof v === "number" ? v : typeof v === "boolean" ? (v ? 1 : 0) : v.value;
}

/** Python's `type(v).__name__`. */
export function typeName(v: PyValue): string {
  if (v === null) return "NoneType";
  switch (typeof v) {
    case "string":
      return "str";
    case "number":
      return "int";
    case "boolean":
      return "bool";
  }
  if (v instanceof PyFloat) return "float";
  if (v instanceof PyMarkup) return "Markup";
  if (Array.isArray(v)) return "list";
  if (v instanceof PyTuple) return "tuple";
  if (v instanceof Map) return "dict";
  if (v instanceof PyIterator) return v.typeName;
  if (v instanceof PyRange) return "range";
  if (v instanceof PyNamespace) return "Namespace";
  if (v instanceof PyUndefined) return "Undefined";
  if (v instanceof LoopContext) return "LoopContext";
  return v.reprText.startsWith("<Macro") ? "Macro" : "function";
}

/** Python truthiness. */
export function truthy(v: PyValue): boolean {
  if (v === null) return false;
  switch (typeof v) {
    case "string":
      return v.length > 0;
    case "number":
      return v !== 0;
    case "boolean":
      return v;
  }
  if (v instanceof PyFloat) return v.value !== 0;
  if (v instanceof PyMarkup) return v.value.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof PyTuple) return v.items.length > 0;
  if (v instanceof Map) return v.size > 0;
  if (v instanceof PyUndefined) return false;
  if (v instanceof PyRange) return v.toArray().length > 0;
  return true;
}

// ---------------------------------------------------------------------------------------------
// str() and repr()

/** Python `repr(float)`: shortest round-trip digits, exponent form outside [1e-4, 1e16). */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mant, expStr] = x.toExponential().split("e") as [string, string];
  const exp = Number(expStr);
  const neg = mant.startsWith("-");
  const digits = mant.replace("-", "").replace(".", "");
  let out: string;
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    out = `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  } else if (exp >= 0) {
    const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
    const frac = digits.slice(exp + 1);
    out = `${intPart}.${frac === "" ? "0" : frac}`;
  } else {
    out = `0.${"0".repeat(-exp - 1)}${digits}`;
  }
  return neg ? `-${out}` : out;
}

const NON_PRINTABLE = /[\p{C}\p{Z}]/u;

/** Python `repr(str)`. */
export function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === "\\") out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (cp < 0x20 || cp === 0x7f) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp > 0x7f && ch !== " " && NON_PRINTABLE.test(ch)) {
      if (cp <= 0xff) out += "\\x" + cp.toString(16).padStart(2, "0");
      else if (cp <= 0xffff) out += "\\u" + cp.toString(16).padStart(4, "0");
      else out += "\\U" + cp.toString(16).padStart(8, "0");
    } else out += ch;
  }
  return out + quote;
}

/** A container's repr, its characters counted against the render budget (each level copies its items' text). */
function built(text: string): string {
  chargeChars(text.length);
  return text;
}

/** Python `repr(v)`. */
export function pyRepr(v: PyValue): string {
  // A step per value: nested lists can share items, so a repr can be exponentially long.
  chargeSteps(1);
  if (v === null) return "None";
  switch (typeof v) {
    case "string":
      return strRepr(v);
    case "number":
      return String(v);
    case "boolean":
      return v ? "True" : "False";
  }
  if (v instanceof PyFloat) return floatRepr(v.value);
  if (v instanceof PyMarkup) return `Markup(${strRepr(v.value)})`;
  if (Array.isArray(v)) return built(`[${v.map(pyRepr).join(", ")}]`);
  if (v instanceof PyTuple) {
    return built(v.items.length === 1 ? `(${pyRepr(v.items[0]!)},)` : `(${v.items.map(pyRepr).join(", ")})`);
  }
  if (v instanceof Map) {
    const parts: string[] = [];
    for (const [k, x] of v) parts.push(`${pyRepr(k)}: ${pyRepr(x)}`);
    return built(`{${parts.join(", ")}}`);
  }
  if (v instanceof PyUndefined) return "Undefined";
  if (v instanceof PyRange) {
    return v.step === 1 ? `range(${v.start}, ${v.stop})` : `range(${v.start}, ${v.stop}, ${v.step})`;
  }
  if (v instanceof PyNamespace) return `<Namespace ${pyRepr(v.attrs as PyDict)}>`;
  if (v instanceof PyIterator) return `<${v.typeName} object>`;
  if (v instanceof LoopContext) return `<LoopContext ${v.index0 + 1}/${v.length}>`;
  return v.reprText;
}

/** Python `str(v)` (Undefined prints as ""). */
export function pyStr(v: PyValue): string {
  if (typeof v === "string") return v;
  if (v instanceof PyMarkup) return v.value;
  if (v instanceof PyUndefined) return "";
  return pyRepr(v);
}

/** markupsafe's `escape`. */
export function htmlEscape(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/'/g, "&#39;")
    .replace(/"/g, "&#34;");
}

/** Jinja2's message for using an Undefined (`'x' is undefined`, `'dict object' has no attribute 'y'`). */
export function undefinedMessage(u: PyUndefined): string {
  if (u.hint !== undefined) return u.hint;
  if (u.obj === NO_OBJECT) return `${pyRepr(u.name ?? null)} is undefined`;
  const objRepr = u.obj === null ? "None" : `${objectTypeName(u.obj)} object`;
  if (typeof u.name !== "string") return `${objRepr} has no element ${pyRepr(u.name ?? null)}`;
  return `${strRepr(objRepr)} has no attribute ${strRepr(u.name)}`;
}

function objectTypeName(v: PyValue): string {
  if (v instanceof PyNamespace) return "jinja2.utils.Namespace";
  if (v instanceof LoopContext) return "jinja2.runtime.LoopContext";
  if (v instanceof PyMarkup) return "markupsafe.Markup";
  if (v instanceof PyCallable && v.reprText.startsWith("<Macro")) return "jinja2.runtime.Macro";
  return typeName(v);
}

/** Raises the error using `u` raises in Jinja2. */
export function failUndefined(u: PyUndefined): never {
  throw new PyError(u.exc, undefinedMessage(u));
}
