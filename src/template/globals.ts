/**
 * The global functions a chat template sees under transformers: Jinja2's own (`range`,
 * `namespace`, `dict`, `cycler`, `joiner`) plus transformers' `raise_exception` and
 * `strftime_now` (with an injectable clock).
 *
 * @example
 * const globals = makeGlobals(() => new Date());
 */
import { TemplateError } from "./errors.js";
import { strftime } from "./strftime.js";
import {
  PyCallable,
  PyError,
  PyNamespace,
  PyRange,
  isInt,
  numVal,
  pyStr,
  typeName,
  type PyArgs,
  type PyDict,
  type PyValue,
} from "./py-values.js";
import { iterate } from "./py-ops.js";

const MAX_RANGE = 100000;

function range({ args }: PyArgs): PyValue {
  for (const a of args) {
    if (!isInt(a)) throw new PyError("TypeError", `'${typeName(a)}' object cannot be interpreted as an integer`);
  }
  const n = args.map((a) => numVal(a as number));
  const [start, stop, step] = n.length === 1 ? [0, n[0]!, 1] : [n[0] ?? 0, n[1] ?? 0, n[2] ?? 1];
  if (step === 0) throw new PyError("ValueError", "range() arg 3 must not be zero");
  const r = new PyRange(start, stop, step);
  // Checked on the arithmetic length, before anything is built: range(10**18) must not allocate.
  if (!(r.length <= MAX_RANGE)) {
    throw new PyError(
      "OverflowError",
      `Range too big. The sandbox blocks ranges larger than MAX_RANGE (${MAX_RANGE}).`,
    );
  }
  return r;
}

function namespace({ args, kwargs }: PyArgs): PyValue {
  const attrs = new Map<string, PyValue>();
  for (const a of args) {
    if (a instanceof Map) for (const [k, v] of a) attrs.set(String(k), v);
    else
      for (const pair of iterate(a)) {
        const [k, v] = iterate(pair);
        attrs.set(pyStr(k ?? null), v ?? null);
      }
  }
  for (const [k, v] of kwargs) attrs.set(k, v);
  return new PyNamespace(attrs);
}

function dict({ args, kwargs }: PyArgs): PyValue {
  const d: PyDict = new Map();
  for (const a of args) {
    if (a instanceof Map) for (const [k, v] of a) d.set(k, v);
    else
      for (const pair of iterate(a)) {
        const [k, v] = iterate(pair);
        d.set(k as string, v ?? null);
      }
  }
  for (const [k, v] of kwargs) d.set(k, v);
  return d;
}

function cycler({ args }: PyArgs): PyValue {
  let i = 0;
  const attrs = new Map<string, PyValue>();
  attrs.set("next", new PyCallable("next", () => args[i++ % args.length] ?? null));
  attrs.set("reset", new PyCallable("reset", () => ((i = 0), null)));
  return new PyNamespace(attrs);
}

function joiner({ args }: PyArgs): PyValue {
  const sep = args[0] ?? ", ";
  let used = false;
  return new PyCallable("joiner", () => {
    if (!used) {
      used = true;
      return "";
    }
    return sep;
  });
}

/** Builds the global variables for renders that read the clock through `now`. */
export function makeGlobals(now: () => Date): Map<string, PyValue> {
  return new Map<string, PyValue>([
    ["range", new PyCallable("range", range, "<class 'range'>")],
    ["namespace", new PyCallable("namespace", namespace, "<class 'jinja2.utils.Namespace'>")],
    ["dict", new PyCallable("dict", dict, "<class 'dict'>")],
    ["cycler", new PyCallable("cycler", cycler, "<class 'jinja2.utils.Cycler'>")],
    ["joiner", new PyCallable("joiner", joiner, "<class 'jinja2.utils.Joiner'>")],
    [
      "raise_exception",
      new PyCallable("raise_exception", ({ args }) => {
        throw new TemplateError(pyStr(args[0] ?? null));
      }),
    ],
    [
      "strftime_now",
      new PyCallable("strftime_now", ({ args }) => {
        const fmt = args[0];
        if (typeof fmt !== "string") throw new PyError("TypeError", "strftime() argument 1 must be str");
        return strftime(now(), fmt);
      }),
    ],
  ]);
}
