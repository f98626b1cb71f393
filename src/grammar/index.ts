/**
 * GBNF tooling: JSON Schema → GBNF (with the relaxations it may report), and parsing, compiling
 * and matching grammars in llama.cpp's dialect. The builders, regexes and automata behind them are
 * internal (src/grammar/).
 *
 * @example
 * import { jsonSchemaToGbnf, matchGbnf } from "toolwright/grammar";
 * const g = jsonSchemaToGbnf({ type: "array", items: { type: "integer" } });
 * matchGbnf(g, "[1, 2]").ok; // true
 *
 * @module toolwright/grammar
 */
export type { CodeRange } from "./char-set.js";
export type { GbnfExpr } from "./gbnf-ast.js";
export { type GbnfGrammar, GbnfSyntaxError, parseGbnf } from "./gbnf-parse.js";
export type { GbnfPrintOptions } from "./gbnf-print.js";
export { type CompiledGbnf, compileGbnf } from "./gbnf-compile.js";
export {
  GbnfMatchLimitError,
  GbnfMatcher,
  type GbnfMatcherOptions,
  type GbnfMatchResult,
  matchGbnf,
} from "./gbnf-match.js";
export type { WhitespacePolicy } from "./schema/json-text.js";
export { RELAXATIONS, type Relaxation, type RelaxationKind, SchemaError } from "./schema/schema-error.js";
export { type PropertyOrder, type SchemaToGbnfOptions, jsonSchemaToGbnf } from "./schema/schema-to-gbnf.js";
