/**
 * Builder for PEG combinators. Each method adds a node and returns its id; the JSDoc of each
 * gives the notation it stands for.
 */
import { type CodeRange, RegexSyntaxError, contentKey, parseRegex } from "../grammar/internal.js";
import type { JsonSchema } from "../types.js";
import { type PegGbnf, type PegGbnfOptions, pegToGbnf } from "./peg-gbnf.js";
import type { PegId, PegNode, RuleOptions, SchemaNodeOptions, TriggerSpec } from "./peg-nodes.js";
import { parsePeg } from "./peg-parser.js";
import type { PegParseResult } from "./peg-result.js";

/**
 * An arena of PEG nodes.
 *
 * @example
 * const p = new PegArena();
 * const call = p.rule("call", p.seq(p.literal("<call>"), p.capture("args", p.json()), p.literal("</call>")), {
 *   trigger: true,
 * });
 * const root = p.seq(p.capture("content", p.until("<call>")), p.optional(call), p.end());
 */
export class PegArena {
  private readonly nodes: PegNode[] = [];
  private readonly rules = new Map<string, PegId>();
  private jsonValue: PegId | null = null;

  /** The node with id `id`. */
  node(id: PegId): PegNode {
    const n = this.nodes[id];
    if (n === undefined) throw new RangeError(`PegArena: no node with id ${id}`);
    return n;
  }

  /** Number of nodes. */
  get size(): number {
    return this.nodes.length;
  }

  /** The rule node of `name`, or undefined. */
  ruleNode(name: string): PegId | undefined {
    return this.rules.get(name);
  }

  /** Names of all rules, in definition order. */
  ruleNames(): string[] {
    return [...this.rules.keys()];
  }

  private add(node: PegNode): PegId {
    this.nodes.push(node);
    return this.nodes.length - 1;
  }

  private check(id: PegId, what: string): PegId {
    if (!Number.isInteger(id) || id < 0 || id >= this.nodes.length)
      throw new RangeError(`${what}: ${id} is not a node of this arena`);
    return id;
  }

  /** `"text"`. */
  literal(text: string): PegId {
    if (typeof text !== "string") throw new TypeError(`literal(text): text must be a string, got ${typeof text}`);
    return text === "" ? this.eps() : this.add({ type: "literal", text });
  }

  /**
   * `[class]{min,max}`: `spec` is a regex class body such as `"a-zA-Z_"` or `"^\\n"`.
   *
   * @example
   * p.chars("0-9", 1); // [0-9]+
   */
  chars(spec: string | readonly CodeRange[], min = 1, max: number | null = null): PegId {
    let ranges: readonly CodeRange[];
    if (typeof spec === "string") {
      let node;
      try {
        node = parseRegex(`[${spec}]`);
      } catch (e) {
        if (e instanceof RegexSyntaxError)
          throw new RangeError(`chars(spec): bad class ${JSON.stringify(spec)}: ${e.message}`);
        throw e;
      }
      if (node.type !== "set")
        throw new RangeError(`chars(spec): ${JSON.stringify(spec)} is not a single character class`);
      ranges = node.ranges;
    } else {
      ranges = spec;
    }
    if (!Number.isInteger(min) || min < 0)
      throw new RangeError(`chars(): min must be a non-negative integer, got ${min}`);
    if (max !== null && (!Number.isInteger(max) || max < min))
      throw new RangeError(`chars(): max must be null or >= min, got ${max}`);
    return this.add({ type: "chars", ranges, negated: false, min, max });
  }

  /** `.` */
  any(): PegId {
    return this.add({ type: "any" });
  }

  /**
   * `(!D .)*`: text up to the first of the delimiters (which is not consumed).
   *
   * @example
   * p.until("</think>");
   */
  until(...delimiters: string[]): PegId {
    if (delimiters.length === 0 || delimiters.some((d) => typeof d !== "string" || d === "")) {
      throw new RangeError(`until(): needs one or more non-empty delimiters, got ${JSON.stringify(delimiters)}`);
    }
    return this.add({ type: "until", delimiters });
  }

  /** `.*`: the rest of the input. */
  rest(): PegId {
    return this.add({ type: "rest" });
  }

  /** `A B C`. */
  seq(...items: PegId[]): PegId {
    items.forEach((i) => this.check(i, "seq()"));
    if (items.length === 0) return this.eps();
    return items.length === 1 ? items[0]! : this.add({ type: "sequence", items });
  }

  /** `A / B / C`: the first alternative that matches. */
  choice(...items: PegId[]): PegId {
    items.forEach((i) => this.check(i, "choice()"));
    if (items.length === 0) throw new RangeError("choice(): needs at least one alternative");
    return items.length === 1 ? items[0]! : this.add({ type: "choice", items });
  }

  /** `A{min,max}`, greedy (max null: unbounded). */
  repeat(item: PegId, min: number, max: number | null): PegId {
    this.check(item, "repeat()");
    if (!Number.isInteger(min) || min < 0)
      throw new RangeError(`repeat(): min must be a non-negative integer, got ${min}`);
    if (max !== null && (!Number.isInteger(max) || max < min))
      throw new RangeError(`repeat(): max must be null or >= min, got ${max}`);
    return this.add({ type: "repeat", item, min, max });
  }

  /** `A?` */
  optional(item: PegId): PegId {
    return this.repeat(item, 0, 1);
  }

  /** `A*` */
  zeroOrMore(item: PegId): PegId {
    return this.repeat(item, 0, null);
  }

  /** `A+` */
  oneOrMore(item: PegId): PegId {
    return this.repeat(item, 1, null);
  }

  /** `!A`: succeeds, consuming nothing, where A fails. */
  not(item: PegId): PegId {
    return this.add({ type: "not", item: this.check(item, "not()") });
  }

  /** `&A`: succeeds, consuming nothing, where A matches. */
  and(item: PegId): PegId {
    return this.add({ type: "and", item: this.check(item, "and()") });
  }

  /**
   * `name <- body`; returns a reference to the rule. `body` may be a function, so a rule can
   * refer to itself through {@link ref}.
   *
   * @example
   * const list = p.rule("list", () => p.seq(p.literal("["), p.optional(p.ref("list")), p.literal("]")));
   */
  rule(name: string, body: PegId | (() => PegId), options: RuleOptions = {}): PegId {
    if (typeof name !== "string" || !/^[A-Za-z0-9_-]+$/.test(name))
      throw new RangeError(`rule(name): name must match [A-Za-z0-9_-]+, got ${JSON.stringify(name)}`);
    if (this.rules.has(name)) throw new RangeError(`rule(): rule ${JSON.stringify(name)} is already defined`);
    // Placeholder first, so the body can refer to the rule.
    const id = this.add({ type: "eps" });
    this.rules.set(name, id);
    const item = this.check(typeof body === "function" ? body() : body, `rule(${name})`);
    const t = options.trigger;
    const trigger: TriggerSpec | null = t === undefined || t === false ? null : t === true ? { auto: true } : t;
    this.nodes[id] = { type: "rule", name, item, trigger };
    return this.ref(name);
  }

  /** `name`: a reference to a rule (it may be defined later). */
  ref(name: string): PegId {
    return this.add({ type: "ref", name });
  }

  /** Any JSON value (whitespace allowed between tokens). */
  json(): PegId {
    if (this.jsonValue === null) this.jsonValue = buildJson(this);
    return this.add({ type: "json", item: this.jsonValue });
  }

  /**
   * `item` constrained by a JSON Schema: it parses as `item`, and its grammar is the schema's.
   *
   * @example
   * p.schema(p.json(), { type: "object", properties: { city: { type: "string" } } }, { name: "args" });
   */
  schema(item: PegId, schema: JsonSchema | object, options: SchemaNodeOptions = {}): PegId {
    if (typeof schema !== "boolean" && (schema === null || typeof schema !== "object" || Array.isArray(schema))) {
      throw new TypeError(
        `schema(): schema must be an object or a boolean, got ${schema === null ? "null" : typeof schema}`,
      );
    }
    const grammar = options.grammar === undefined ? {} : { grammar: this.check(options.grammar, "schema() grammar") };
    return this.add({
      type: "schema",
      item: this.check(item, "schema()"),
      schema: schema as JsonSchema,
      name: options.name ?? "schema",
      raw: options.raw ?? false,
      ...grammar,
    });
  }

  /**
   * Parses with `parse`, emits `grammar` in the GBNF: the parser tolerates what the grammar does
   * not generate (e.g. other whitespace inside a marker).
   *
   * @example
   * p.lenient(p.seq(p.optional(p.literal("\n")), p.space()), p.optional(p.literal("\n")));
   */
  lenient(parse: PegId, grammar: PegId): PegId {
    return this.add({
      type: "lenient",
      parse: this.check(parse, "lenient() parse"),
      grammar: this.check(grammar, "lenient() grammar"),
    });
  }

  /** A result-tree node named `name` holding the nodes produced inside `item`. */
  tag(name: string, item: PegId): PegId {
    return this.add({ type: "tag", name, item: this.check(item, "tag()") });
  }

  /** A result-tree leaf named `name` holding the text `item` matched. */
  capture(name: string, item: PegId): PegId {
    return this.add({ type: "capture", name, item: this.check(item, "capture()") });
  }

  /** `item`, but while it is only partially matched it contributes no tree nodes. */
  atomic(item: PegId): PegId {
    return this.add({ type: "atomic", item: this.check(item, "atomic()") });
  }

  /**
   * `[ \t\r\n]*`. `json` says where the space sits in JSON text: the grammar then writes the JSON
   * spelling it is given (pegToGbnf's `whitespace`) there, while the parser still reads any whitespace.
   */
  space(json?: "tight" | "separator"): PegId {
    return this.add(json === undefined ? { type: "space" } : { type: "space", json });
  }

  /** `ε`: matches the empty string. */
  eps(): PegId {
    return this.add({ type: "eps" });
  }

  /** `!.`: the end of the input. */
  end(): PegId {
    return this.add({ type: "end" });
  }

  /**
   * Parses `input` from `root` (see {@link parsePeg}).
   *
   * @example
   * p.parse(root, "Hello <call>", { partial: true }).status; // "need-more"
   */
  parse(root: PegId, input: string, options: { partial?: boolean } = {}): PegParseResult {
    return parsePeg(this, root, input, options);
  }

  /**
   * The GBNF grammar of `root` (see {@link pegToGbnf}); `{ lazy: true }` gives only what follows a trigger.
   *
   * @example
   * const { grammar, triggers } = p.toGbnf(root, { lazy: true });
   */
  toGbnf(root: PegId, options: PegGbnfOptions = {}): PegGbnf {
    return pegToGbnf(this, root, options);
  }

  /** Checks that every referenced rule exists; throws RangeError naming the first missing one. */
  /**
   * A key of the arena's content (nodes, rules, schemas), for caches of what is derived from it;
   * undefined when a schema holds something other than plain data.
   *
   * @example
   * const key = arena.contentKey();
   */
  contentKey(): string | undefined {
    return contentKey([this.nodes, [...this.rules], this.jsonValue]);
  }

  validate(): void {
    for (const n of this.nodes) {
      if (n.type === "ref" && !this.rules.has(n.name))
        throw new RangeError(`PegArena: rule ${JSON.stringify(n.name)} is referenced but never defined`);
    }
  }
}

/** JSON value parser from combinators: `value <- object / array / string / number / true / false / null`. */
function buildJson(p: PegArena): PegId {
  const ws = p.space();
  const hex = p.chars("0-9a-fA-F", 4, 4);
  const escapeSeq = p.seq(p.literal("\\"), p.choice(p.chars('"\\\\/bfnrt', 1, 1), p.seq(p.literal("u"), hex)));
  const string = p.rule(
    "json-string",
    p.seq(p.literal('"'), p.zeroOrMore(p.choice(p.chars('^"\\\\\\x00-\\x1f', 1), escapeSeq)), p.literal('"')),
  );
  const digits = p.chars("0-9", 1);
  const number = p.rule(
    "json-number",
    p.seq(
      p.optional(p.literal("-")),
      p.choice(p.literal("0"), p.seq(p.chars("1-9", 1, 1), p.chars("0-9", 0))),
      p.optional(p.seq(p.literal("."), digits)),
      p.optional(p.seq(p.chars("eE", 1, 1), p.optional(p.chars("+\\-", 1, 1)), p.chars("0-9", 1))),
    ),
  );
  const value = p.ref("json-value");
  const member = p.seq(string, ws, p.literal(":"), ws, value);
  const object = p.rule(
    "json-object",
    p.seq(
      p.literal("{"),
      ws,
      p.optional(p.seq(member, p.zeroOrMore(p.seq(ws, p.literal(","), ws, member)), ws)),
      p.literal("}"),
    ),
  );
  const array = p.rule(
    "json-array",
    p.seq(
      p.literal("["),
      ws,
      p.optional(p.seq(value, p.zeroOrMore(p.seq(ws, p.literal(","), ws, value)), ws)),
      p.literal("]"),
    ),
  );
  return p.rule(
    "json-value",
    p.choice(object, array, string, number, p.literal("true"), p.literal("false"), p.literal("null")),
  );
}
