/**
 * Renders a parsed template with Python Jinja2 semantics (as transformers configures it):
 * Jinja2 scoping (loop bodies and macros get their own frames), Python values and operators,
 * the immutable sandbox, Undefined rules, and transformers' globals. In lenient mode it also
 * applies llama.cpp's relaxations (compat.ts), each only where strict mode would raise.
 *
 * @example
 * const out = new Evaluator(program, globals).render(fromJs(context) as PyDict);
 */
import {
  LoopContext,
  NO_OBJECT,
  PyCallable,
  PyError,
  PyFloat,
  PyMarkup,
  PyNamespace,
  PyTuple,
  PyUndefined,
  failUndefined,
  pyStr,
  truthy,
  typeName,
  type PyArgs,
  type PyDict,
  type PyValue,
} from "./py-values.js";
import { binaryOp, concat, dictSet, iterate, pyCompare, pyContains, pyEquals, pySlice, unaryOp } from "./py-ops.js";
import { pyGetAttr, pyGetItem } from "./py-methods.js";
import { callFilter, type FilterEnv } from "./jinja-filters.js";
import { JINJA_TESTS } from "./jinja-tests.js";
import { NEGATED_TEST_FILTER, TEST_FILTER, macroInfo, type IdentifierNode, type Node, type Program } from "./syntax.js";
import type { UsageStats } from "./usage-stats.js";
import { lenientConcat, lenientListConcat, listifyForFilter } from "./compat.js";
import { RenderBudget, boundLength, withBudget } from "./limits.js";
import { RenderOutput } from "./render-output.js";

/** How an Evaluator bends Python Jinja2's rules. */
export interface EvaluatorMode {
  /** Allow list.append, dict.update, ... (off: transformers' immutable sandbox). */
  mutable?: boolean;
  /** Apply every relaxation of compat.ts (implies mutable). */
  lenient?: boolean;
}

/** Signals from a block: keep going, or a `{% break %}` / `{% continue %}` unwinding to its loop. */
const enum Flow {
  Normal = 0,
  Break = 1,
  Continue = 2,
}

/** A variable frame. Jinja2 gives each loop iteration and each macro call a fresh one. */
class Scope {
  readonly vars = new Map<string, PyValue>();
  constructor(
    readonly parent: Scope | undefined,
    /** Nesting depth of for-loops, for loop.depth. */
    readonly loopDepth = 0,
  ) {}
  lookup(name: string): PyValue | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const v = s.vars.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  }
}

const CONSTANTS = new Map<string, PyValue>([
  ["true", true],
  ["false", false],
  ["none", null],
  ["True", true],
  ["False", false],
  ["None", null],
]);

/** How many items a container holds, for the render budget. */
function itemsOf(v: PyValue): number {
  if (Array.isArray(v)) return v.length;
  if (v instanceof PyTuple) return v.items.length;
  if (v instanceof Map) return v.size;
  return 0;
}

/** How many characters a string holds, for the render budget. */
function charsOf(v: PyValue): number {
  if (typeof v === "string") return v.length;
  if (v instanceof PyMarkup) return v.value.length;
  return 0;
}

const EMPTY_KWARGS: ReadonlyMap<string, PyValue> = new Map();

/** Evaluates one render of a program. Not reentrant: make one per render. */
export class Evaluator implements FilterEnv {
  readonly #root: Scope;
  private readonly mutable: boolean;
  private readonly lenient: boolean;
  readonly #budget = new RenderBudget();
  #outLength = 0;

  constructor(
    private readonly program: Program,
    globals: Map<string, PyValue>,
    private readonly stats?: UsageStats,
    mode: EvaluatorMode = {},
  ) {
    this.lenient = mode.lenient === true;
    this.mutable = this.lenient || mode.mutable === true;
    this.#root = new Scope(undefined);
    for (const [k, v] of globals) this.#root.vars.set(k, v);
  }

  /** Renders with `context` layered over the globals (context wins, as in Jinja2's render()). */
  render(context: PyDict): string {
    for (const [k, v] of context) this.#root.vars.set(String(k), v);
    const out = new RenderOutput();
    withBudget(this.#budget, () => this.#block(this.program.body, this.#root, out));
    return out.text();
  }

  /** Steps of the render budget (limits.ts) this render has taken so far. */
  get steps(): number {
    return this.#budget.steps;
  }

  // -------------------------------------------------------------------------------------------
  // Statements

  #block(nodes: Node[], scope: Scope, out: RenderOutput): Flow {
    for (const node of nodes) {
      const flow = this.#statement(node, scope, out);
      if (flow !== Flow.Normal) return flow;
    }
    return Flow.Normal;
  }

  /** Counts one step of the render budget (limits.ts): a statement, loop iteration or call. */
  #step(): void {
    this.#budget.charge(1);
  }

  /** Appends to the output, counting its characters against the budget. */
  #emit(out: RenderOutput, text: string): void {
    this.#outLength += text.length;
    boundLength(this.#outLength, "the rendered output");
    this.#budget.chargeChars(text.length);
    out.push(text);
  }

  /**
   * Counts reading a string against the budget. Concatenation builds ropes (counted by the shorter
   * side, limits.ts); reading one copies it flat, so every operation that reads a string counts it.
   */
  #read<T extends PyValue>(v: T): T {
    this.#budget.chargeChars(charsOf(v));
    return v;
  }

  /** Counts a call against the budget: one step, plus what its result holds (items and characters). */
  #charged(result: PyValue): PyValue {
    this.#budget.charge(1 + itemsOf(result));
    this.#budget.chargeChars(charsOf(result));
    return result;
  }

  #statement(node: Node, scope: Scope, out: RenderOutput): Flow {
    this.#step();
    switch (node.type) {
      case "StringLiteral":
        this.#emit(out, node.value);
        return Flow.Normal;
      case "Comment":
        return Flow.Normal;
      case "If":
        return this.#block(truthy(this.eval(node.test, scope)) ? node.body : node.alternate, scope, out);
      case "For":
        this.#for(node, scope, out);
        return Flow.Normal;
      case "Set":
        this.#set(node, scope);
        return Flow.Normal;
      case "Macro":
        scope.vars.set(node.name.value, this.#macro(node.name.value, node.args, node.body, scope));
        return Flow.Normal;
      case "Break":
        return Flow.Break;
      case "Continue":
        return Flow.Continue;
      case "CallStatement":
        this.#emit(out, pyStr(this.#callBlock(node, scope)));
        return Flow.Normal;
      case "FilterStatement": {
        const inner = new RenderOutput();
        this.#block(node.body, scope, inner);
        this.#emit(out, pyStr(this.#applyFilter(inner.text(), node.filter, scope)));
        return Flow.Normal;
      }
      default:
        this.#emit(out, pyStr(this.eval(node, scope)));
        return Flow.Normal;
    }
  }

  #for(node: Extract<Node, { type: "For" }>, scope: Scope, out: RenderOutput): void {
    let iterableNode = node.iterable;
    let filter: Node | undefined;
    if (iterableNode.type === "SelectExpression") {
      filter = iterableNode.test;
      iterableNode = iterableNode.lhs;
    }
    const iterable = this.eval(iterableNode, scope);
    this.stats?.mark(iterable, iterable instanceof Map ? "iterated" : "array_access");
    // none-iteration: a `for` over None loops zero times in lenient mode (strict raises TypeError).
    let items = this.lenient && iterable === null ? [] : iterate(iterable);
    const depth = scope.loopDepth;
    if (filter) {
      const test = filter;
      items = items.filter((item) => {
        const s = new Scope(scope, depth + 1);
        this.#assign(node.loopvar, item, s);
        return truthy(this.eval(test, s));
      });
    }
    if (items.length === 0) {
      this.#block(node.defaultBlock, scope, out);
      return;
    }
    const loop = new LoopContext(items.length, depth);
    for (let i = 0; i < items.length; i++) {
      this.#step();
      // Jinja2 starts every iteration from the enclosing frame: sets inside do not carry over.
      const s = new Scope(scope, depth + 1);
      loop.index0 = i;
      loop.prev = i > 0 ? items[i - 1]! : new PyUndefined("previtem", NO_OBJECT, "there is no previous item");
      loop.next =
        i + 1 < items.length ? items[i + 1]! : new PyUndefined("nextitem", NO_OBJECT, "there is no next item");
      s.vars.set("loop", loop);
      this.#assign(node.loopvar, items[i]!, s);
      if (this.#block(node.body, s, out) === Flow.Break) break;
    }
  }

  #assign(target: Node, value: PyValue, scope: Scope): void {
    if (target.type === "Identifier") {
      scope.vars.set(target.value, value);
      return;
    }
    if (target.type === "TupleLiteral") {
      const items = iterate(value);
      const n = target.value.length;
      if (items.length < n)
        throw new PyError("ValueError", `not enough values to unpack (expected ${n}, got ${items.length})`);
      if (items.length > n) throw new PyError("ValueError", `too many values to unpack (expected ${n})`);
      target.value.forEach((t, i) => this.#assign(t, items[i]!, scope));
      return;
    }
    throw new PyError("TemplateSyntaxError", `cannot assign to ${target.type}`);
  }

  #set(node: Extract<Node, { type: "Set" }>, scope: Scope): void {
    let value: PyValue;
    if (node.value) value = this.eval(node.value, scope);
    else {
      const inner = new RenderOutput();
      this.#block(node.body, scope, inner);
      value = inner.text();
    }
    const target = node.assignee;
    if (target.type === "MemberExpression" && !target.computed && target.property.type === "Identifier") {
      const obj = this.eval(target.object, scope);
      if (!(obj instanceof PyNamespace)) {
        throw new PyError("TemplateRuntimeError", "cannot assign attribute on non-namespace object");
      }
      obj.attrs.set(target.property.value, value);
      return;
    }
    this.#assign(target, value, scope);
  }

  #macro(name: string, params: Node[], body: Node[], defScope: Scope): PyCallable {
    const { usesVarargs, usesKwargs, usesCaller } = macroInfo(body);
    // Top-level macros read template variables as they are when called; nested ones close over their frame.
    const parent = defScope;
    const fn = (a: PyArgs): PyValue => {
      const s = new Scope(parent, 0);
      const kwargs = new Map(a.kwargs);
      if (kwargs.has("caller")) {
        if (usesCaller) s.vars.set("caller", kwargs.get("caller")!);
        kwargs.delete("caller");
      }
      const pending: [string, Node][] = [];
      params.forEach((p, i) => {
        const pname = p.type === "Identifier" ? p.value : p.type === "KeywordArgumentExpression" ? p.key.value : "";
        let v: PyValue | undefined = i < a.args.length ? a.args[i] : undefined;
        if (v === undefined && kwargs.has(pname)) {
          v = kwargs.get(pname)!;
          kwargs.delete(pname);
        }
        if (v === undefined && p.type === "KeywordArgumentExpression") pending.push([pname, p.value]);
        else
          s.vars.set(
            pname,
            v !== undefined
              ? v
              : new PyUndefined(pname, NO_OBJECT, `parameter ${JSON.stringify(pname)} was not provided`),
          );
      });
      for (const [pname, dflt] of pending) s.vars.set(pname, this.eval(dflt, s));
      if (a.args.length > params.length) {
        if (!usesVarargs)
          throw new PyError("TypeError", `macro '${name}' takes not more than ${params.length} argument(s)`);
      }
      s.vars.set("varargs", new PyTuple(a.args.slice(params.length)));
      if (kwargs.size > 0 && !usesKwargs) {
        throw new PyError("TypeError", `macro '${name}' takes no keyword argument '${kwargs.keys().next().value}'`);
      }
      s.vars.set("kwargs", kwargs as PyDict);
      const out = new RenderOutput();
      this.#block(body, s, out);
      return out.text();
    };
    return new PyCallable(name, fn, `<Macro '${name}'>`);
  }

  #callBlock(node: Extract<Node, { type: "CallStatement" }>, scope: Scope): PyValue {
    const caller = this.#macro("caller", node.callerArgs ?? [], node.body, scope);
    const callee = this.eval(node.call.callee, scope);
    const a = this.#args(node.call.args, scope);
    a.kwargs.set("caller", caller);
    return this.#invoke(callee, a);
  }

  // -------------------------------------------------------------------------------------------
  // Expressions

  /** Evaluates an expression node to a Python value. */
  eval(node: Node, scope: Scope): PyValue {
    this.#budget.charge(1);
    switch (node.type) {
      case "StringLiteral":
        return node.value;
      case "IntegerLiteral":
        return node.value;
      case "FloatLiteral":
        return new PyFloat(node.value);
      case "Identifier":
        return this.#identifier(node, scope);
      case "ArrayLiteral":
        return node.value.map((x) => this.#read(this.eval(x, scope)));
      case "TupleLiteral":
        return new PyTuple(node.value.map((x) => this.#read(this.eval(x, scope))));
      case "ObjectLiteral": {
        const m: PyDict = new Map();
        for (const [k, v] of node.value) dictSet(m, this.#read(this.eval(k, scope)), this.#read(this.eval(v, scope)));
        return m;
      }
      case "MemberExpression":
        return this.#member(node, scope);
      case "CallExpression":
        if (this.stats && node.callee.type === "MemberExpression") return this.#trackedMethodCall(node, scope);
        return this.#invoke(this.eval(node.callee, scope), this.#args(node.args, scope));
      case "UnaryExpression": {
        const v = this.eval(node.argument, scope);
        return node.operator.value === "not" ? !truthy(v) : unaryOp(node.operator.value, v);
      }
      case "BinaryExpression":
        return this.#binary(node, scope);
      case "FilterExpression":
        return this.#applyFilter(this.#read(this.eval(node.operand, scope)), node.filter, scope);
      case "TestExpression": {
        const v = this.#read(this.eval(node.operand, scope));
        const r = this.callTest(node.test.value, v, []);
        return node.negate ? !r : r;
      }
      case "Ternary":
        return truthy(this.eval(node.condition, scope))
          ? this.eval(node.trueExpr, scope)
          : this.eval(node.falseExpr, scope);
      case "SelectExpression":
        return truthy(this.eval(node.test, scope))
          ? this.eval(node.lhs, scope)
          : new PyUndefined(
              undefined,
              NO_OBJECT,
              "the inline if-expression evaluated to false and no else section was defined.",
            );
      default:
        throw new PyError("TemplateSyntaxError", `unexpected ${node.type} in an expression`);
    }
  }

  #identifier(node: IdentifierNode, scope: Scope): PyValue {
    const c = CONSTANTS.get(node.value);
    if (c !== undefined) return c;
    const v = scope.lookup(node.value);
    if (this.stats) this.stats.readVar(node.value, v);
    return v === undefined ? new PyUndefined(node.value) : v;
  }

  #member(node: Extract<Node, { type: "MemberExpression" }>, scope: Scope): PyValue {
    const obj = this.#read(this.eval(node.object, scope));
    // chainable-undefined (compat.ts): strict raises below.
    if (this.lenient && obj instanceof PyUndefined) return obj;
    const prop = node.property;
    let result: PyValue;
    if (!node.computed) {
      if (prop.type === "IntegerLiteral") result = pyGetItem(obj, prop.value, this.mutable);
      else result = pyGetAttr(obj, (prop as IdentifierNode).value, this.mutable);
      this.stats?.access(obj, prop.type === "IntegerLiteral" ? prop.value : (prop as IdentifierNode).value, result);
      return result;
    }
    if (prop.type === "SliceExpression") {
      const start = prop.start ? this.eval(prop.start, scope) : null;
      const stop = prop.stop ? this.eval(prop.stop, scope) : null;
      const step = prop.step ? this.eval(prop.step, scope) : null;
      if (obj instanceof PyUndefined) failUndefined(obj);
      this.stats?.access(obj, 0, obj);
      return pySlice(obj, start, stop, step);
    }
    const key = this.#read(this.eval(prop, scope));
    result = pyGetItem(obj, key, this.mutable);
    this.stats?.access(obj, key, result);
    return result;
  }

  /** `obj.get(key)` reads `obj[key]` as far as usage stats go. */
  #trackedMethodCall(node: Extract<Node, { type: "CallExpression" }>, scope: Scope): PyValue {
    const member = node.callee as Extract<Node, { type: "MemberExpression" }>;
    const obj = this.#read(this.eval(member.object, scope));
    if (this.lenient && obj instanceof PyUndefined) return this.#invoke(obj, this.#args(node.args, scope));
    const name = !member.computed && member.property.type === "Identifier" ? member.property.value : undefined;
    const fn =
      name !== undefined
        ? pyGetAttr(obj, name, this.mutable)
        : pyGetItem(obj, this.eval(member.property, scope), this.mutable);
    if (name !== undefined) this.stats!.access(obj, name, fn);
    const a = this.#args(node.args, scope);
    const result = this.#invoke(fn, a);
    if (name === "get" && obj instanceof Map && a.args[0] !== undefined) this.stats!.access(obj, a.args[0], result);
    return result;
  }

  #binary(node: Extract<Node, { type: "BinaryExpression" }>, scope: Scope): PyValue {
    const op = node.operator.value;
    const left = this.eval(node.left, scope);
    if (op === "and") return truthy(left) ? this.eval(node.right, scope) : left;
    if (op === "or") return truthy(left) ? left : this.eval(node.right, scope);
    const right = this.eval(node.right, scope);
    if (op !== "~" && op !== "+") {
      this.#read(left);
      this.#read(right);
    }
    switch (op) {
      case "==":
        return pyEquals(left, right);
      case "!=":
        return !pyEquals(left, right);
      case "<":
        return pyCompare(left, right, op) < 0;
      case ">":
        return pyCompare(left, right, op) > 0;
      case "<=":
        return pyCompare(left, right, op) <= 0;
      case ">=":
        return pyCompare(left, right, op) >= 0;
      case "in":
        return pyContains(right, left);
      case "not in":
        return !pyContains(right, left);
      case "~":
        return concat(left, right);
      case "+":
        if (this.lenient) {
          const r = lenientConcat(left, right) ?? lenientListConcat(left, right);
          if (r !== undefined) return r;
        }
        return binaryOp(op, left, right);
      default:
        return binaryOp(op, left, right);
    }
  }

  #args(nodes: Node[], scope: Scope): PyArgs {
    const args: PyValue[] = [];
    const kwargs = new Map<string, PyValue>();
    for (const n of nodes) {
      if (n.type === "KeywordArgumentExpression") kwargs.set(n.key.value, this.#read(this.eval(n.value, scope)));
      else if (n.type === "SpreadExpression") args.push(...iterate(this.eval(n.argument, scope)));
      else if (n.type === "KeywordSpreadExpression") {
        const m = this.eval(n.argument, scope);
        if (!(m instanceof Map))
          throw new PyError("TypeError", `argument after ** must be a mapping, not ${typeName(m)}`);
        for (const [k, v] of m) kwargs.set(String(k), v);
      } else args.push(this.#read(this.eval(n, scope)));
    }
    return { args, kwargs };
  }

  #invoke(fn: PyValue, a: PyArgs): PyValue {
    if (fn instanceof PyCallable) return this.#charged(fn.fn(a));
    if (fn instanceof PyUndefined) failUndefined(fn);
    throw new PyError("TypeError", `'${typeName(fn)}' object is not callable`);
  }

  #applyFilter(value: PyValue, filter: Node, scope: Scope): PyValue {
    let name: string;
    let a: PyArgs;
    if (filter.type === "Identifier") {
      name = filter.value;
      a = { args: [], kwargs: EMPTY_KWARGS as Map<string, PyValue> };
    } else if (filter.type === "CallExpression" && filter.callee.type === "Identifier") {
      name = filter.callee.value;
      a = this.#args(filter.args, scope);
    } else {
      throw new PyError("TemplateSyntaxError", `filter must be a name, got ${filter.type}`);
    }
    if (name === TEST_FILTER || name === NEGATED_TEST_FILTER) {
      const r = this.callTest(pyStr(a.args[0] ?? ""), value, a.args.slice(1));
      return name === TEST_FILTER ? r : !r;
    }
    if (this.lenient) value = listifyForFilter(name, value);
    if (this.stats) {
      if (name === "tojson" || name === "string") this.stats.markDeep(value);
      else this.stats.mark(value, name);
    }
    return this.#charged(callFilter(this, name, value, a));
  }

  /** FilterEnv: runs a test by name (for `is`, select/reject). */
  callTest(name: string, value: PyValue, args: PyValue[], byName = false): boolean {
    const t = JINJA_TESTS.get(name);
    if (!t) throw new PyError("TemplateRuntimeError", `No test named '${name}'${byName ? "" : " found"}.`);
    this.stats?.mark(value, `test_is_${name}`);
    this.#step();
    return t(value, args);
  }

  /** FilterEnv: runs a filter by name (for map). */
  callFilter(name: string, value: PyValue, args: PyArgs): PyValue {
    return this.#charged(callFilter(this, name, value, args, true));
  }
}
