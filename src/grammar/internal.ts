/**
 * The grammar layer as the layers above it build with it: the public index (index.ts) plus the
 * GBNF AST, builder, printers, regex and schema converter internals. Not a package export.
 */
export * from "./char-set.js";
export { contentKey } from "./content-key.js";
export { LruCache, type LruCacheStats } from "./lru-cache.js";
export * from "./gbnf-ast.js";
export { GbnfBuilder, childRuleName, sanitizeRuleName } from "./gbnf-builder.js";
export { type GbnfPrintOptions, escapeClass, escapeLiteral, printExpr, printRule } from "./gbnf-print.js";
export { type GbnfGrammar, GbnfSyntaxError, MAX_REPETITION, parseGbnf } from "./gbnf-parse.js";
export { type CompiledGbnf, compileGbnf } from "./gbnf-compile.js";
export { shortestGbnfText } from "./gbnf-shortest.js";
export {
  GbnfMatchLimitError,
  GbnfMatcher,
  type GbnfMatcherOptions,
  type GbnfMatchResult,
  matchGbnf,
} from "./gbnf-match.js";
export {
  type PyJson,
  PyJsonSyntaxError,
  dumpsPython,
  parsePyJson,
  pyJsonToJs,
  pythonFloatRepr,
  pythonJsonString,
} from "./python-json.js";
export { type RegexNode, RegexSyntaxError } from "./regex/regex-ast.js";
export { parseRegex } from "./regex/regex-parse.js";
export * from "./regex/automaton.js";
export { type DfaSpelling, dfaToGbnf } from "./regex/dfa-gbnf.js";
export { JsonText, type WhitespacePolicy, repeatCapped } from "./schema/json-text.js";
export { type RawText, rawStringDfa } from "./schema/raw-string.js";
export {
  RELAXATIONS,
  RESTRICTION_KINDS,
  type Relaxation,
  type RelaxationKind,
  SchemaError,
} from "./schema/schema-error.js";
export {
  DEFAULT_PROPERTY_ORDER,
  type PropertyOrder,
  SchemaConverter,
  type SchemaToGbnfOptions,
  jsonSchemaToGbnf,
} from "./schema/schema-to-gbnf.js";
export {
  type CoverageCase,
  type CoverageOutcome,
  checkCoverageCase,
  parseCoverageCase,
  summarizeCoverage,
} from "./schema/coverage.js";
