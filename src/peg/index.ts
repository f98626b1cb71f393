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
export { PegLeftRecursionError, PegStreamParser, findPegNodes, parsePeg, pegText } from "./peg-parser.js";
export type { PegNodeList, PegParseResult, PegStatus, PegTreeNode } from "./peg-parser.js";
export type { PegTextSource } from "./peg-text.js";
export { pegToGbnf } from "./peg-gbnf.js";
export type { GrammarTrigger, PegGbnf, PegGbnfOptions } from "./peg-gbnf.js";
