/**
 * GBNF tooling: JSON Schema → GBNF (with the relaxations it may report), and parsing, compiling
 * and matching grammars in llama.cpp's dialect. The builders, regexes and automata behind them are
 * internal (src/grammar/).
 *
 * @example
 * import { jsonSchemaToGbnf, matchGbnf } from "toolwright/grammar";
 * const g = jsonSchemaToGbnf({ type: "array", items: { type: "integer" } });
 * matchGbnf(g, "[1, 2]").ok; // true
 */
export { type GbnfGrammar, GbnfSyntaxError, parseGbnf } from "./gbnf-parse.js";
// What the PEG layer builds its grammars with (it imports grammar/ only through this index).
export { contentKey } from "./content-key.js";
export { LruCache, type LruCacheStats } from "./lru-cache.js";
export { repeatCapped } from "./schema/json-text.js";
export { type RawText, rawStringDfa } from "./schema/raw-string.js";
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
