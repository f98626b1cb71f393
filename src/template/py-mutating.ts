/**
 * The list/dict methods that transformers' immutable sandbox forbids (`append`, `pop`, `update`,
 * ...). Only reachable with `allowMutation: true` or in lenient mode (compat.ts), for templates
 * written for engines that allow them (llama.cpp's Kimi-K2 templates use `list.append`/`pop`).
 *
 * @example
 * mutatingMethod([1], "append")!({ args: [2], kwargs: new Map() }); // list becomes [1, 2]
 */
import {
  PyError,
  PyTuple,
  isInt,
  numVal,
  pyRepr,
  truthy,
  type PyArgs,
  type PyDict,
  type PyValue,
} from "./py-values.js";
import { dictGet, dictSet, findKey, iterate, pyCompare, pyEquals } from "./py-ops.js";

type Method = (a: PyArgs) => PyValue;

function listMethod(l: PyValue[], name: string): Method | undefined {
  switch (name) {
    case "append":
      return ({ args }) => (l.push(args[0] ?? null), null);
    case "extend":
      return ({ args }) => (l.push(...iterate(args[0] ?? [])), null);
    case "insert":
      return ({ args }) => {
        const i = isInt(args[0] ?? null) ? numVal(args[0] as number) : 0;
        l.splice(i < 0 ? Math.max(0, l.length + i) : i, 0, args[1] ?? null);
        return null;
      };
    case "pop":
      return ({ args }) => {
        if (l.length === 0) throw new PyError("IndexError", "pop from empty list");
        const i = args[0] === undefined ? l.length - 1 : numVal(args[0] as number);
        const j = i < 0 ? i + l.length : i;
        if (j < 0 || j >= l.length) throw new PyError("IndexError", "pop index out of range");
        return l.splice(j, 1)[0]!;
      };
    case "remove":
      return ({ args }) => {
        const i = l.findIndex((x) => pyEquals(x, args[0] ?? null));
        if (i < 0) throw new PyError("ValueError", "list.remove(x): x not in list");
        l.splice(i, 1);
        return null;
      };
    case "reverse":
      return () => (l.reverse(), null);
    case "sort":
      return ({ kwargs }) => {
        l.sort((a, b) => pyCompare(a, b, "<"));
        if (truthy(kwargs.get("reverse") ?? false)) l.reverse();
        return null;
      };
    case "clear":
      return () => ((l.length = 0), null);
  }
  return undefined;
}

function dictMethod(d: PyDict, name: string): Method | undefined {
  switch (name) {
    case "clear":
      return () => (d.clear(), null);
    case "pop":
      return ({ args }) => {
        const k = findKey(d, args[0] ?? null);
        if (k !== undefined) {
          const v = d.get(k)!;
          d.delete(k);
          return v;
        }
        if (args.length > 1) return args[1]!;
        throw new PyError("KeyError", pyRepr(args[0] ?? null));
      };
    case "popitem":
      return () => {
        const last = Array.from(d.keys()).pop();
        if (last === undefined) throw new PyError("KeyError", "'popitem(): dictionary is empty'");
        const v = d.get(last)!;
        d.delete(last);
        return new PyTuple([last, v]);
      };
    case "setdefault":
      return ({ args }) => {
        const existing = dictGet(d, args[0] ?? null);
        if (existing !== undefined) return existing;
        dictSet(d, args[0] ?? null, args[1] ?? null);
        return args[1] ?? null;
      };
    case "update":
      return ({ args, kwargs }) => {
        const src = args[0];
        if (src instanceof Map) for (const [k, v] of src) dictSet(d, k, v);
        else if (src !== undefined)
          for (const pair of iterate(src)) {
            const [k, v] = iterate(pair);
            dictSet(d, k ?? null, v ?? null);
          }
        for (const [k, v] of kwargs) dictSet(d, k, v);
        return null;
      };
  }
  return undefined;
}

/** The mutating method `name` of a list or dict, or undefined. */
export function mutatingMethod(obj: PyValue, name: string): Method | undefined {
  if (Array.isArray(obj)) return listMethod(obj, name);
  if (obj instanceof Map) return dictMethod(obj, name);
  return undefined;
}
