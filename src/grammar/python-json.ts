/**
 * JSON exactly as Python's `json` module sees it: a parser that keeps what `JSON.parse`
 * loses (int vs float, key order of integer-like keys, big integers) and a serializer that
 * prints what `json.dumps(data, ensure_ascii=False)` prints (`", "` / `": "` separators,
 * `1.0` for floats, `1e-05`, `NaN`). Used to turn test data into the text a Python tool sees.
 */

/** A JSON value with Python's distinctions kept. */
export type PyJson =
  | { readonly kind: "null" }
  | { readonly kind: "bool"; readonly value: boolean }
  /** An int, as its decimal digits (arbitrary size). */
  | { readonly kind: "int"; readonly digits: string }
  | { readonly kind: "float"; readonly value: number }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "array"; readonly items: readonly PyJson[] }
  /** A dict: entries in insertion order, keys unique (a repeated key keeps its first position, last value). */
  | { readonly kind: "object"; readonly entries: readonly (readonly [string, PyJson])[] };

/**
 * A JSON text that Python's `json.loads` would refuse.
 *
 * @example
 * try { parsePyJson("[1,]"); } catch (e) { (e as PyJsonSyntaxError).offset; } // 3
 */
export class PyJsonSyntaxError extends SyntaxError {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
    this.name = "PyJsonSyntaxError";
  }
}

class Reader {
  pos = 0;
  constructor(private readonly s: string) {}

  fail(msg: string): never {
    throw new PyJsonSyntaxError(msg, this.pos);
  }

  ws(): void {
    while (this.pos < this.s.length) {
      const c = this.s.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.pos++;
      else break;
    }
  }

  eat(word: string): boolean {
    if (this.s.startsWith(word, this.pos)) {
      this.pos += word.length;
      return true;
    }
    return false;
  }

  value(depth: number): PyJson {
    if (depth > 10000) this.fail("nesting too deep");
    this.ws();
    const c = this.s[this.pos];
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    if (c === '"') return { kind: "string", value: this.string() };
    if (this.eat("null")) return { kind: "null" };
    if (this.eat("true")) return { kind: "bool", value: true };
    if (this.eat("false")) return { kind: "bool", value: false };
    if (this.eat("NaN")) return { kind: "float", value: NaN };
    if (this.eat("Infinity")) return { kind: "float", value: Infinity };
    if (this.eat("-Infinity")) return { kind: "float", value: -Infinity };
    return this.number();
  }

  object(depth: number): PyJson {
    this.pos++;
    const entries: [string, PyJson][] = [];
    const index = new Map<string, number>();
    this.ws();
    if (this.eat("}")) return { kind: "object", entries };
    for (;;) {
      this.ws();
      if (this.s[this.pos] !== '"') this.fail("expecting a property name");
      const key = this.string();
      this.ws();
      if (!this.eat(":")) this.fail("expecting ':'");
      const v = this.value(depth + 1);
      const at = index.get(key);
      if (at === undefined) {
        index.set(key, entries.length);
        entries.push([key, v]);
      } else {
        entries[at] = [key, v];
      }
      this.ws();
      if (this.eat("}")) return { kind: "object", entries };
      if (!this.eat(",")) this.fail("expecting ',' or '}'");
    }
  }

  array(depth: number): PyJson {
    this.pos++;
    const items: PyJson[] = [];
    this.ws();
    if (this.eat("]")) return { kind: "array", items };
    for (;;) {
      items.push(this.value(depth + 1));
      this.ws();
      if (this.eat("]")) return { kind: "array", items };
      if (!this.eat(",")) this.fail("expecting ',' or ']'");
    }
  }

  string(): string {
    this.pos++;
    let out = "";
    for (;;) {
      const c = this.s[this.pos];
      if (c === undefined) this.fail("unterminated string");
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c === "\\") {
        const e = this.s[this.pos + 1];
        this.pos += 2;
        switch (e) {
          case '"':
          case "\\":
          case "/":
            out += e;
            break;
          case "b":
            out += "\b";
            break;
          case "f":
            out += "\f";
            break;
          case "n":
            out += "\n";
            break;
          case "r":
            out += "\r";
            break;
          case "t":
            out += "\t";
            break;
          case "u": {
            const h = this.s.slice(this.pos, this.pos + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(h)) this.fail("bad \\u escape");
            out += String.fromCharCode(parseInt(h, 16));
            this.pos += 4;
            break;
          }
          default:
            this.fail("bad escape");
        }
        continue;
      }
      if (c.charCodeAt(0) < 0x20) this.fail("control character in string");
      out += c;
      this.pos++;
    }
  }

  number(): PyJson {
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(this.s.slice(this.pos, this.pos + 400));
    if (!m || m[0] === "" || m[0] === "-") this.fail("expecting a value");
    this.pos += m[0].length;
    if (m[2] === undefined && m[3] === undefined) {
      const digits = m[0] === "-0" ? "0" : m[0];
      return { kind: "int", digits };
    }
    return { kind: "float", value: Number(m[0]) };
  }
}

/**
 * Parses JSON text the way Python's `json.loads` does.
 *
 * @example
 * parsePyJson('{"2": 1.0, "1": 7}');
 * // { kind: "object", entries: [["2", { kind: "float", value: 1 }], ["1", { kind: "int", digits: "7" }]] }
 */
export function parsePyJson(text: string): PyJson {
  if (typeof text !== "string") throw new TypeError(`parsePyJson(text): text must be a string, got ${typeof text}`);
  const r = new Reader(text);
  const v = r.value(0);
  r.ws();
  if (r.pos !== text.length) r.fail("extra data after the value");
  return v;
}

/**
 * Python's `repr(float)` (also what `json.dumps` prints for finite floats).
 *
 * @example
 * pythonFloatRepr(1);      // "1.0"
 * pythonFloatRepr(1e-5);   // "1e-05"
 * pythonFloatRepr(1e16);   // "1e+16"
 */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  // toExponential() with no argument gives the shortest digits that round-trip, like Python's repr.
  const [mant, expText] = Math.abs(x).toExponential().split("e") as [string, string];
  const digits = mant.replace(".", "");
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    const frac = digits.length > 1 ? "." + digits.slice(1) : "";
    const e = Math.abs(exp).toString().padStart(2, "0");
    return `${sign}${digits[0]}${frac}e${exp < 0 ? "-" : "+"}${e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const fracPart = digits.slice(exp + 1);
  return `${sign}${intPart}.${fracPart === "" ? "0" : fracPart}`;
}

/**
 * A JSON string literal as `json.dumps(..., ensure_ascii=False)` writes it.
 *
 * @example
 * pythonJsonString('a"\u0001é'); // '"a\\"\\u0001é"'
 */
export function pythonJsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c === 0x08) out += "\\b";
    else if (c === 0x0c) out += "\\f";
    else if (c < 0x20) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += s[i];
  }
  return out + '"';
}

/**
 * `json.dumps(value, ensure_ascii=False)`: `", "` and `": "` separators, Python number forms.
 *
 * @example
 * dumpsPython(parsePyJson('{"a":[1,2.50,true]}')); // '{"a": [1, 2.5, true]}'
 */
export function dumpsPython(v: PyJson): string {
  switch (v.kind) {
    case "null":
      return "null";
    case "bool":
      return v.value ? "true" : "false";
    case "int":
      return v.digits;
    case "float":
      return pythonFloatRepr(v.value);
    case "string":
      return pythonJsonString(v.value);
    case "array":
      return "[" + v.items.map(dumpsPython).join(", ") + "]";
    case "object":
      return "{" + v.entries.map(([k, x]) => pythonJsonString(k) + ": " + dumpsPython(x)).join(", ") + "}";
  }
}

/**
 * Converts to a plain JS value (ints beyond 2^53 lose precision, as with `JSON.parse`).
 *
 * @example
 * pyJsonToJs(parsePyJson('{"a": 1.0}')); // { a: 1 }
 */
export function pyJsonToJs(v: PyJson): unknown {
  switch (v.kind) {
    case "null":
      return null;
    case "bool":
      return v.value;
    case "int":
      return Number(v.digits);
    case "float":
      return v.value;
    case "string":
      return v.value;
    case "array":
      return v.items.map(pyJsonToJs);
    case "object": {
      const o: Record<string, unknown> = {};
      for (const [k, x] of v.entries)
        Object.defineProperty(o, k, { value: pyJsonToJs(x), enumerable: true, writable: true, configurable: true });
      return o;
    }
  }
}
