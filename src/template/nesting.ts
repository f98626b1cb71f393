/**
 * How deeply a template nests, measured before and after parsing. The parser, the name checker
 * and the evaluator all recurse once or more per level, so a template nested 100,000 deep (a
 * filter chain, a `+` chain, brackets, `not not ...`) would overflow the JS stack with a
 * RangeError. Past MAX_NESTING_DEPTH (limits.ts) compiling stops with a TemplateSyntaxError that
 * names the depth; real chat templates nest a few dozen levels at most.
 *
 * @example
 * checkAstDepth(parse(tokens)); // throws TemplateSyntaxError past MAX_NESTING_DEPTH
 */
import { TemplateSyntaxError } from "./errors.js";
import { MAX_NESTING_DEPTH } from "./limits.js";
import type { Token } from "./lexer-fixups.js";

const OPEN_BRACKET = new Set(["OpenParen", "OpenSquareBracket", "OpenCurlyBracket"]);
const CLOSE_BRACKET = new Set(["CloseParen", "CloseSquareBracket", "CloseCurlyBracket"]);
const BLOCKS = new Set(["if", "for", "macro", "call", "filter", "generation"]);
/** Tokens that may be prefix operators: a run of them nests one level each (`not not not x`, `- - x`). */
const isPrefix = (t: Token) =>
  t.type === "UnaryOperator" || t.type === "AdditiveBinaryOperator" || (t.type === "Identifier" && t.value === "not");

/**
 * The deepest nesting in the token stream, as the parser will recurse: open brackets, open
 * blocks (an `elif` nests inside its `if`) and runs of prefix operators.
 */
export function tokenNestingDepth(tokens: readonly Token[]): number {
  let depth = 0;
  let max = 0;
  let prefixRun = 0;
  const ifLevels: number[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    prefixRun = isPrefix(t) ? prefixRun + 1 : 0;
    if (OPEN_BRACKET.has(t.type)) depth++;
    else if (CLOSE_BRACKET.has(t.type)) depth--;
    else if (tokens[i - 1]?.type === "OpenStatement") {
      const word = t.value;
      if (BLOCKS.has(word)) {
        depth++;
        if (word === "if") ifLevels.push(1);
      } else if (word === "elif" && ifLevels.length > 0) {
        ifLevels[ifLevels.length - 1]!++;
        depth++;
      } else if (word.startsWith("end") && BLOCKS.has(word.slice(3))) {
        depth -= word === "endif" ? (ifLevels.pop() ?? 1) : 1;
      }
    }
    max = Math.max(max, depth + prefixRun);
  }
  return max;
}

/** Throws TemplateSyntaxError naming the depth when `depth` is past MAX_NESTING_DEPTH. */
export function checkNestingDepth(depth: number, what: string): void {
  if (depth > MAX_NESTING_DEPTH) {
    throw new TemplateSyntaxError(
      `chat template nests ${depth} levels deep (${what}); the limit is ${MAX_NESTING_DEPTH}`,
    );
  }
}

/** The depth of the parsed tree in nodes, walked without recursion (the tree may be too deep to recurse). */
export function astDepth(root: object): number {
  let max = 0;
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (Array.isArray(v)) {
      for (const x of v) stack.push([x, depth]);
      continue;
    }
    if (v instanceof Map) {
      for (const [k, x] of v) stack.push([k, depth], [x, depth]);
      continue;
    }
    const isNode = typeof (v as { type?: unknown }).type === "string";
    const d = isNode ? depth + 1 : depth;
    if (d > max) max = d;
    for (const key in v) if (key !== "type") stack.push([(v as Record<string, unknown>)[key], d]);
  }
  return max;
}
