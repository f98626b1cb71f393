/**
 * Python string formatting as templates use it: `"%s" % x` / `|format`, `str.format(...)`,
 * and `json.dumps` with transformers' `tojson` options.
 *
 * @example
 * percentFormat("%s=%d", new PyTuple(["a", 1])); // "a=1"
 * jsonDumps(fromJs({ a: "é" }), {}); // '{"a": "é"}'
 */
import { chargeChars, chargeSteps, checkLength } from "./limits.js";
import {
  PyError,
  PyFloat,
  PyIterator,
  PyMarkup,
  PyTuple,
  PyUndefined,
  floatRepr,
  isNumber,
  isStr,
  numVal,
  pyRepr,
  pyStr,
  strVal,
  typeName,
  type PyValue,
} from "./py-values.js";

interface Spec {
  fill: string;
  align: string;
  sign: string;
  alt: boolean;
  zero: boolean;
  width: number;
  grouping: string;
  precision: number | undefined;
  type: string;
}

/** The exact decimal expansion of a finite double's magnitude (e.g. 2.675 → "2.67499999..."). */
function exactDecimal(x: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let e: number;
  if (expBits === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = expBits - 1075;
  }
  if (e >= 0) return (mant << BigInt(e)).toString();
  const digits = (mant * 5n ** BigInt(-e)).toString().padStart(-e + 1, "0");
  return `${digits.slice(0, digits.length + e)}.${digits.slice(digits.length + e)}`;
}

/**
 * `x` with `f` decimals, correctly rounded with ties to even on the exact binary value, as
 * Python's `'%.*f'` and `round()` do (JS toFixed rounds exact ties up: 2.25 → "2.3", Python "2.2").
 */
export function toFixedPy(x: number, f: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  const exact = exactDecimal(x);
  const [intPart, fracPart = ""] = exact.split(".") as [string, string?];
  checkLength(f, "a formatted number");
  let keep = intPart + fracPart.slice(0, f).padEnd(f, "0");
  const rest = fracPart.slice(f);
  const restTrim = rest.replace(/0+$/, "");
  const up = restTrim > "5" || (restTrim === "5" && Number(keep[keep.length - 1]) % 2 === 1);
  if (restTrim !== "" && up) keep = (BigInt(keep) + 1n).toString().padStart(keep.length, "0");
  const i = keep.length - f;
  const body = f > 0 ? `${keep.slice(0, i) || "0"}.${keep.slice(i)}` : keep;
  return (x < 0 || Object.is(x, -0) ? "-" : "") + body.replace(/^0+(?=\d)/, "");
}

function pad(s: string, width: number, align: string, fill: string): string {
  if (s.length >= width) return s;
  checkLength(width * fill.length, "a padded string");
  const n = width - s.length;
  if (align === "<") return s + fill.repeat(n);
  if (align === "^") return fill.repeat(Math.floor(n / 2)) + s + fill.repeat(Math.ceil(n / 2));
  if (align === "=") {
    const signLen = /^[+\- ]/.test(s) ? 1 : 0;
    return s.slice(0, signLen) + fill.repeat(n) + s.slice(signLen);
  }
  return fill.repeat(n) + s;
}

function group(intDigits: string, sep: string): string {
  return sep ? intDigits.replace(/\B(?=(\d{3})+(?!\d))/g, sep) : intDigits;
}

function formatNumber(v: PyValue, spec: Spec): string {
  if (!isNumber(v))
    throw new PyError("ValueError", `Unknown format code '${spec.type}' for object of type '${typeName(v)}'`);
  const x = numVal(v);
  const neg = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  let body: string;
  const t = spec.type || (v instanceof PyFloat ? "" : "d");
  switch (t) {
    case "d":
      if (v instanceof PyFloat) throw new PyError("ValueError", "Unknown format code 'd' for object of type 'float'");
      body = group(String(ax), spec.grouping);
      break;
    case "f":
    case "F":
    case "%": {
      const val = t === "%" ? ax * 100 : ax;
      const fixed = toFixedPy(val, spec.precision ?? 6);
      const [i, f] = fixed.split(".") as [string, string | undefined];
      body = group(i, spec.grouping) + (f !== undefined ? "." + f : "") + (t === "%" ? "%" : "");
      break;
    }
    case "e":
    case "E": {
      const [m, e] = ax.toExponential(spec.precision ?? 6).split("e") as [string, string];
      const en = Number(e);
      body = `${m}e${en < 0 ? "-" : "+"}${String(Math.abs(en)).padStart(2, "0")}`;
      if (t === "E") body = body.toUpperCase();
      break;
    }
    case "x":
    case "X":
    case "o":
    case "b": {
      const radix = t === "o" ? 8 : t === "b" ? 2 : 16;
      body = Math.trunc(ax).toString(radix);
      if (t === "X") body = body.toUpperCase();
      if (spec.alt) body = `0${t}` + body;
      break;
    }
    case "g":
    case "":
      body =
        spec.precision === undefined
          ? v instanceof PyFloat
            ? floatRepr(ax)
            : String(ax)
          : String(Number(ax.toPrecision(spec.precision)));
      break;
    default:
      throw new PyError("ValueError", `Unknown format code '${t}' for object of type '${typeName(v)}'`);
  }
  const sign = neg ? "-" : spec.sign === "+" ? "+" : spec.sign === " " ? " " : "";
  const s = sign + body;
  if (spec.zero && !spec.align) return pad(s, spec.width, "=", "0");
  return pad(s, spec.width, spec.align || ">", spec.fill);
}

const SPEC_RE = /^(?:(.)?([<>=^]))?([+\- ])?(#)?(0)?(\d+)?([,_])?(?:\.(\d+))?([a-zA-Z%])?$/s;

/** Python `format(value, spec)`. */
export function formatValue(v: PyValue, specText: string): string {
  if (specText === "") return pyStr(v);
  const m = SPEC_RE.exec(specText);
  if (!m) throw new PyError("ValueError", "Invalid format specifier");
  const spec: Spec = {
    fill: m[1] ?? " ",
    align: m[2] ?? "",
    sign: m[3] ?? "",
    alt: m[4] !== undefined,
    zero: m[5] !== undefined,
    width: m[6] ? Number(m[6]) : 0,
    grouping: m[7] ?? "",
    precision: m[8] !== undefined ? Number(m[8]) : undefined,
    type: m[9] ?? "",
  };
  if (isStr(v) || v === null || !isNumber(v)) {
    if (spec.type && spec.type !== "s") {
      throw new PyError("ValueError", `Unknown format code '${spec.type}' for object of type '${typeName(v)}'`);
    }
    let s = pyStr(v);
    if (spec.precision !== undefined) s = s.slice(0, spec.precision);
    return pad(s, spec.width, spec.align || "<", spec.fill);
  }
  return formatNumber(v, spec);
}

/** Python `str.format(*args, **kwargs)`. */
export function strFormat(
  fmt: string,
  args: PyValue[],
  kwargs: Map<string, PyValue>,
  getField: (obj: PyValue, key: string | number, isIndex: boolean) => PyValue,
): string {
  let auto = 0;
  let out = "";
  let i = 0;
  while (i < fmt.length) {
    const ch = fmt[i]!;
    if (ch === "{") {
      if (fmt[i + 1] === "{") {
        out += "{";
        i += 2;
        continue;
      }
      const end = fmt.indexOf("}", i);
      if (end < 0) throw new PyError("ValueError", "Single '{' encountered in format string");
      const field = fmt.slice(i + 1, end);
      i = end + 1;
      const fm = /^([^.[!:]*)((?:\.[^.[!:]+|\[[^\]]*\])*)(?:!([rsa]))?(?::(.*))?$/s.exec(field);
      if (!fm) throw new PyError("ValueError", `Invalid format field '${field}'`);
      const [, name = "", path = "", conv, spec = ""] = fm;
      let value: PyValue;
      if (name === "") {
        if (auto >= args.length)
          throw new PyError("IndexError", `Replacement index ${auto} out of range for positional args tuple`);
        value = args[auto++]!;
      } else if (/^\d+$/.test(name)) {
        const idx = Number(name);
        if (idx >= args.length)
          throw new PyError("IndexError", `Replacement index ${idx} out of range for positional args tuple`);
        value = args[idx]!;
      } else {
        if (!kwargs.has(name)) throw new PyError("KeyError", pyRepr(name));
        value = kwargs.get(name)!;
      }
      for (const pm of path.matchAll(/\.([^.[]+)|\[([^\]]*)\]/g)) {
        if (pm[1] !== undefined) value = getField(value, pm[1], false);
        else value = getField(value, /^\d+$/.test(pm[2]!) ? Number(pm[2]) : pm[2]!, true);
      }
      if (conv === "r") value = pyRepr(value);
      else if (conv === "s" || conv === "a") value = pyStr(value);
      out += formatValue(value, spec);
      continue;
    }
    if (ch === "}") {
      if (fmt[i + 1] === "}") {
        out += "}";
        i += 2;
        continue;
      }
      throw new PyError("ValueError", "Single '}' encountered in format string");
    }
    out += ch;
    i++;
  }
  return out;
}

/** Python `fmt % values`. */
export function percentFormat(fmt: string, values: PyValue): string {
  const args = values instanceof PyTuple ? values.items : [values];
  const mapping = values instanceof Map ? values : null;
  let next = 0;
  const re = /%(?:\(([^)]*)\))?([#0\- +]*)(\*|\d+)?(?:\.(\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])/g;
  let out = "";
  let last = 0;
  for (const m of fmt.matchAll(re)) {
    out += fmt.slice(last, m.index);
    last = m.index! + m[0].length;
    const [, key, flags = "", widthText, precText, conv] = m;
    if (conv === "%" && m[0] === "%%") {
      out += "%";
      continue;
    }
    const take = (): PyValue => {
      if (next >= args.length) throw new PyError("TypeError", "not enough arguments for format string");
      return args[next++]!;
    };
    let value: PyValue;
    if (key !== undefined) {
      if (!mapping) throw new PyError("TypeError", "format requires a mapping");
      if (!mapping.has(key)) throw new PyError("KeyError", pyRepr(key));
      value = mapping.get(key)!;
    } else {
      if (widthText === "*") take();
      value = take();
    }
    const width = widthText && widthText !== "*" ? Number(widthText) : 0;
    const precision = precText !== undefined && precText !== "*" ? Number(precText) : undefined;
    let s: string;
    switch (conv) {
      case "s":
        s = pyStr(value);
        if (precision !== undefined) s = s.slice(0, precision);
        break;
      case "r":
      case "a":
        s = pyRepr(value);
        break;
      case "c":
        s = typeof value === "number" ? String.fromCodePoint(value) : pyStr(value);
        break;
      default: {
        if (!isNumber(value)) {
          const what = isStr(value) ? "str" : typeName(value);
          throw new PyError("TypeError", `%${conv} format: a real number is required, not ${what}`);
        }
        const sign = flags.includes("+") ? "+" : flags.includes(" ") ? " " : "";
        const spec = `${sign}${precision !== undefined ? "." + precision : ""}`;
        const t = conv === "i" || conv === "u" ? "d" : conv!;
        const num = t === "d" ? Math.trunc(numVal(value)) : value;
        s = formatValue(num, spec + t);
      }
    }
    if (width) checkLength(width, "a padded string");
    if (width)
      s = flags.includes("-")
        ? s.padEnd(width)
        : flags.includes("0") && conv !== "s"
          ? s.padStart(width, "0")
          : s.padStart(width);
    out += s;
  }
  out += fmt.slice(last);
  if (!mapping && next < args.length && !(values instanceof PyMarkup)) {
    if (values instanceof PyTuple || next === 0) {
      throw new PyError("TypeError", "not all arguments converted during string formatting");
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

export interface JsonOptions {
  ensureAscii?: boolean;
  indent?: number | string | null;
  separators?: [string, string] | null;
  sortKeys?: boolean;
}

function jsonString(s: string, ensureAscii: boolean): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i]!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20 || (ensureAscii && c > 0x7e)) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

function jsonKey(k: PyValue, ensureAscii: boolean): string {
  if (typeof k === "string") return jsonString(k, ensureAscii);
  if (k === null) return '"null"';
  if (typeof k === "boolean") return k ? '"true"' : '"false"';
  if (typeof k === "number") return `"${k}"`;
  if (k instanceof PyFloat) return `"${floatRepr(k.value)}"`;
  throw new PyError("TypeError", `keys must be str, int, float, bool or None, not ${typeName(k)}`);
}

/** A container's JSON, its characters counted against the render budget (each level copies its items' text). */
function built(text: string): string {
  chargeChars(text.length);
  return text;
}

function indentWidth(n: number): number {
  checkLength(n, "a JSON indent");
  return n;
}

/** Python `json.dumps(v, ensure_ascii, indent, separators, sort_keys)`. */
export function jsonDumps(v: PyValue, opts: JsonOptions): string {
  const ensureAscii = opts.ensureAscii ?? true;
  const indent =
    opts.indent === null || opts.indent === undefined
      ? null
      : typeof opts.indent === "number"
        ? " ".repeat(indentWidth(opts.indent))
        : opts.indent;
  const [itemSep, keySep] = opts.separators ?? (indent !== null ? [",", ": "] : [", ", ": "]);
  const sortKeys = opts.sortKeys ?? false;

  const enc = (x: PyValue, level: number): string => {
    // A step per value: nested lists can share items, so a dump can be exponentially long.
    chargeSteps(1);
    if (x === null) return "null";
    if (x === true) return "true";
    if (x === false) return "false";
    if (typeof x === "number") return String(x);
    if (x instanceof PyFloat) {
      if (Number.isNaN(x.value)) return "NaN";
      if (!Number.isFinite(x.value)) return x.value > 0 ? "Infinity" : "-Infinity";
      return floatRepr(x.value);
    }
    if (isStr(x)) return jsonString(strVal(x), ensureAscii);
    const nl = indent !== null ? "\n" + indent.repeat(level + 1) : "";
    const close = indent !== null ? "\n" + indent.repeat(level) : "";
    const sep = itemSep + nl;
    if (Array.isArray(x) || x instanceof PyTuple) {
      const items = Array.isArray(x) ? x : x.items;
      if (items.length === 0) return "[]";
      return built("[" + nl + items.map((i) => enc(i, level + 1)).join(sep) + close + "]");
    }
    if (x instanceof Map) {
      if (x.size === 0) return "{}";
      let entries = Array.from(x.entries());
      if (sortKeys) {
        entries = entries.sort(([a], [b]) => {
          const sa = pyStr(a);
          const sb = pyStr(b);
          return sa < sb ? -1 : sa > sb ? 1 : 0;
        });
      }
      return built(
        "{" +
          nl +
          entries.map(([k, i]) => jsonKey(k, ensureAscii) + keySep + enc(i, level + 1)).join(sep) +
          close +
          "}",
      );
    }
    const tn = x instanceof PyIterator ? x.typeName : x instanceof PyUndefined ? "Undefined" : typeName(x);
    throw new PyError("TypeError", `Object of type ${tn} is not JSON serializable`);
  };
  return enc(v, 0);
}
