/**
 * GBNF from a PEG definition: the same combinators that parse the model's output constrain
 * its generation. Ordered choice becomes plain alternation; `until` becomes an automaton for
 * "text not containing the delimiter"; lookaheads have no grammar counterpart and are dropped
 * (the grammar then accepts a superset of what the parser does). Lazy mode emits only the trigger
 * rules (what follows a trigger) and returns the trigger words/patterns that activate it.
 */
import {
  EMPTY,
  type GbnfExpr,
  type GbnfPrintOptions,
  GbnfBuilder,
  LruCache,
  type LruCacheStats,
  type RawText,
  type RegexNode,
  type Relaxation,
  SchemaConverter,
  type SchemaToGbnfOptions,
  alt,
  any,
  chars,
  cls,
  complementDfa,
  contentKey,
  dfaToGbnf,
  lit,
  opt,
  rawStringDfa,
  ref,
  regexToDfa,
  rep,
  repeatCapped,
  seq,
  star,
} from "../grammar/internal.js";
import type { PegArena } from "./peg-arena.js";
import type { PegId, PegNode } from "./peg-nodes.js";

/** Where a space sits in JSON text (see the `space` node). */
type JsonGap = NonNullable<Extract<PegNode, { type: "space" }>["json"]>;

/** What activates a lazy grammar (llama.cpp's grammar trigger kinds). */
export type GrammarTrigger =
  | { readonly type: "word"; readonly value: string }
  | { readonly type: "pattern"; readonly value: string };

/** Options of {@link pegToGbnf}. */
export interface PegGbnfOptions extends SchemaToGbnfOptions, GbnfPrintOptions {
  /** Emit only the trigger rules and return their triggers (default false). */
  lazy?: boolean;
  /**
   * What one `space()` may produce (the parser takes any amount). Default: up to 20 whitespace
   * characters. Given: up to `inline` spaces/tabs, then optionally up to `lines` line breaks and
   * `indent` spaces/tabs of indentation (what templates render, and little more).
   */
  space?: { inline: number; lines: number; indent: number };
}

/** A grammar and, in lazy mode, what triggers it. */
export interface PegGbnf {
  grammar: string;
  triggers: GrammarTrigger[];
}

/** Default of {@link PegGbnfOptions.spaceLimit}. */
const SPACE_LIMIT = 20;

class Emitter {
  readonly builder = new GbnfBuilder();
  readonly schemas: SchemaConverter;
  private readonly ruleNames = new Map<string, string>();
  private readonly untilRules = new Map<string, GbnfExpr>();
  private readonly space: GbnfExpr;
  /** The JSON spelling is exact ("spaced", "none"): JSON spaces follow it, not the free space. */
  private readonly exactJson: boolean;

  constructor(
    private readonly arena: PegArena,
    options: PegGbnfOptions,
  ) {
    this.exactJson = options.whitespace === "spaced" || options.whitespace === "none";
    const sp = options.space;
    if (sp === undefined) this.space = rep(chars(" \t\r\n"), 0, SPACE_LIMIT);
    else {
      for (const key of ["inline", "lines", "indent"] as const) {
        const v = sp[key];
        if (!Number.isInteger(v) || v < 0)
          throw new RangeError(`pegToGbnf: options.space.${key} must be a non-negative integer, got ${String(v)}`);
      }
      const blank = chars(" \t");
      const lineBreak = seq(opt(lit("\r")), lit("\n"));
      this.space = seq(
        rep(blank, 0, sp.inline),
        sp.lines === 0 ? EMPTY : opt(seq(rep(lineBreak, 1, sp.lines), rep(blank, 0, sp.indent))),
      );
    }
    this.builder.reserve("root");
    // Generated JSON keeps the schema's property order unless asked otherwise (see SchemaToGbnfOptions.propertyOrder).
    this.schemas = new SchemaConverter(this.builder, { ...options, propertyOrder: options.propertyOrder ?? "schema" });
  }

  /** A `space()` node: in JSON text under an exact spelling, what the schemas' JSON writes there. */
  private spaceOf(gap: JsonGap | undefined): GbnfExpr {
    if (gap !== undefined && this.exactJson) return gap === "separator" ? this.schemas.jt.sep() : this.schemas.jt.ws();
    return ref(this.builder.add("space", this.space));
  }

  /** The GBNF rule of PEG rule `name` (emitted on first use). */
  rule(name: string): GbnfExpr {
    const existing = this.ruleNames.get(name);
    if (existing !== undefined) return ref(existing);
    const id = this.arena.ruleNode(name);
    if (id === undefined) throw new RangeError(`pegToGbnf: rule ${JSON.stringify(name)} is not defined`);
    const node = this.arena.node(id);
    if (node.type !== "rule") throw new RangeError(`pegToGbnf: ${name} is not a rule`);
    const gname = this.builder.reserve(name);
    this.ruleNames.set(name, gname);
    this.builder.define(gname, this.expr(node.item));
    return ref(gname);
  }

  expr(id: PegId): GbnfExpr {
    const n = this.arena.node(id);
    switch (n.type) {
      case "literal":
        return lit(n.text);
      case "chars":
        return repeatCapped(cls(n.ranges, n.negated), n.min, n.max);
      case "any":
        return any();
      case "until":
        return this.until(n.delimiters);
      case "rest":
        return star(any());
      case "sequence":
        return seq(...n.items.map((i) => this.expr(i)));
      case "choice":
        return alt(...n.items.map((i) => this.expr(i)));
      case "repeat": {
        let item = this.expr(n.item);
        // Complex items get a rule of their own (llama.cpp limits nested repetition expansions).
        if (item.type !== "ref" && item.type !== "literal" && item.type !== "class" && item.type !== "any") {
          item = ref(this.builder.add("repeat", item));
        }
        return repeatCapped(item, n.min, n.max);
      }
      case "not":
      case "and":
        // No grammar counterpart: the grammar accepts a superset here.
        return EMPTY;
      case "rule":
        return this.rule(n.name);
      case "ref":
        return this.rule(n.name);
      case "json":
        return this.schemas.jt.value();
      case "lenient":
        return this.expr(n.grammar);
      case "schema":
        if (n.grammar !== undefined) return this.expr(n.grammar);
        return n.raw ? this.rawSchema(n.item, n.schema, n.name) : ref(this.schemas.convert(n.schema, n.name));
      case "tag":
      case "capture":
      case "atomic":
        return this.expr(n.item);
      case "space":
        return this.spaceOf(n.json);
      case "eps":
      case "end":
        return EMPTY;
    }
  }

  /**
   * Unquoted string values: an enum becomes its literals; pattern, format and length bounds
   * narrow the text parser's own grammar (see raw-string.ts); otherwise that grammar.
   */
  private rawSchema(item: PegId, schema: unknown, name: string): GbnfExpr {
    const s = schema as { enum?: unknown[]; const?: unknown } | null;
    if (s && typeof s === "object") {
      const values = Array.isArray(s.enum) ? s.enum : "const" in s ? [s.const] : null;
      if (values && values.length > 0 && values.every((v) => typeof v === "string"))
        return alt(...(values as string[]).map(lit));
    }
    // A parser-only reading of the text (lenient) is the grammar's text here.
    const written = this.arena.node(item);
    const n = written.type === "lenient" ? this.arena.node(written.grammar) : written;
    const text: RawText | null =
      n.type === "until"
        ? { kind: "until", delimiters: n.delimiters }
        : n.type === "chars"
          ? { kind: "chars", ranges: n.ranges, negated: n.negated, min: n.min, max: n.max }
          : null;
    const d = text === null ? null : rawStringDfa(schema, text);
    if (d !== null) return dfaToGbnf(this.builder, d, name, { char: (r) => cls(r), accept: EMPTY });
    return this.expr(item);
  }

  /** Text not containing any delimiter: the complement of "contains a delimiter", as rules. */
  private until(delimiters: readonly string[]): GbnfExpr {
    const key = JSON.stringify(delimiters);
    const cached = this.untilRules.get(key);
    if (cached) return cached;
    const word = (d: string): RegexNode => ({
      type: "seq",
      items: [...d].map((c) => ({ type: "set", ranges: [[c.codePointAt(0)!, c.codePointAt(0)!]] }) as RegexNode),
    });
    const contains = regexToDfa({ type: "alt", items: delimiters.map(word) });
    const e = dfaToGbnf(this.builder, complementDfa(contains), "until", { char: (r) => cls(r), accept: EMPTY });
    this.untilRules.set(key, e);
    return e;
  }

  /** The literal every match of `id` starts with ("" if none is certain). */
  leadingLiteral(id: PegId, seen = new Set<PegId>()): string {
    if (seen.has(id)) return "";
    seen.add(id);
    const n = this.arena.node(id);
    switch (n.type) {
      case "literal":
        return n.text;
      case "sequence": {
        for (const item of n.items) {
          const inner = this.arena.node(item);
          if (inner.type === "eps" || inner.type === "not" || inner.type === "and") continue;
          // Parser-only leniency the grammar writes nothing for (whitespace before a marker).
          if (inner.type === "lenient" && this.arena.node(inner.grammar).type === "eps") continue;
          return this.leadingLiteral(item, seen);
        }
        return "";
      }
      case "choice": {
        const parts = n.items.map((i) => this.leadingLiteral(i, new Set(seen)));
        let prefix = parts[0] ?? "";
        for (const p of parts) while (!p.startsWith(prefix)) prefix = prefix.slice(0, -1);
        return prefix;
      }
      case "repeat":
        return n.min > 0 ? this.leadingLiteral(n.item, seen) : "";
      case "lenient":
        return this.leadingLiteral(n.grammar, seen);
      case "rule":
      case "json":
      case "schema":
      case "tag":
      case "capture":
      case "atomic":
        return this.leadingLiteral(n.item, seen);
      case "ref": {
        const r = this.arena.ruleNode(n.name);
        return r === undefined ? "" : this.leadingLiteral(r, seen);
      }
      case "chars":
      case "any":
      case "until":
      case "rest":
      case "not":
      case "and":
      case "space":
      case "eps":
      case "end":
        return "";
    }
  }
}

/** Trigger rules reachable from `root`, in reachability order. */
function reachableTriggers(arena: PegArena, root: PegId): PegId[] {
  const out: PegId[] = [];
  const seen = new Set<PegId>();
  const visit = (id: PegId): void => {
    if (seen.has(id)) return;
    seen.add(id);
    const n = arena.node(id);
    switch (n.type) {
      case "sequence":
      case "choice":
        n.items.forEach(visit);
        return;
      case "lenient":
        visit(n.grammar);
        return;
      case "rule":
        if (n.trigger) out.push(id);
        visit(n.item);
        return;
      case "ref": {
        const r = arena.ruleNode(n.name);
        if (r !== undefined) visit(r);
        return;
      }
      case "repeat":
      case "not":
      case "and":
      case "json":
      case "schema":
      case "tag":
      case "capture":
      case "atomic":
        visit(n.item);
        return;
      case "literal":
      case "chars":
      case "any":
      case "until":
      case "rest":
      case "space":
      case "eps":
      case "end":
        return;
    }
  };
  visit(root);
  return out;
}

/**
 * The GBNF grammar of a PEG definition. With `lazy`, the grammar covers only what follows a
 * trigger (the trigger rules, which start with their trigger word) and `triggers` says what
 * activates it.
 *
 * @example
 * const { grammar, triggers } = pegToGbnf(arena, root, { lazy: true });
 * // triggers: [{ type: "word", value: "<tool_call>" }]
 */
export function pegToGbnf(arena: PegArena, root: PegId, options: PegGbnfOptions = {}): PegGbnf {
  arena.validate();
  const { onRelaxation, ...rest } = options;
  // Keyed by content: a request builds a new arena each time, with the same content when its tools,
  // schema and template are the same.
  const arenaKey = arena.contentKey();
  const extraKey = arenaKey === undefined ? undefined : contentKey([root, rest]);
  const key = extraKey === undefined ? undefined : `${arenaKey}\u0000${extraKey}`;
  const hit = key === undefined ? undefined : PEG_GBNF_CACHE.get(key);
  if (hit !== undefined) {
    for (const r of hit.relaxations) onRelaxation?.({ ...r });
    return { grammar: hit.grammar, triggers: hit.triggers.map((t) => ({ ...t })) };
  }
  const relaxations: Relaxation[] = [];
  const record = (r: Relaxation) => {
    relaxations.push({ ...r });
    onRelaxation?.(r);
  };
  const result = emitGbnf(arena, root, { ...rest, onRelaxation: record });
  if (key !== undefined) {
    PEG_GBNF_CACHE.set(
      key,
      { grammar: result.grammar, triggers: result.triggers.map((t) => ({ ...t })), relaxations },
      result.grammar.length,
    );
  }
  return result;
}

/** pegToGbnf's results by content of (arena, root, options). */
const PEG_GBNF_CACHE = new LruCache<PegGbnf & { relaxations: Relaxation[] }>(256, 32 * 1024 * 1024);

/**
 * Counters of pegToGbnf's cache (for tests and benchmarks).
 *
 * @example
 * const { hits, misses } = pegGbnfCacheStats();
 */
export function pegGbnfCacheStats(): LruCacheStats {
  return PEG_GBNF_CACHE.stats();
}

function emitGbnf(arena: PegArena, root: PegId, options: PegGbnfOptions): PegGbnf {
  const em = new Emitter(arena, options);
  const triggers: GrammarTrigger[] = [];
  let body: GbnfExpr;
  if (options.lazy) {
    const ids = reachableTriggers(arena, root);
    if (ids.length === 0) throw new RangeError("pegToGbnf({ lazy: true }): no trigger rule is reachable from the root");
    const alts: GbnfExpr[] = [];
    for (const id of ids) {
      const n = arena.node(id);
      if (n.type !== "rule" || !n.trigger) continue;
      if ("word" in n.trigger) triggers.push({ type: "word", value: n.trigger.word });
      else if ("pattern" in n.trigger) triggers.push({ type: "pattern", value: n.trigger.pattern });
      else {
        const word = em.leadingLiteral(n.item);
        if (word === "")
          throw new RangeError(
            `pegToGbnf: trigger rule ${JSON.stringify(n.name)} does not start with a literal; give { word } or ` +
              `{ pattern }`,
          );
        triggers.push({ type: "word", value: word });
      }
      alts.push(em.rule(n.name));
    }
    body = alt(...alts);
  } else {
    body = em.expr(root);
  }
  em.builder.define("root", body);
  const unique = triggers.filter((t, i) => triggers.findIndex((u) => u.type === t.type && u.value === t.value) === i);
  return { grammar: em.builder.toString(options), triggers: unique };
}
