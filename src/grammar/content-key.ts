/**
 * A string that identifies a value by its content, for caches of work derived from plain data
 * (a JSON Schema, a PEG arena): equal content gives the same key whoever built the objects, and a
 * value changed after use gives another. Key order is kept (it matters: `properties` order shapes a
 * grammar), so the same content written in another order is only a cache miss, never a wrong hit.
 */

/**
 * The key of a plain-data value (null, booleans, numbers, strings, arrays and plain objects,
 * undefined members included), or undefined when it holds anything else (a function, a class
 * instance, a Map, a cycle...): such a value is not cached.
 *
 * @example
 * contentKey({ type: "object", properties: { a: {} } }) === contentKey({ type: "object", properties: { a: {} } });
 * // true
 */
export function contentKey(value: unknown): string | undefined {
  const parts: string[] = [];
  return write(value, parts, new Set()) ? parts.join("") : undefined;
}

function write(value: unknown, out: string[], open: Set<object>): boolean {
  switch (typeof value) {
    case "string":
      out.push(JSON.stringify(value));
      return true;
    case "number":
      // -0, NaN and the infinities are told apart (JSON would print 0 or null).
      out.push(Object.is(value, -0) ? "-0" : Number.isFinite(value) ? String(value) : `#${String(value)}`);
      return true;
    case "boolean":
      out.push(value ? "t" : "f");
      return true;
    case "undefined":
      out.push("u");
      return true;
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) {
    out.push("n");
    return true;
  }
  if (open.has(value)) return false;
  open.add(value);
  let ok = true;
  if (Array.isArray(value)) {
    out.push("[");
    for (let i = 0; i < value.length && ok; i++) {
      if (i > 0) out.push(",");
      ok = write(value[i], out, open);
    }
    out.push("]");
  } else {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) ok = false;
    else {
      out.push("{");
      let first = true;
      for (const k of Object.keys(value)) {
        if (!first) out.push(",");
        first = false;
        out.push(JSON.stringify(k), ":");
        ok = write((value as Record<string, unknown>)[k], out, open);
        if (!ok) break;
      }
      out.push("}");
    }
  }
  open.delete(value);
  return ok;
}
