/**
 * PEG combinators: one definition gives the parser for a model's output (complete or
 * streaming) and the GBNF grammar that constrains its generation.
 *
 * @example
 * import { PegArena, parsePeg, pegToGbnf } from "toolwright/peg";
 * const p = new PegArena();
 * const root = p.seq(p.capture("content", p.until("<call>")), p.end());
 * parsePeg(p, root, "hi").status; // "success"
 *
 * @module toolwright/peg
 */
export { PegArena } from "./peg-arena.js";
export type { PegId, PegNode, RuleOptions, SchemaNodeOptions, TriggerSpec } from "./peg-nodes.js";
export { PegLeftRecursionError, PegStreamParser, parsePeg } from "./peg-parser.js";
export { findPegNodes, pegText } from "./peg-result.js";
export type { PegParseResult, PegStatus } from "./peg-result.js";
export type { PegNodeList, PegTreeNode } from "./peg-tree.js";
export type { PegTextSource } from "./peg-text.js";
export { pegToGbnf } from "./peg-gbnf.js";
export type { GrammarTrigger, PegGbnf, PegGbnfOptions } from "./peg-gbnf.js";
