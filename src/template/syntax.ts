/**
 * Compiles template source with @huggingface/jinja's lexer and parser (set up like transformers:
 * trim_blocks, lstrip_blocks, `{% generation %}` blocks rendered as their body), then checks the
 * AST the way Jinja2's compiler does (unknown filters and tests are compile errors).
 *
 * @example
 * const program = compileSource("{{ messages[0].content }}");
 */
import { parse, tokenize } from "@huggingface/jinja";
import { TemplateSyntaxError } from "./errors.js";
import { astDepth, checkNestingDepth, tokenNestingDepth } from "./nesting.js";
import {
  normalizeEscapes,
  rewriteTestArguments,
  NEGATED_TEST_FILTER,
  TEST_FILTER,
  type Token,
} from "./lexer-fixups.js";

export { NEGATED_TEST_FILTER, TEST_FILTER };

/** The parser's AST, typed structurally (the package does not export its node classes). */
export type Node =
  | { type: "Program"; body: Node[] }
  | { type: "If"; test: Node; body: Node[]; alternate: Node[] }
  | { type: "For"; loopvar: Node; iterable: Node; body: Node[]; defaultBlock: Node[] }
  | { type: "Break" }
  | { type: "Continue" }
  | { type: "Set"; assignee: Node; value: Node | null; body: Node[] }
  | { type: "Macro"; name: IdentifierNode; args: Node[]; body: Node[] }
  | { type: "Comment"; value: string }
  | { type: "MemberExpression"; object: Node; property: Node; computed: boolean }
  | { type: "CallExpression"; callee: Node; args: Node[] }
  | IdentifierNode
  | { type: "IntegerLiteral"; value: number }
  | { type: "FloatLiteral"; value: number }
  | { type: "StringLiteral"; value: string }
  | { type: "ArrayLiteral"; value: Node[] }
  | { type: "TupleLiteral"; value: Node[] }
  | { type: "ObjectLiteral"; value: Map<Node, Node> }
  | { type: "BinaryExpression"; operator: { value: string }; left: Node; right: Node }
  | { type: "FilterExpression"; operand: Node; filter: Node }
  | { type: "FilterStatement"; filter: Node; body: Node[] }
  | { type: "SelectExpression"; lhs: Node; test: Node }
  | { type: "TestExpression"; operand: Node; negate: boolean; test: IdentifierNode }
  | { type: "UnaryExpression"; operator: { value: string }; argument: Node }
  | { type: "SliceExpression"; start?: Node; stop?: Node; step?: Node }
  | { type: "KeywordArgumentExpression"; key: IdentifierNode; value: Node }
  | { type: "SpreadExpression"; argument: Node }
  | { type: "KeywordSpreadExpression"; argument: Node }
  | {
      type: "CallStatement";
      call: { type: "CallExpression"; callee: Node; args: Node[] };
      callerArgs: Node[] | null;
      body: Node[];
    }
  | { type: "Ternary"; condition: Node; trueExpr: Node; falseExpr: Node };

export interface IdentifierNode {
  type: "Identifier";
  value: string;
}

export type Program = { type: "Program"; body: Node[] };

/** Names the checker needs to know exist (filters/tests live in other modules). */
export interface KnownNames {
  hasFilter(name: string): boolean;
  hasTest(name: string): boolean;
}

/** Recently compiled programs by source: the AST is never mutated, so instances can share it. */
const PROGRAM_CACHE = new Map<string, Program>();
const PROGRAM_CACHE_SIZE = 128;

/** Tokenizes and parses `source` (or reuses a recent parse); throws TemplateSyntaxError naming what failed. */
export function compileSource(source: string, known: KnownNames): Program {
  const cached = PROGRAM_CACHE.get(source);
  if (cached) {
    PROGRAM_CACHE.delete(source); // re-insert as most recent
    PROGRAM_CACHE.set(source, cached);
    return cached;
  }
  const program = compileUncached(source, known);
  PROGRAM_CACHE.set(source, program);
  if (PROGRAM_CACHE.size > PROGRAM_CACHE_SIZE) PROGRAM_CACHE.delete(PROGRAM_CACHE.keys().next().value!);
  return program;
}

function compileUncached(source: string, known: KnownNames): Program {
  let program: Program;
  let tokens: Token[] = [];
  try {
    tokens = rewriteTestArguments(
      tokenize(normalizeEscapes(source), { lstrip_blocks: true, trim_blocks: true }) as Token[],
    );
    checkNestingDepth(tokenNestingDepth(tokens), "brackets, blocks and prefix operators");
    program = parse(tokens as Parameters<typeof parse>[0]) as unknown as Program;
  } catch (e) {
    if (e instanceof TemplateSyntaxError) throw e;
    if (isStackOverflow(e)) {
      // The stack was shallower than MAX_NESTING_DEPTH needs (a caller deep in recursion).
      throw new TemplateSyntaxError(
        `chat template nests ${tokenNestingDepth(tokens)} levels deep, deeper than the parser's stack allows`,
      );
    }
    // The parser runs off the token list when a block or expression is left open.
    const message = /reading 'type'|Unexpected end of input/.test((e as Error).message)
      ? "unexpected end of template (a block, expression or string is not closed)"
      : (e as Error).message;
    throw new TemplateSyntaxError(`chat template failed to parse: ${message}`);
  }
  // Filter and operator chains parse in a loop but build trees that recursive walks cannot follow.
  checkNestingDepth(astDepth(program), "statements and expressions");
  checkNames(program, known);
  return program;
}

function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

function filterName(node: Node): string {
  if (node.type === "Identifier") return node.value;
  if (node.type === "CallExpression" && node.callee.type === "Identifier") return node.callee.value;
  throw new TemplateSyntaxError(`chat template has a filter that is not a name (${node.type})`);
}

/**
 * Jinja2 rejects unknown filters and tests when compiling, except inside an `if` or a conditional
 * expression (a "soft" frame), where the error waits until the filter actually runs. Loop, macro,
 * block-set, filter and call bodies start hard frames again.
 */
function checkNames(program: Program, known: KnownNames): void {
  const check = (node: Node, soft: boolean): void => {
    if (soft) return;
    if (node.type === "FilterExpression" || node.type === "FilterStatement") {
      const name = filterName(node.filter);
      if (name === TEST_FILTER || name === NEGATED_TEST_FILTER) {
        const test = (node.filter as { args?: Node[] }).args?.[0];
        const testName = test?.type === "StringLiteral" ? test.value : "";
        if (!known.hasTest(testName))
          throw new TemplateSyntaxError(`No test named '${testName}'.`, "TemplateAssertionError");
      } else if (!known.hasFilter(name)) {
        throw new TemplateSyntaxError(`No filter named '${name}'.`, "TemplateAssertionError");
      }
    } else if (node.type === "TestExpression" && !known.hasTest(node.test.value)) {
      throw new TemplateSyntaxError(`No test named '${node.test.value}'.`, "TemplateAssertionError");
    }
  };
  const visit = (v: unknown, soft: boolean): void => {
    if (Array.isArray(v)) {
      for (const x of v) visit(x, soft);
      return;
    }
    if (v instanceof Map) {
      for (const [k, x] of v) {
        visit(k, soft);
        visit(x, soft);
      }
      return;
    }
    if (v === null || typeof v !== "object" || typeof (v as { type?: unknown }).type !== "string") return;
    const node = v as Node;
    check(node, soft);
    switch (node.type) {
      case "If":
        visit([node.test, node.body, node.alternate], true);
        return;
      case "Ternary":
      case "SelectExpression":
        for (const key in node) visit((node as Record<string, unknown>)[key], true);
        return;
      case "For":
        visit(node.iterable, soft);
        visit(node.defaultBlock, soft);
        visit(node.body, false);
        return;
      case "Macro":
      case "CallStatement":
      case "FilterStatement":
      case "Set":
        for (const key in node) {
          const child = (node as Record<string, unknown>)[key];
          if (key === "body") visit(child, false);
          else if (key !== "type") visit(child, soft);
        }
        return;
      default:
        for (const key in node) if (key !== "type") visit((node as Record<string, unknown>)[key], soft);
    }
  };
  visit(program.body, false);
}

export interface MacroInfo {
  usesVarargs: boolean;
  usesKwargs: boolean;
  usesCaller: boolean;
}
const MACRO_INFO = new WeakMap<Node[], MacroInfo>();

/** What special names a macro body reads, computed once per macro (the AST is shared by renders). */
export function macroInfo(body: Node[]): MacroInfo {
  let info = MACRO_INFO.get(body);
  if (!info) {
    info = {
      usesVarargs: mentions(body, "varargs"),
      usesKwargs: mentions(body, "kwargs"),
      usesCaller: mentions(body, "caller"),
    };
    MACRO_INFO.set(body, info);
  }
  return info;
}

/** Whether a macro body reads `name` (Jinja2 only accepts extra args when it does). */
function mentions(body: Node[], name: string): boolean {
  let found = false;
  const visit = (v: unknown): void => {
    if (found || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) {
      for (const x of v) visit(x);
      return;
    }
    if (v instanceof Map) {
      for (const [k, x] of v) {
        visit(k);
        visit(x);
      }
      return;
    }
    const n = v as { type?: unknown; value?: unknown };
    if (n.type === "Identifier" && n.value === name) {
      found = true;
      return;
    }
    for (const key in v) visit((v as Record<string, unknown>)[key]);
  };
  visit(body);
  return found;
}
