/**
 * Errors and relaxations of the JSON Schema → GBNF converter.
 *
 * What a GBNF grammar cannot express exactly is either a {@link SchemaError} (nothing sensible
 * to emit) or one of the RELAXATIONS below: the grammar then accepts a SUPERSET of the valid
 * instances (or, for the few marked "restriction", a documented subset). This list is the one
 * place where every approximation is written down (docs/json-schema.md shows it as a table, and
 * a test keeps the two equal); the converter reports each use of one through `onRelaxation`
 * (with the JSON pointer); with `strict`, the superset ones throw instead. Where a superset
 * remains, `chat()` validates the finished answer (`ChatResult.responseFormatError`) and the
 * tool runner the arguments, so the caller learns of an invalid instance.
 */
import { ToolwrightError } from "../../errors.js";

/** The approximations the converter may make; keys are what `onRelaxation` reports. */
export const RELAXATIONS = {
  oneOf:
    "oneOf branches that overlap are made exclusive by negating the others; where a negation is only a " +
    "superset (patterns, formats, items, additionalProperties), or past the size budget, " +
    "the oneOf is an anyOf: an instance matching several may pass",
  not:
    "not is exact where the schema has a negation (types, const/enum, required, properties, bounds, " +
    "allOf/anyOf, $ref); other keywords under not (pattern, format, items, ...) are " +
    "ignored",
  ifThenElse:
    "if/then/else: when `if` has no exact negation the else branch applies to a superset of ¬if; when it " +
    "has none at all the condition is ignored",
  dependencies:
    "dependencies/dependentRequired/dependentSchemas are exact by branching; a value that is neither a key " +
    "list nor a schema is ignored (beyond 64 combinations: anyOfExpansion)",
  uniqueItems:
    "uniqueItems is exact for items from at most 8 values (enum, const, booleans, null); a grammar cannot " +
    "compare other items",
  contains: "contains, minContains and maxContains are ignored",
  propertyCount:
    "minProperties/maxProperties are counted exactly up to 512 grammar states per object; beyond, they are " +
    "ignored when optional or extra properties make the count variable",
  multipleOf:
    "multipleOf is enforced for integers without bounds (mod-k digits), small bounded ranges (listed), and " +
    "powers of ten for numbers unbounded or from a non-negative integer lower bound to " +
    "an integer upper one; otherwise ignored",
  numberExponent:
    "restriction: bounded numbers take exponent notation only where its magnitude surely fits (|x| < 1, or " +
    "unbounded above); multipleOf numbers take none",
  propertyOrder:
    'restriction: with propertyOrder "schema" (the chat default) or "required-first", declared properties ' +
    "must appear in that order (extra properties may appear anywhere)",
  duplicateKeys:
    'with propertyOrder "any", an object with more than four declared properties may repeat an optional key ' +
    "(required ones are tracked as a set up to six, counted beyond)",
  overlappingPatterns: "a key matching several patternProperties must satisfy only one of their schemas",
  regexFeature: "regex lookarounds and word boundaries are ignored; back-references match their group's pattern",
  regexUnsupported: "a pattern using unsupported syntax (unicode properties, inline flags) is ignored",
  stringComplexity: "string constraints too complex for an exact grammar keep only the pattern",
  repetitionCap: "counts above 2000 (maxLength, maxItems, ...) become unbounded, as in llama.cpp",
  format:
    "unknown formats are ignored (formats are annotations in JSON Schema); hostname and email do not check " +
    "total lengths; idn-email and idn-hostname are shapes",
  anyOfExpansion: "more than 64 combinations of anyOf/oneOf/dependency branches: later groups are ignored",
  enumObjectOrder: "restriction: object values in enum/const must keep their key order",
  unevaluated: "unevaluatedProperties/unevaluatedItems are ignored",
} as const;

/** Key of {@link RELAXATIONS}. */
export type RelaxationKind = keyof typeof RELAXATIONS;

/** The kinds that only ever reject (valid but differently spelled instances), never accept extra ones. */
export const RESTRICTION_KINDS: ReadonlySet<RelaxationKind> = new Set<RelaxationKind>([
  "propertyOrder",
  "numberExponent",
  "enumObjectOrder",
]);

/** One use of a relaxation, reported through `onRelaxation`. */
export interface Relaxation {
  kind: RelaxationKind;
  /** JSON pointer of the subschema (e.g. `#/properties/tags`). */
  pointer: string;
  /** The keyword involved. */
  keyword: string;
  /** Detail, when the kind alone does not say enough. */
  detail?: string;
}

/**
 * A schema the converter cannot turn into a grammar: names the JSON pointer and the keyword.
 *
 * @example
 * try { jsonSchemaToGbnf({ $ref: "#/nope" }); } catch (e) { (e as SchemaError).pointer; } // "#"
 */
export class SchemaError extends ToolwrightError<"TOOLWRIGHT_INVALID_SCHEMA"> {
  constructor(
    readonly pointer: string,
    readonly keyword: string,
    reason: string,
  ) {
    super(`JSON Schema at ${pointer}, keyword ${keyword}: ${reason}`, "TOOLWRIGHT_INVALID_SCHEMA");
    this.name = "SchemaError";
  }
}
