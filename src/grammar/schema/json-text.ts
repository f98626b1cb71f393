/**
 * GBNF for JSON text: whitespace policy, the generic value rules, and the JSON spelling of
 * one character from a set (raw where JSON allows it, otherwise its canonical escape).
 *
 * Whitespace policy ("flexible", the default): `ws ::= | " " | "\n" [ \t]{0,20}` is allowed
 * after `{`, `[`, `,` and `:` and before `}` and `]`; nowhere else (not before `,` or `:`, not
 * around the whole value). That accepts compact JSON, Python's `json.dumps` output (`", "`,
 * `": "`) and indented pretty-printing up to 20 columns, while keeping the model from emitting
 * unbounded whitespace. "single" allows at most one space; "none" allows no whitespace at all.
 * "spaced" allows exactly Python's `json.dumps` spelling: one space after `:` and `,`, none
 * elsewhere, so that every separator is forced text (what a chat template that renders its calls
 * with `tojson` taught the model, see chat/template-json-style.ts).
 */
import { type CodeRange, intersectRanges, normalizeRanges } from "../char-set.js";
import { type GbnfExpr, EMPTY, alt, chars, cls, lit, opt, ref, rep, seq, star } from "../gbnf-ast.js";
import type { GbnfBuilder } from "../gbnf-builder.js";
import { pythonFloatRepr, pythonJsonString } from "../python-json.js";

/**
 * How much whitespace the grammar allows between JSON tokens:
 * - `"flexible"` (default): none, one space, or a line break and up to 20 columns of indent, after `{`, `[`, `,`
 *   and `:` and before `}` and `]`;
 * - `"single"`: at most one space there;
 * - `"none"`: none (compact JSON);
 * - `"spaced"`: exactly Python's `json.dumps` spelling, one space after `:` and `,` and none elsewhere.
 *
 * @example
 * import { jsonSchemaToGbnf } from "toolwright/grammar";
 * jsonSchemaToGbnf({ type: "object" }, { whitespace: "spaced" });
 */
export type WhitespacePolicy = "flexible" | "single" | "none" | "spaced";

/** Every whitespace policy (the compiler holds the list complete), for checking an option. */
export const WHITESPACE_POLICIES = Object.keys({
  flexible: true,
  single: true,
  none: true,
  spaced: true,
} satisfies Record<WhitespacePolicy, true>) as readonly WhitespacePolicy[];

const HEX = cls([
  [0x30, 0x39],
  [0x41, 0x46],
  [0x61, 0x66],
]);
const DIGIT = cls([[0x30, 0x39]]);
const DIGIT19 = cls([[0x31, 0x39]]);

/**
 * Code points JSON text may carry unescaped inside a string (no quote, backslash or control).
 * Surrogates are included only because it keeps classes short: UTF-8 input never has them.
 */
export const RAW_STRING_CHARS: readonly CodeRange[] = normalizeRanges([
  [0x20, 0x21],
  [0x23, 0x5b],
  [0x5d, 0x10ffff],
]);

/** The code points that must be escaped in a JSON string. */
const ESCAPED_CHARS: readonly CodeRange[] = [
  [0x00, 0x1f],
  [0x22, 0x22],
  [0x5c, 0x5c],
];

const SHORT_ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x22, '"'],
  [0x5c, "\\"],
  [0x08, "b"],
  [0x09, "t"],
  [0x0a, "n"],
  [0x0c, "f"],
  [0x0d, "r"],
]);

/**
 * Builds (once) and names the JSON primitive rules inside a {@link GbnfBuilder}.
 *
 * @example
 * const jt = new JsonText(new GbnfBuilder(), "flexible");
 * const e = seq(lit("["), jt.ws(), jt.value(), lit("]"));
 */
export class JsonText {
  private readonly cache = new Map<string, string>();

  constructor(
    readonly builder: GbnfBuilder,
    readonly whitespace: WhitespacePolicy = "flexible",
  ) {}

  private rule(name: string, make: () => GbnfExpr): GbnfExpr {
    let n = this.cache.get(name);
    if (n === undefined) {
      n = this.builder.add(name, make());
      this.cache.set(name, n);
    }
    return ref(n);
  }

  /** Whitespace after `{` or `[` and before `}` or `]`, per the policy. */
  ws(): GbnfExpr {
    switch (this.whitespace) {
      case "none":
      case "spaced":
        return EMPTY;
      case "single":
        return this.rule("ws", () => opt(lit(" ")));
      case "flexible":
        return this.rule("ws", () => alt(EMPTY, lit(" "), seq(lit("\n"), rep(chars(" \t"), 0, 20))));
    }
  }

  /** Whitespace after `:` or `,`, per the policy. */
  sep(): GbnfExpr {
    return this.whitespace === "spaced" ? lit(" ") : this.ws();
  }

  /** One JSON string character, any escape allowed. */
  char(): GbnfExpr {
    return this.rule("char", () =>
      alt(
        cls(
          [
            [0x22, 0x22],
            [0x5c, 0x5c],
            [0x00, 0x1f],
          ],
          true,
        ),
        seq(lit("\\"), alt(chars('"\\/bfnrt'), seq(lit("u"), rep(HEX, 4, 4)))),
      ),
    );
  }

  /** Any JSON string. */
  string(): GbnfExpr {
    return this.rule("string", () => seq(lit('"'), star(this.char()), lit('"')));
  }

  /** A JSON string whose content is `count` characters (any escape allowed). */
  stringOfLength(min: number, max: number | null): GbnfExpr {
    return seq(lit('"'), repeatCapped(this.char(), min, max), lit('"'));
  }

  /** Any JSON integer literal (`-0` included, as JSON allows it). */
  integer(): GbnfExpr {
    return this.rule("integer", () => seq(opt(lit("-")), alt(lit("0"), seq(DIGIT19, star(DIGIT)))));
  }

  /** Any JSON number. */
  number(): GbnfExpr {
    return this.rule("number", () =>
      seq(
        this.integer(),
        opt(seq(lit("."), rep(DIGIT, 1, null))),
        opt(seq(chars("eE"), opt(chars("+-")), rep(DIGIT, 1, null))),
      ),
    );
  }

  boolean(): GbnfExpr {
    return this.rule("boolean", () => alt(lit("true"), lit("false")));
  }

  null(): GbnfExpr {
    return lit("null");
  }

  /** Any JSON value. */
  value(): GbnfExpr {
    const name = this.cache.get("value");
    if (name !== undefined) return ref(name);
    // value, object and array are mutually recursive: reserve first.
    const v = this.builder.reserve("value");
    this.cache.set("value", v);
    const obj = this.builder.reserve("object");
    this.cache.set("object", obj);
    const arr = this.builder.reserve("array");
    this.cache.set("array", arr);
    const ws = this.ws();
    const sep = this.sep();
    const member = seq(this.string(), lit(":"), sep, ref(v));
    this.builder.define(obj, seq(lit("{"), ws, opt(seq(member, star(seq(lit(","), sep, member)), ws)), lit("}")));
    this.builder.define(arr, seq(lit("["), ws, opt(seq(ref(v), star(seq(lit(","), sep, ref(v))), ws)), lit("]")));
    this.builder.define(v, alt(ref(obj), ref(arr), this.string(), this.number(), this.boolean(), lit("null")));
    return ref(v);
  }

  /** Any JSON object. */
  object(): GbnfExpr {
    this.value();
    return ref(this.cache.get("object")!);
  }

  /** Any JSON array. */
  array(): GbnfExpr {
    this.value();
    return ref(this.cache.get("array")!);
  }

  /**
   * The JSON spelling of one character from `ranges`: raw where allowed, else the canonical
   * escape (`\"`, `\\`, `\n`..., `\u00XX` for other controls, either hex case).
   */
  charIn(ranges: readonly CodeRange[]): GbnfExpr {
    const raw = intersectRanges(ranges, RAW_STRING_CHARS);
    const parts: GbnfExpr[] = [];
    if (raw.length > 0) parts.push(cls(raw));
    const escaped = intersectRanges(ranges, ESCAPED_CHARS);
    if (escaped.length === 3 && escaped[0]![0] === 0 && escaped[0]![1] === 0x1f) {
      // Every escapable character: one shared rule.
      parts.push(this.rule("esc", () => seq(lit("\\"), alt(chars('"\\bfnrt'), seq(lit("u00"), chars("01"), HEX)))));
      return alt(...parts);
    }
    let shortLetters = "";
    const controls: number[] = [];
    for (const [lo, hi] of intersectRanges(ranges, [
      [0, 0x1f],
      [0x22, 0x22],
      [0x5c, 0x5c],
    ])) {
      for (let c = lo; c <= hi; c++) {
        const short = SHORT_ESCAPES.get(c);
        if (short !== undefined) shortLetters += short;
        else controls.push(c);
      }
    }
    if (shortLetters !== "")
      parts.push(seq(lit("\\"), shortLetters.length === 1 ? lit(shortLetters) : chars(shortLetters)));
    if (controls.length > 0) {
      const byHigh = new Map<number, number[]>();
      for (const c of controls) byHigh.set(c >> 4, [...(byHigh.get(c >> 4) ?? []), c & 15]);
      const tails = [...byHigh].map(([high, lows]) => seq(lit(String(high)), hexDigitClass(lows)));
      parts.push(seq(lit("\\u00"), alt(...tails)));
    }
    if (parts.length === 0) throw new RangeError("charIn: the character set is empty");
    return alt(...parts);
  }

  /**
   * A specific JSON value (for `const`/`enum`), whitespace per policy. Integral numbers also
   * match their float spelling (`1` and `1.0` are equal in JSON Schema).
   */
  literal(value: unknown): GbnfExpr {
    const ws = this.ws();
    const sep = this.sep();
    if (value === null) return lit("null");
    if (typeof value === "boolean") return lit(value ? "true" : "false");
    if (typeof value === "number") return numberLiteral(value);
    if (typeof value === "string") return lit(pythonJsonString(value));
    if (Array.isArray(value)) {
      if (value.length === 0) return seq(lit("["), ws, lit("]"));
      const items = value.map((v) => this.literal(v));
      const body = items.flatMap((x, i) => (i === 0 ? [x] : [lit(","), sep, x]));
      return seq(lit("["), ws, ...body, ws, lit("]"));
    }
    if (typeof value === "object") {
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.length === 0) return seq(lit("{"), ws, lit("}"));
      const members = entries.map(([k, v]) => seq(lit(pythonJsonString(k)), lit(":"), sep, this.literal(v)));
      const body = members.flatMap((x, i) => (i === 0 ? [x] : [lit(","), sep, x]));
      return seq(lit("{"), ws, ...body, ws, lit("}"));
    }
    throw new TypeError(`JsonText.literal: not a JSON value: ${String(value)}`);
  }
}

function hexDigitClass(values: number[]): GbnfExpr {
  const ranges: CodeRange[] = [];
  for (const v of values) {
    if (v < 10) ranges.push([0x30 + v, 0x30 + v]);
    else ranges.push([0x61 + v - 10, 0x61 + v - 10], [0x41 + v - 10, 0x41 + v - 10]);
  }
  return cls(ranges);
}

/** JSON spellings of a number: integral values also as `N.0`; Python and JS float forms. */
function numberLiteral(n: number): GbnfExpr {
  if (!Number.isFinite(n)) throw new RangeError(`JSON has no spelling for ${n}`);
  const forms = new Set<string>();
  if (Number.isInteger(n) && Math.abs(n) < 1e16) {
    const int = BigInt(n).toString();
    forms.add(int);
    forms.add(int + ".0");
  }
  forms.add(pythonFloatRepr(n));
  forms.add(String(n));
  return alt(...[...forms].map(lit));
}

/**
 * `item{min,max}` within llama.cpp's limits: counts above 2000 are split into chunks, and a
 * max above 2000 becomes unbounded (llama.cpp would do the same; listed as a relaxation).
 *
 * @example
 * repeatCapped(ref("char"), 0, 5000); // char*
 */
export function repeatCapped(item: GbnfExpr, min: number, max: number | null): GbnfExpr {
  const LIMIT = 2000;
  const effMax = max !== null && max > LIMIT ? null : max;
  if (min <= LIMIT) return rep(item, min, effMax === null ? null : Math.max(min, effMax));
  const parts: GbnfExpr[] = [];
  let left = min;
  while (left > LIMIT) {
    parts.push(rep(item, LIMIT, LIMIT));
    left -= LIMIT;
  }
  parts.push(rep(item, left, null));
  return seq(...parts);
}
