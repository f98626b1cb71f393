/**
 * Records which inputs a render touched, for capability probes: objects by identity, strings by
 * value (probe inputs use unique marker strings), plus the operations applied to them
 * (`test_is_string`, `array_access`, filter names, method names) and the variables read.
 *
 * @example
 * const stats = new UsageStats();
 * // ...render with stats...
 * stats.used(messages[0].get("content"), "test_is_string");
 */
import { PyMarkup, PyNamespace, PyTuple, type PyValue } from "./py-values.js";

export class UsageStats {
  readonly #objects = new WeakMap<object, Set<string>>();
  readonly #strings = new Map<string, Set<string>>();
  readonly #vars = new Set<string>();

  #ops(v: PyValue): Set<string> | undefined {
    if (typeof v === "string") {
      let s = this.#strings.get(v);
      if (!s) this.#strings.set(v, (s = new Set()));
      return s;
    }
    if (v instanceof PyMarkup) return this.#ops(v.value);
    if (v !== null && typeof v === "object") {
      let s = this.#objects.get(v);
      if (!s) this.#objects.set(v, (s = new Set()));
      return s;
    }
    return undefined;
  }

  /** Marks `v` used, optionally by operation `op`. */
  mark(v: PyValue, op?: string): void {
    const s = this.#ops(v);
    if (s && op) s.add(op);
  }

  /** Marks `v` and everything inside it used (tojson / string dump the whole value). */
  markDeep(v: PyValue): void {
    // Once per container: nested lists may share items, and walking every path can be exponential.
    if (v !== null && typeof v === "object" && this.#objects.get(v)?.has("deep")) return;
    this.mark(v, "deep");
    if (Array.isArray(v)) for (const x of v) this.markDeep(x);
    else if (v instanceof PyTuple) for (const x of v.items) this.markDeep(x);
    else if (v instanceof Map) {
      for (const [k, x] of v) {
        this.mark(k);
        this.markDeep(x);
      }
    } else if (v instanceof PyNamespace) for (const x of v.attrs.values()) this.markDeep(x);
  }

  /** `obj[key]` / `obj.key` produced `result`. */
  access(obj: PyValue, key: PyValue, result: PyValue): void {
    this.mark(result);
    this.mark(obj, typeof key === "number" ? "array_access" : "object_access");
    if (typeof key === "string") this.mark(obj, key);
  }

  /** A template variable was looked up (found or not). */
  readVar(name: string, value: PyValue | undefined): void {
    this.#vars.add(name);
    if (value !== undefined) this.mark(value);
  }

  /** Whether `v` was used (by `op`, when given). */
  used(v: unknown, op?: string): boolean {
    let s: Set<string> | undefined;
    if (typeof v === "string") s = this.#strings.get(v);
    else if (v !== null && typeof v === "object") s = this.#objects.get(v);
    if (!s) return false;
    return op === undefined || s.has(op);
  }

  /** Whether `obj[key]` was read, or all of `obj` (dumped or iterated). */
  usedMember(obj: unknown, key: string): boolean {
    if (obj === null || typeof obj !== "object") return false;
    const s = this.#objects.get(obj);
    return (
      !!s &&
      (s.has(key) || s.has("deep") || s.has("items") || s.has("values") || s.has("iterated") || s.has("dictsort"))
    );
  }

  /** Whether the template looked up variable `name`. */
  readsVar(name: string): boolean {
    return this.#vars.has(name);
  }
}
