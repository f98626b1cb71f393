/**
 * JSON Schema → GBNF. A schema (draft 4 to 2020-12) becomes rules in a {@link GbnfBuilder}:
 * subschemas are normalised (allOf, `$ref` + siblings merged), anyOf/oneOf branches are
 * expanded against their siblings, and each type gets its grammar. `$ref` targets get named
 * rules, so recursive schemas become recursive rules.
 *
 * `additionalProperties` when absent: allowed (the JSON Schema default) unless the option
 * `additionalProperties: false` is given, which forbids extra keys on objects that declare
 * `properties` or `patternProperties` (llama.cpp's behaviour, tighter for generation).
 * Whitespace: see `json-text.ts`. Approximations: see `schema-error.ts` (RELAXATIONS).
 */
import type { JsonSchema } from "../../types.js";
import { type GbnfExpr, alt, ref } from "../gbnf-ast.js";
import { GbnfBuilder, childRuleName } from "../gbnf-builder.js";
import type { GbnfPrintOptions } from "../gbnf-print.js";
import type { RegexNode } from "../regex/regex-ast.js";
import { RegexSyntaxError } from "../regex/regex-ast.js";
import { parseRegex } from "../regex/regex-parse.js";
import { JsonText, WHITESPACE_POLICIES, type WhitespacePolicy } from "./json-text.js";
import { type PropertyOrder, arrayExpr, objectExpr } from "./schema-containers.js";

export type { PropertyOrder } from "./schema-containers.js";

/** propertyOrder of {@link jsonSchemaToGbnf} when none is given: JSON Schema's meaning (any order). */
export const DEFAULT_PROPERTY_ORDER: PropertyOrder = "any";
import { SchemaDocument, type SchemaLocation } from "./schema-document.js";
import { contentKey } from "../content-key.js";
import { LruCache, type LruCacheStats } from "../lru-cache.js";
import { RELAXATIONS, RESTRICTION_KINDS, type Relaxation, type RelaxationKind, SchemaError } from "./schema-error.js";
import {
  ALL_TYPES,
  type Norm,
  type TypeName,
  cloneNorm,
  emptyNorm,
  isPureRef,
  jsonEqual,
  mergeInto,
} from "./schema-normalize.js";
import { effectiveTypes, isUnconstrained, normKey, valueAllowed } from "./norm-values.js";
import { integerExpr, numberExpr, stringExpr } from "./schema-scalars.js";
import { checkPatternBudget } from "./schema-budget.js";
import { NOTHING, firstNothing, isNothing, nothingBecause, nothingCause } from "./string-language.js";
import { withoutOpenApiNullable } from "./openapi-nullable.js";

/** Options of {@link jsonSchemaToGbnf} (and of the converter behind it). */
export interface SchemaToGbnfOptions {
  /** Whitespace allowed between JSON tokens (default "flexible"; see `json-text.ts`). */
  whitespace?: WhitespacePolicy;
  /**
   * What an absent `additionalProperties` means on objects declaring properties (default true, as JSON Schema says).
   */
  additionalProperties?: boolean;
  /**
   * Where declared properties may appear. "any" (default here): any order, as JSON Schema says
   * (exact, without repeated keys, for objects of up to four declared properties; beyond, an optional key
   * may repeat, RELAXATIONS.duplicateKeys). "schema": in `properties` order, as structured-output
   * APIs write them; the default of chat grammars (`pegToGbnf`), since a model writes better
   * JSON in the order the schema lists it. "required-first": the required properties first, then
   * the optional ones, each in `properties` order. Extra properties may appear anywhere.
   */
  propertyOrder?: PropertyOrder;
  /** Throw a {@link SchemaError} instead of any relaxation that would accept invalid instances. */
  strict?: boolean;
  /** Called once per relaxation applied (see RELAXATIONS). */
  onRelaxation?: (r: Relaxation) => void;
}

/** Most alternatives one schema may expand to through anyOf/oneOf combinations. */
const MAX_EXPANSION = 64;

const ANNOTATION_ONLY = (s: unknown): boolean =>
  s === true ||
  (s !== null &&
    typeof s === "object" &&
    !Array.isArray(s) &&
    Object.keys(s).every((k) =>
      [
        "title",
        "description",
        "$comment",
        "examples",
        "default",
        "$schema",
        "readOnly",
        "writeOnly",
        "deprecated",
      ].includes(k),
    ));

/**
 * Converts JSON Schemas into rules of a shared builder (several schemas may share one grammar,
 * as tool-call grammars need).
 *
 * @example
 * const b = new GbnfBuilder();
 * const conv = new SchemaConverter(b);
 * const rule = conv.convert({ type: "object", properties: { n: { type: "integer" } } }, "args");
 * b.define("root", ref(rule));
 * b.toString();
 */
export class SchemaConverter {
  readonly jt: JsonText;
  private doc: SchemaDocument | null = null;
  private readonly ruleCache = new Map<string, string>();
  private readonly pending = new Map<string, { recursive: boolean }>();
  private readonly exprCache = new Map<string, GbnfExpr>();
  private readonly inProgress = new Map<string, { name: string | null }>();
  private readonly reported = new Set<string>();
  private docCount = 0;
  /** Subschemas being visited inside one another (bounded by MAX_SCHEMA_DEPTH). */
  private depth = 0;

  constructor(
    readonly builder: GbnfBuilder,
    private readonly options: SchemaToGbnfOptions = {},
  ) {
    const ws = options.whitespace ?? "flexible";
    if (!WHITESPACE_POLICIES.includes(ws)) {
      const known = WHITESPACE_POLICIES.map((w) => JSON.stringify(w)).join(", ");
      throw new RangeError(`whitespace must be one of ${known}, got ${JSON.stringify(ws)}`);
    }
    const order = options.propertyOrder ?? DEFAULT_PROPERTY_ORDER;
    if (!["schema", "required-first", "any"].includes(order))
      throw new RangeError(`propertyOrder must be "schema", "required-first" or "any", got ${JSON.stringify(order)}`);
    this.jt = new JsonText(builder, ws);
  }

  get additionalDefault(): boolean {
    return this.options.additionalProperties ?? true;
  }

  get strict(): boolean {
    return this.options.strict === true;
  }

  get propertyOrder(): PropertyOrder {
    return this.options.propertyOrder ?? DEFAULT_PROPERTY_ORDER;
  }

  /**
   * Adds the rules for `schema`; returns the name of the rule matching its instances.
   * Throws {@link SchemaError} when the schema is malformed or matches nothing.
   */
  convert(schema: JsonSchema, name = "root"): string {
    if (typeof schema !== "boolean" && (schema === null || typeof schema !== "object" || Array.isArray(schema))) {
      throw new TypeError(
        `convert(schema): schema must be an object or a boolean, got ${schema === null ? "null" : typeof schema}`,
      );
    }
    let e: GbnfExpr;
    try {
      this.doc = new SchemaDocument(withoutOpenApiNullable(schema));
      this.docCount++;
      e = this.ruleFor([this.doc.root], name);
    } catch (err) {
      // A safety net under the depth bound of visit(): no stack overflow leaves as a RangeError.
      if (err instanceof RangeError && /call stack/i.test(err.message))
        throw new SchemaError("#", "(schema)", "the schema is nested too deeply to convert");
      throw err;
    } finally {
      this.depth = 0;
    }
    if (isNothing(e)) {
      // Name the subschema whose keywords left nothing, when the generators said which.
      const cause = nothingCause(e);
      if (cause === null) throw new SchemaError("#", "(schema)", "no JSON value satisfies this schema");
      throw new SchemaError(cause.pointer, cause.keyword, `${cause.reason}: no JSON value satisfies this schema`);
    }
    return (e as { name: string }).name;
  }

  relax(kind: RelaxationKind, pointer: string, keyword: string, detail?: string): void {
    if (this.options.strict && !RESTRICTION_KINDS.has(kind))
      throw new SchemaError(
        pointer,
        keyword,
        `not expressible exactly: ${RELAXATIONS[kind]}${detail ? ` (${detail})` : ""}`,
      );
    const key = `${this.docCount}|${kind}|${pointer}|${keyword}|${detail ?? ""}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.options.onRelaxation?.({ kind, pointer, keyword, ...(detail !== undefined ? { detail } : {}) });
  }

  private get document(): SchemaDocument {
    if (!this.doc) throw new Error("SchemaConverter: no document");
    return this.doc;
  }

  /** Grammar for a value satisfying every schema in `locs`. */
  visit(locs: readonly SchemaLocation[], hint: string): GbnfExpr {
    if (this.depth >= MAX_SCHEMA_DEPTH) {
      throw new SchemaError(
        locs[0]?.pointer ?? "#",
        "(schema)",
        `nested more than ${MAX_SCHEMA_DEPTH} subschemas deep (the converter's bound)`,
      );
    }
    this.depth++;
    try {
      return this.visitAt(locs, hint);
    } finally {
      this.depth--;
    }
  }

  private visitAt(locs: readonly SchemaLocation[], hint: string): GbnfExpr {
    const live = locs.filter((l) => !ANNOTATION_ONLY(l.schema));
    if (live.length === 0) return this.jt.value();
    const only = live.length === 1 ? live[0]!.schema : null;
    const refOnly =
      isPureRef(only) ||
      (this.document.refOverridesSiblings && typeof (only as { $ref?: unknown } | null)?.$ref === "string");
    if (refOnly) {
      const target = this.document.resolve((live[0]!.schema as { $ref: string }).$ref, live[0]!);
      return this.ruleFor([target], refHint(target.pointer, hint));
    }
    const n = this.normalize(live);
    return this.guarded(normKey(this.docCount, n), hint, () => this.generate(n, hint), n.pointer);
  }

  /**
   * Generates inline, but if generation reaches the same constraint set again (recursion through
   * allOf/anyOf/items), the set gets a named rule and the inner occurrence refers to it.
   */
  private guarded(key: string, hint: string, make: () => GbnfExpr, pointer: string): GbnfExpr {
    const active = this.inProgress.get(key);
    if (active) {
      active.name ??= this.builder.reserve(hint);
      return ref(active.name);
    }
    const done = this.exprCache.get(key);
    if (done) return done;
    const state: { name: string | null } = { name: null };
    this.inProgress.set(key, state);
    let e: GbnfExpr;
    try {
      e = make();
    } finally {
      this.inProgress.delete(key);
    }
    if (state.name !== null) {
      if (isNothing(e)) throw new SchemaError(pointer, "$ref", "a recursive schema matches nothing");
      this.builder.define(state.name, e);
      e = ref(state.name);
    }
    this.exprCache.set(key, e);
    return e;
  }

  /** A named rule for `locs` (reserved before generation, so recursion refers to it). */
  private ruleFor(locs: readonly SchemaLocation[], hint: string): GbnfExpr {
    if (locs.length === 1 && locs[0]!.schema === false) return NOTHING;
    const key =
      `${this.docCount}|` +
      locs
        .map((l) => l.pointer)
        .sort()
        .join("|");
    return this.reserveAndGenerate(key, hint, () => this.generate(this.normalize(locs), hint), locs[0]?.pointer ?? "#");
  }

  private reserveAndGenerate(key: string, hint: string, make: () => GbnfExpr, pointer: string): GbnfExpr {
    const name = this.ruleCache.get(key);
    if (name !== undefined) {
      const p = this.pending.get(name);
      if (p) p.recursive = true;
      return ref(name);
    }
    const reserved = this.builder.reserve(hint);
    this.ruleCache.set(key, reserved);
    this.pending.set(reserved, { recursive: false });
    const e = make();
    const state = this.pending.get(reserved)!;
    this.pending.delete(reserved);
    if (isNothing(e)) {
      if (state.recursive) throw new SchemaError(pointer, "$ref", "a recursive schema matches nothing");
      this.ruleCache.delete(key);
      this.builder.release(reserved);
      return e;
    }
    this.builder.define(reserved, e);
    return ref(reserved);
  }

  private normalize(locs: readonly SchemaLocation[]): Norm {
    const n = emptyNorm(locs[0]?.pointer ?? "#");
    const ctx = { doc: this.document, relax: this.relax.bind(this) };
    for (const l of locs) mergeInto(ctx, n, l);
    return n;
  }

  /** The values satisfying all of `locs` when they form a finite list (enum, const, booleans, null), else null. */
  finiteValues(locs: readonly SchemaLocation[]): unknown[] | null {
    if (locs.length === 0) return null;
    const n = this.normalize(locs);
    if (n.never !== null) return [];
    if (n.anyOf.length > 0) return null;
    let values: unknown[];
    if (n.enumValues !== null) values = n.enumValues;
    else if (n.types !== null && [...n.types].every((t) => t === "boolean" || t === "null"))
      values = [true, false, null];
    else return null;
    const out: unknown[] = [];
    for (const v of values) if (valueAllowed(n, v) && !out.some((w) => jsonEqual(v, w))) out.push(v);
    return out;
  }

  /** String constraints of `locs` (for propertyNames), or null when they are not only string keywords. */
  stringConstraintsOf(
    locs: readonly SchemaLocation[],
  ): { patterns: RegexNode[]; minLength: number; maxLength: number | null } | null {
    const n = this.normalize(locs);
    const patterns: RegexNode[] = [];
    for (const p of n.patterns) {
      let node: RegexNode;
      try {
        node = parseRegex(p.source);
      } catch (e) {
        if (!(e instanceof RegexSyntaxError)) throw e;
        this.relax("regexUnsupported", p.pointer, "propertyNames", e.message);
        continue;
      }
      checkPatternBudget(node, p.pointer, "propertyNames");
      patterns.push(node);
    }
    if (n.enumValues !== null || n.anyOf.length > 0)
      this.relax("not", n.pointer, "propertyNames", "only length and pattern of propertyNames are enforced");
    return { patterns, minLength: n.minLength, maxLength: n.maxLength };
  }

  private generate(n: Norm, hint: string): GbnfExpr {
    if (n.never !== null) return nothingBecause(n.pointer, "(schema)", n.never);
    if (n.anyOf.length > 0) return this.expandAnyOf(n, hint);
    if (n.enumValues !== null) return this.enumExpr(n);
    const types = effectiveTypes(n);
    if (types.length === ALL_TYPES.length - 1 && n.touched.size === 0 && n.notValues.length === 0)
      return this.jt.value();
    if (n.notValues.some((v) => typeof v === "number" || (v !== null && typeof v === "object"))) {
      this.relax("not", n.pointer, "not", "excluded numbers, arrays and objects are not enforced");
    }
    const parts: GbnfExpr[] = [];
    const empty: GbnfExpr[] = [];
    for (const t of types) {
      const e = this.typeExpr(n, t, hint);
      (isNothing(e) ? empty : parts).push(e);
    }
    return parts.length === 0 ? firstNothing(empty) : alt(...parts);
  }

  private typeExpr(n: Norm, t: TypeName, hint: string): GbnfExpr {
    switch (t) {
      case "null":
        return n.notValues.includes(null) ? NOTHING : this.jt.null();
      case "boolean": {
        const values = [true, false].filter((b) => !n.notValues.includes(b));
        if (values.length === 2) return this.jt.boolean();
        return values.length === 1 ? this.jt.literal(values[0]) : NOTHING;
      }
      case "string":
        if (!n.touched.has("string") && n.notValues.length === 0) return this.jt.string();
        return stringExpr(this, n, hint);
      case "integer":
        return n.touched.has("number") ? integerExpr(this, n, hint) : this.jt.integer();
      case "number":
        return n.touched.has("number") ? numberExpr(this, n, hint) : this.jt.number();
      case "array":
        return n.touched.has("array") ? arrayExpr(this, n, hint) : this.jt.array();
      case "object":
        return n.touched.has("object") ? objectExpr(this, n, hint) : this.jt.object();
    }
  }

  private expandAnyOf(n: Norm, hint: string): GbnfExpr {
    // The first group is always expanded; later ones only while the product stays small.
    let combos = n.anyOf[0]!.length;
    const kept = [n.anyOf[0]!];
    for (const g of n.anyOf.slice(1)) {
      if (combos * g.length > MAX_EXPANSION) {
        this.relax("anyOfExpansion", g[0]!.pointer, "anyOf");
        continue;
      }
      combos *= g.length;
      kept.push(g);
    }
    const [first, ...rest] = kept;
    const base = cloneNorm(n);
    base.anyOf = rest;
    const unconstrained = rest.length === 0 && isUnconstrained(base);
    const ctx = { doc: this.document, relax: this.relax.bind(this) };
    const parts: GbnfExpr[] = [];
    const empty: GbnfExpr[] = [];
    first!.forEach((loc, i) => {
      let e: GbnfExpr;
      const branchHint = childRuleName(hint, String(i));
      if (unconstrained) {
        e = this.visit([loc], branchHint);
      } else {
        const branch = cloneNorm(base);
        mergeInto(ctx, branch, loc);
        // A branch can lead back to the same merged set (recursion through anyOf): name it first.
        e = this.normRule(branch, branchHint);
      }
      (isNothing(e) ? empty : parts).push(e);
    });
    return parts.length === 0 ? firstNothing(empty) : alt(...parts);
  }

  /** A merged constraint set, guarded against recursion. */
  private normRule(n: Norm, hint: string): GbnfExpr {
    return this.guarded(normKey(this.docCount, n), hint, () => this.generate(n, hint), n.pointer);
  }

  private enumExpr(n: Norm): GbnfExpr {
    const values = n.enumValues!.filter((v) => valueAllowed(n, v));
    if (values.length === 0)
      return nothingBecause(n.pointer, "enum", "no enum/const value satisfies the other keywords");
    if (values.some((v) => v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 1)) {
      this.relax("enumObjectOrder", n.pointer, "enum");
    }
    return alt(...values.map((v) => this.jt.literal(v)));
  }
}

/**
 * How deep subschemas may nest in one conversion (properties in properties, items in items,
 * anyOf in anyOf). Real schemas stay far below; a hostile one 1,000 deep ends in a SchemaError
 * naming the pointer instead of overflowing the stack.
 */
export const MAX_SCHEMA_DEPTH = 200;

/** A readable rule name for a `$ref` target: its definition name, without URL or package prefix. */
function refHint(pointer: string, fallback: string): string {
  const m = /\/(?:definitions|\$defs)\/([^/]+)$/.exec(pointer);
  if (!m) return fallback;
  let name = m[1]!.replace(/~1/g, "/").replace(/~0/g, "~");
  name = name.slice(name.lastIndexOf("/") + 1);
  const dotted = name.slice(name.lastIndexOf(".") + 1);
  if (dotted.length >= 3) name = dotted;
  return name.length > 40 ? name.slice(-40) : name;
}

/**
 * Converts a JSON Schema into a complete GBNF grammar whose `root` matches its instances.
 * Throws {@link SchemaError} (naming the JSON pointer and keyword) for schemas it cannot convert.
 *
 * @example
 * jsonSchemaToGbnf({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
 * // root ::= "{" ws root-city-kv ... "}"
 */
export function jsonSchemaToGbnf(schema: JsonSchema, options: SchemaToGbnfOptions & GbnfPrintOptions = {}): string {
  const { onRelaxation, ...rest } = options;
  // Keyed by content when the call is, so a schema changed after a call is converted again.
  const key = contentKey([schema, rest]);
  const hit = key === undefined ? undefined : SCHEMA_GBNF_CACHE.get(key);
  if (hit !== undefined) {
    for (const r of hit.relaxations) onRelaxation?.({ ...r });
    return hit.gbnf;
  }
  const relaxations: Relaxation[] = [];
  const record = (r: Relaxation) => {
    relaxations.push({ ...r });
    onRelaxation?.(r);
  };
  const builder = new GbnfBuilder();
  const name = new SchemaConverter(builder, { ...rest, onRelaxation: record }).convert(schema, "root");
  if (name !== "root") builder.define("root", ref(name));
  const gbnf = builder.toString(options);
  if (key !== undefined) SCHEMA_GBNF_CACHE.set(key, { gbnf, relaxations }, gbnf.length);
  return gbnf;
}

/** jsonSchemaToGbnf's results by content of (schema, options): requests repeat their schemas. */
const SCHEMA_GBNF_CACHE = new LruCache<{ gbnf: string; relaxations: Relaxation[] }>(256, 16 * 1024 * 1024);

/**
 * Counters of jsonSchemaToGbnf's cache (for tests and benchmarks).
 *
 * @example
 * const { hits, misses } = schemaGbnfCacheStats();
 */
export function schemaGbnfCacheStats(): LruCacheStats {
  return SCHEMA_GBNF_CACHE.stats();
}
