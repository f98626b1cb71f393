/**
 * MiniMax M3: every structural tag is preceded by the namespace token "]<]minimax[>[":
 *   <mm:think>REASONING</mm:think>CONTENT]<]minimax[>[<tool_call>
 *   ]<]minimax[>[<invoke name="get_weather">]<]minimax[>[<city>Paris]<]minimax[>[</city>]<]minimax[>[</invoke>
 *   ]<]minimax[>[</tool_call>
 * A turn without reasoning starts with a lone </mm:think>. String arguments are raw text,
 * numbers and booleans JSON; objects and arrays are expanded into nested elements,
 * `<meta><k><item>1</item><item>2</item></k></meta>`, read by the schema where it types them and
 * by their shape where it does not. The template cannot write null: it leaves null members out
 * and renders a null array item as an empty `<item>`, read as null where the schema types the
 * items as numbers or booleans and as "" otherwise (an empty string renders the same).
 */
import { PegArena, type PegId } from "../../peg/index.js";
import type { JsonSchema, ToolDefinition } from "../../types.js";
import {
  argumentValue,
  schemaProperties,
  toolParameters,
  type BuildContext,
  jsonAnswerValue,
  maybeFenced,
  sectionsThenText,
} from "../build-helpers.js";
import type { NormalizedRequest } from "../request.js";
import { constrainsValues, isScalarTyped, rawOrTyped, splitRawSchema } from "../raw-union.js";
import { NODE } from "../tree-names.js";
import { grammarString, orderedArguments } from "./grammar-args.js";
import {
  type DedicatedBuild,
  type DedicatedContext,
  type DedicatedHandlerDef,
  dedicatedBuildContext,
  reasoningThenBody,
  sourceHas,
} from "./handler.js";
import type { ReasoningPrefixState } from "../prompt.js";
import { argRuleName } from "../rule-names.js";

const NS = "]<]minimax[>[";
const THINK_START = "<mm:think>";
const THINK_END = "</mm:think>";
const CALLS_START = `${NS}<tool_call>`;
const CALLS_END = `${NS}</tool_call>`;

const ELEMENT_NAME = "A-Za-z0-9_\\-.:$@";
/** The closer of an array item, and the start of any closer (an item element named otherwise). */
const ITEM_CLOSE = `${NS}</item>`;
const ANY_CLOSE = `${NS}</`;

/** The schema's single type, or null. */
function typeOf(schema: JsonSchema): string | null {
  const t = typeof schema === "object" && schema !== null ? (schema as { type?: unknown }).type : undefined;
  return typeof t === "string" ? t : null;
}

/** Element-encoded values: by schema where it says the type, else by shape. */
class ElementValues {
  private count = 0;

  constructor(
    private readonly p: PegArena,
    private readonly ctx: BuildContext,
  ) {}

  /**
   * A list of `<item>` elements (an array). Where the schema declares the array, the parser also takes items
   * under another element name (`<flags><element>b</element></flags>`): each element is one item, its value ending
   * at the next closing tag.
   */
  private items(item: (close: string) => PegId, anyName = false): PegId {
    const p = this.p;
    const open = anyName
      ? p.seq(p.literal(`${NS}<`), p.chars(ELEMENT_NAME, 1), p.literal(">"))
      : p.literal(`${NS}<item>`);
    const close = anyName ? ANY_CLOSE : ITEM_CLOSE;
    const closer = anyName ? p.seq(p.literal(ANY_CLOSE), p.chars(ELEMENT_NAME, 1), p.literal(">")) : p.literal(close);
    // Lookaheads keep tree nodes out until the parse is sure of them: a streamed mapping never takes output back.
    const one = p.seq(p.and(open), p.tag(NODE.argItem, p.seq(open, item(close), closer)));
    return p.seq(p.and(open), p.tag(NODE.argArray, p.oneOrMore(p.seq(p.space(), one))));
  }

  /**
   * The value of any type: items, named elements, or text (a number, boolean or null when it reads as one, else a
   * string).
   */
  untyped(): PegId {
    const p = this.p;
    if (p.ruleNode("mm-any") !== undefined) return p.ref("mm-any");
    return p.rule("mm-any", () => {
      const opener = p.seq(p.literal(`${NS}<`), p.chars(ELEMENT_NAME, 1), p.literal(">"));
      const member = p.tag(
        NODE.toolArg,
        p.seq(
          p.atomic(p.seq(p.literal(`${NS}<`), p.capture(NODE.argName, p.chars(ELEMENT_NAME, 1)), p.literal(">"))),
          p.ref("mm-any"),
          p.literal(`${NS}</`),
          p.chars(ELEMENT_NAME, 1),
          p.literal(">"),
        ),
      );
      const elements = p.seq(p.and(opener), p.tag(NODE.argObject, p.oneOrMore(p.seq(p.space(), member))));
      const scalar = p.choice(
        p.literal("true"),
        p.literal("false"),
        p.literal("null"),
        p.seq(p.optional(p.literal("-")), p.chars("0-9", 1), p.optional(p.seq(p.literal("."), p.chars("0-9", 1)))),
      );
      const text = p.choice(
        p.seq(p.and(p.seq(scalar, p.literal(NS))), p.capture(NODE.argJson, scalar)),
        p.capture(NODE.argString, p.until(NS)),
      );
      return p.choice(
        this.items(() => p.ref("mm-any")),
        elements,
        text,
      );
    });
  }

  /** The value of `schema`, ending at `close`. */
  of(schema: JsonSchema, close: string): PegId {
    const p = this.p;
    const type = typeOf(schema);
    const props = schemaProperties(schema);
    if (type === "object" && props.length > 0) {
      if (this.ctx.forGrammar)
        return p.tag(
          NODE.argObject,
          orderedArguments(p, schema, (key, s) => p.seq(p.space(), this.member(key, s)), p.eps()),
        );
      const members = props.map(([key, s]) => this.member(key, s));
      return p.choice(
        this.writtenAsText(),
        p.tag(NODE.argObject, p.zeroOrMore(p.seq(p.space(), p.choice(...members)))),
      );
    }
    if (type === "array") {
      const items =
        typeof schema === "object" && schema !== null
          ? ((schema as { items?: unknown }).items as JsonSchema | undefined)
          : undefined;
      // An empty array renders as an empty element: read it as [] (the grammar sees items or nothing, as before).
      const anyName = !this.ctx.forGrammar;
      const elements = [this.items((c) => this.of(items ?? {}, c), anyName), p.tag(NODE.argArray, this.empty(close))];
      if (!anyName) return p.choice(...elements);
      return p.choice(this.writtenAsText(), ...this.unwrappedItem(items, close), ...elements);
    }
    // An object the schema does not detail: an empty element is {} rather than "".
    if (type === "object") return p.choice(p.tag(NODE.argObject, this.empty(close)), this.untyped());
    if (type === "string")
      return p.capture(
        NODE.argString,
        this.ctx.forGrammar ? grammarString(p, schema, [close], `mm-string-${this.count++}`) : p.until(close),
      );
    if (type === "number" || type === "integer" || type === "boolean") {
      const json = p.capture(NODE.argJson, argumentValue(this.ctx, schema, `mm-value-${this.count++}`));
      // The parser reads a value that is not the JSON of its type (`018956`) as text (call-finish.ts reads it).
      const value = this.ctx.forGrammar
        ? json
        : p.choice(p.seq(json, p.and(p.seq(p.space(), p.literal(close)))), p.capture(NODE.argString, p.until(close)));
      // A null array item renders as an empty <item> (null members are left out): no value reads as null.
      return close === ITEM_CLOSE || close === ANY_CLOSE ? p.optional(value) : value;
    }
    // Enums, consts, type lists, unions: strings as text, scalars as JSON, each part's keywords enforced.
    const split = splitRawSchema(schema);
    if (type === null && constrainsValues(schema) && (split.typed === null || isScalarTyped(split.typed))) {
      return rawOrTyped(p, schema, {
        text: (s) =>
          p.capture(
            NODE.argString,
            this.ctx.forGrammar ? grammarString(p, s, [close], `mm-string-${this.count++}`) : p.until(close),
          ),
        typed: (s) => p.capture(NODE.argJson, argumentValue(this.ctx, s, `mm-value-${this.count++}`)),
        stops: [close],
        forGrammar: this.ctx.forGrammar === true,
      });
    }
    return this.untyped();
  }

  /**
   * For the parser: the one object of a list of objects written without its `<item>` wrapper (`<items><sku>a</sku>
   * <qty>2</qty></items>`), where the first element is a member the items declare; else none. A lookahead reads it to
   * the list's closer first, so a stream never shows a list it takes back.
   */
  private unwrappedItem(items: JsonSchema | undefined, close: string): PegId[] {
    const p = this.p;
    const names = items === undefined || typeOf(items) !== "object" ? [] : schemaProperties(items).map(([k]) => k);
    if (names.length === 0) return [];
    const first = p.seq(p.space(), p.literal(`${NS}<`), p.choice(...names.map((n) => p.literal(`${n}>`))));
    const list = p.tag(NODE.argArray, p.tag(NODE.argItem, this.of(items!, close)));
    return [p.seq(p.and(first), p.and(p.seq(list, p.space(), p.literal(close))), list)];
  }

  /**
   * For the parser: an object or list written as text rather than as elements (`<payload>{"x": 1}`): the text,
   * which call-finish.ts reads as the JSON it spells. Only where no element starts the value, so no tree
   * node is taken back.
   */
  private writtenAsText(): PegId {
    const p = this.p;
    return p.seq(p.not(p.seq(p.space(), p.literal(NS))), p.capture(NODE.argString, p.until(NS)));
  }

  /** Nothing before the closing tag (a lookahead: the grammar sees an empty alternative). */
  private empty(close: string): PegId {
    const p = this.p;
    return p.and(p.seq(p.space(), p.literal(close)));
  }

  /** One named element holding a value of `schema`. */
  member(key: string, schema: JsonSchema): PegId {
    const p = this.p;
    const close = `${NS}</${key}>`;
    const head = p.atomic(p.seq(p.literal(`${NS}<`), p.capture(NODE.argName, p.literal(key)), p.literal(">")));
    // The parser keeps whitespace before the close in a string value: the grammar copy writes none there.
    return p.tag(
      NODE.toolArg,
      p.seq(head, this.of(schema, close), this.ctx.forGrammar ? p.eps() : p.space(), p.literal(close)),
    );
  }
}

/** The grammar of one tool's arguments (a rule, built once): in schema order, typed, bounded. */
function typedArgs(p: PegArena, values: ElementValues, tool: ToolDefinition, i: number): PegId {
  const name = `g-tool-${i}-args`;
  if (p.ruleNode(name) !== undefined) return p.ref(name);
  return p.rule(
    name,
    orderedArguments(p, toolParameters(tool), (key, schema) => p.seq(p.space(), values.member(key, schema)), p.eps()),
  );
}

/** The grammar of tool_choice "required": the call section alone, arguments in schema order, bounded. */
function requiredGrammar(p: PegArena, req: NormalizedRequest, values: ElementValues): PegId {
  const calls = req.tools.map((t, i) => {
    const head = p.seq(
      p.literal(`${NS}<invoke name="`),
      p.capture(NODE.toolName, p.literal(t.function.name)),
      p.literal('">'),
    );
    const args = typedArgs(p, values, t, i);
    return p.rule(`g-tool-${i}`, p.tag(NODE.tool, p.seq(head, args, p.space(), p.literal(`${NS}</invoke>`))));
  });
  const call = p.choice(...calls);
  const list = p.seq(call, req.parallel ? p.repeat(p.seq(p.space(), call), 0, req.maxCalls - 1) : p.eps());
  return p.seq(
    p.space(),
    p.rule(
      "g-tool-calls",
      p.tag(NODE.toolSection, p.seq(p.literal(CALLS_START), p.space(), list, p.space(), p.literal(CALLS_END))),
    ),
    p.space(),
    p.end(),
  );
}

/**
 * Where the generation prompt leaves reasoning: opened (`thinking_mode` "enabled" ends it with <mm:think>), closed
 * ("disabled" ends it with </mm:think>), or not (the model decides).
 */
function thinkPrefix(generationPrompt: string): { prefix: string; state: ReasoningPrefixState } {
  const end = generationPrompt.trimEnd();
  if (end.endsWith(THINK_START)) return { prefix: THINK_START, state: "open" };
  if (end.endsWith(THINK_END)) return { prefix: THINK_END, state: "closed" };
  return { prefix: "", state: "none" };
}

function build(req: NormalizedRequest, { generationPrompt }: DedicatedContext): DedicatedBuild {
  const p = new PegArena();
  const useTools = req.tools.length > 0 && req.toolChoice !== "none" && req.jsonSchema === null;
  const reasoning = p.optional(
    p.choice(
      p.tag(
        NODE.reasoningBlock,
        p.seq(p.literal(THINK_START), p.space(), p.capture(NODE.reasoning, p.until(THINK_END)), p.literal(THINK_END)),
      ),
      p.literal(THINK_END),
    ),
  );
  let body: PegId;
  let grammarBody: PegId | undefined;
  if (req.jsonSchema !== null) {
    const answer = jsonAnswerValue(p, req.jsonSchema);
    body = p.seq(p.space(), maybeFenced(p, answer), p.space(), p.end());
  } else if (useTools) {
    const ctx = dedicatedBuildContext(p, req);
    const values = new ElementValues(p, ctx);
    // The grammar's values (also the lazy grammar of tool_choice auto): typed and bounded.
    const grammarValues = new ElementValues(p, { ...ctx, forGrammar: true });
    const calls = req.tools.map((t, i) => {
      const args = schemaProperties(toolParameters(t)).map(([key, schema]) =>
        p.rule(argRuleName(i, key), values.member(key, schema)),
      );
      const head = p.atomic(
        p.seq(p.literal(`${NS}<invoke name="`), p.capture(NODE.toolName, p.literal(t.function.name)), p.literal('">')),
      );
      const anyOrder = args.length === 0 ? p.eps() : p.zeroOrMore(p.seq(p.space(), p.choice(...args)));
      const argList =
        args.length === 0
          ? anyOrder
          : p.schema(anyOrder, toolParameters(t), {
              name: `tool-${i}-args`,
              grammar: typedArgs(p, grammarValues, t, i),
            });
      return p.rule(`tool-${i}`, p.tag(NODE.tool, p.seq(head, argList, p.space(), p.literal(`${NS}</invoke>`))));
    });
    if (req.toolChoice === "required") grammarBody = requiredGrammar(p, req, grammarValues);
    const call = p.choice(...calls);
    const list = p.seq(call, req.parallel ? p.zeroOrMore(p.seq(p.space(), call)) : p.eps());
    const section = p.rule(
      "tool-calls",
      p.tag(NODE.toolSection, p.seq(p.literal(CALLS_START), p.space(), list, p.space(), p.literal(CALLS_END))),
      { trigger: true },
    );
    // Every call block is read, with the text between and after them (content).
    const sections = sectionsThenText(p, section, [CALLS_START], req.readsParallel);
    body = p.seq(
      p.capture(NODE.content, p.until(CALLS_START)),
      req.toolChoice === "required" ? sections : p.optional(sections),
      p.space(),
      p.end(),
    );
  } else {
    body = p.capture(NODE.content, p.rest());
  }
  const built = reasoningThenBody("minimax-m3", p, req, {
    reasoning,
    // Without thinking the grammar allows only the lone end marker a turn without reasoning starts with.
    grammarReasoning: req.thinking ? reasoning : p.optional(p.literal(THINK_END)),
    body,
    ...(grammarBody !== undefined ? { grammarBody } : {}),
    reasoningEnd: THINK_END,
    reasoningStart: THINK_START,
    useTools,
  });
  return {
    built,
    ...thinkPrefix(generationPrompt),
    preservedTokens: [NS, "<tool_call>", "</tool_call>", THINK_START, THINK_END],
  };
}

/** The MiniMax M3 handler. */
export const minimaxM3: DedicatedHandlerDef = {
  name: "minimax-m3",
  handles: ["minimax-m3"],
  // The "]<]minimax[>[" namespace token collides with marker segmentation.
  detect: (s) => (sourceHas(s, "]<]minimax[>[", "<tool_call>", "<invoke name=") ? "minimax-m3" : null),
  build,
};
