/**
 * Errors and relaxations of the JSON Schema → GBNF converter.
 *
 * What a GBNF grammar cannot express exactly is either a {@link SchemaError} (nothing sensible
 * to emit) or one of the RELAXATIONS below: the grammar then accepts a SUPERSET of the valid
 * instances (or, for the few marked "restriction", a documented subset). This list is the one
 * place where every approximation is written down; the converter reports each use of one
 * through `onRelaxation` (with the JSON pointer); with `strict`, the superset ones throw instead.
 */
import { ToolwrightError } from "../../errors.js";

/** The approximations the converter may make; keys are what `onRelaxation` reports. */
export const RELAXATIONS = {
  oneOf: "oneOf is treated as anyOf: an instance matching several branches is accepted",
  not: "not is ignored, except not of a type, of const/enum strings, or of required keys",
  ifThenElse: "if/then/else is ignored unless `if` is a discriminator (properties with const/enum, required)",
  dependencies: "dependencies, dependentRequired and dependentSchemas are ignored",
  uniqueItems: "uniqueItems is ignored (a grammar cannot compare items)",
  contains: "contains, minContains and maxContains are ignored",
  propertyCount: "minProperties/maxProperties are ignored when optional or extra properties make the count variable",
  multipleOf: "multipleOf is enforced only for integers without bounds (mod-k digits) and powers of ten for numbers; otherwise ignored",
  numberExponent: "restriction: bounded numbers take exponent notation only where its magnitude surely fits (|x| < 1, or unbounded above); multipleOf numbers take none",
  propertyOrder: 'restriction: declared properties must appear in `properties` order (extra properties may appear anywhere), unless propertyOrder is "any"',
  duplicateKeys: 'with propertyOrder "any", a key may appear twice; with more than six required keys they are counted, not named',
  overlappingPatterns: "a key matching several patternProperties must satisfy only one of their schemas",
  regexFeature: "regex lookarounds and word boundaries are ignored; back-references match their group's pattern",
  regexUnsupported: "a pattern using unsupported syntax (unicode properties, inline flags) is ignored",
  stringComplexity: "string constraints too complex for an exact grammar keep only the pattern",
  repetitionCap: "counts above 2000 (maxLength, maxItems, ...) become unbounded, as in llama.cpp",
  format: "unknown formats are ignored (formats are annotations in JSON Schema); email/uri/hostname are loose shapes",
  anyOfExpansion: "more than 64 combinations of anyOf/oneOf branches: later groups are ignored",
  enumObjectOrder: "restriction: object values in enum/const must keep their key order",
  unevaluated: "unevaluatedProperties/unevaluatedItems are ignored",
} as const;

/** Key of {@link RELAXATIONS}. */
export type RelaxationKind = keyof typeof RELAXATIONS;

/** The kinds that only ever reject (valid but differently spelled instances), never accept extra ones. */
export const RESTRICTION_KINDS: ReadonlySet<RelaxationKind> = new Set<RelaxationKind>(["propertyOrder", "numberExponent", "enumObjectOrder"]);

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
