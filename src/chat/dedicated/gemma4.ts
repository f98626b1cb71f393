/**
 * Gemma 4: reasoning on a thought channel, then content, then calls:
 *   <|channel>thought\nREASONING<channel|>CONTENT<|tool_call>call:NAME{key:VALUE,...}<tool_call|>
 * Argument objects have bare keys and strings between <|"|> delimiters with nothing escaped
 * inside (`{city:<|"|>Paris<|"|>,days:3}`); numbers, booleans and null are written as in JSON
 * (null also as None, or none for the parser). The mapper reads them through the normalizer's Gemma dialect.
 */
import { PegArena, type PegId } from "../../peg/index.js";
import type { ValueDialect } from "../json-normalizer.js";
import type { NormalizedRequest } from "../request.js";
import { NODE } from "../tree-names.js";
import { type DedicatedBuild, type DedicatedHandlerDef, dedicatedParser, sourceHas } from "./handler.js";
import type { JsonSchema, ToolDefinition } from "../../types.js";
import { toolParameters, jsonAnswerValue, maybeFenced, reasoningText, sectionsThenText } from "../build-helpers.js";
import { orderedArguments } from "./grammar-args.js";
import { type LiteralDialect, literalValue, quotedString } from "../literal-schema.js";
import { argRuleName } from "../rule-names.js";
import { type Gemma4Markers, repairedArguments } from "./gemma4-repair.js";

const CHANNEL = "<|channel>";
const CHANNEL_END = "<channel|>";
const CALL = "<|tool_call>call:";
/** What a call written without its special tokens may follow in the output (besides its start). */
const BARE_CALL_AFTER = [" ", "\n", "\t", "\r", ".", "!", "?", ",", ";", ":", ")", "]", "}", ">", "*"];
const CALL_END = "<tool_call|>";
const STRING = '<|"|>';
/**
 * A key the template writes bare: it writes every key as it is (`Basic LLM Chain:{...}`), so the parser reads
 * any text up to the colon; the grammar delimits only keys that a bare key could not hold.
 */
const NOT_IN_BARE_KEY = ':{}\\[\\],"<>\n';
const BARE_KEY_CHARS = `^${NOT_IN_BARE_KEY}`;
const BARE_KEY = new RegExp(`^[^${NOT_IN_BARE_KEY}\\s](?:[^${NOT_IN_BARE_KEY}]*[^${NOT_IN_BARE_KEY}\\s])?$`);
const writtenKey = (key: string): string => (BARE_KEY.test(key) ? key : `${STRING}${key}${STRING}`);
/** What the model writes after its calls: the turn goes to the tool's response. */
const TURN_END = "<|tool_response>";

/** What a repaired argument object is read between (gemma4-repair.ts). */
const MARKERS: Gemma4Markers = { string: STRING, callEnd: CALL_END, bareKeyChars: BARE_KEY_CHARS };

/** How the mapper reads Gemma 4 argument objects. */
export const GEMMA4_DIALECT: ValueDialect = { stringDelimiter: STRING, bareKeys: true };

/** Rules for a Gemma 4 value (object, array, delimited string, number, literal); returns the object rule. */
function valueRules(p: PegArena): PegId {
  const ws = p.space();
  const delimited = p.seq(p.literal(STRING), p.until(STRING), p.literal(STRING));
  // For the parser also a JSON string (`q:"raw \"x\""`), as models write one now and then.
  const json = p.seq(
    p.literal('"'),
    p.zeroOrMore(p.choice(p.chars('^"\\\\', 1), p.seq(p.literal("\\"), p.any()))),
    p.literal('"'),
  );
  const str = p.rule("gemma4-string", p.lenient(p.choice(delimited, json), delimited));
  const number = p.rule(
    "gemma4-number",
    p.seq(
      p.optional(p.literal("-")),
      p.chars("0-9", 1),
      p.optional(p.seq(p.literal("."), p.chars("0-9", 1))),
      p.optional(p.seq(p.chars("eE", 1, 1), p.optional(p.chars("+\\-", 1, 1)), p.chars("0-9", 1))),
    ),
  );
  const written = p.choice(
    p.literal("true"),
    p.literal("false"),
    p.literal("null"),
    p.literal("True"),
    p.literal("False"),
    p.literal("None"),
  );
  // For the parser also `none` (LM Studio's tests read it as null); the grammar writes JSON's and Python's words.
  const literal = p.rule("gemma4-literal", p.lenient(p.choice(written, p.literal("none")), written));
  const value = p.ref("gemma4-value");
  const key = p.choice(str, p.chars(BARE_KEY_CHARS, 1));
  const member = p.seq(key, ws, p.literal(":"), ws, value);
  const object = p.rule("gemma4-object", () =>
    p.seq(
      p.literal("{"),
      ws,
      p.optional(p.seq(member, p.zeroOrMore(p.seq(ws, p.literal(","), ws, member)), ws)),
      p.literal("}"),
    ),
  );
  const array = p.rule("gemma4-array", () =>
    p.seq(
      p.literal("["),
      ws,
      p.optional(p.seq(value, p.zeroOrMore(p.seq(ws, p.literal(","), ws, value)), ws)),
      p.literal("]"),
    ),
  );
  // For the parser also, when no value reads, a string whose opening delimiter the model left out
  // (`query:weather in Tokyo<|"|>`), as SGLang's tests read it: text from a letter to the closing delimiter, with
  // no structure in it (no key, bracket or quote).
  const unopened = p.seq(p.chars("A-Za-z", 1, 1), p.chars('^<{}\\[\\]":\n\r', 0), p.literal(STRING));
  const values = [str, object, array, number, literal];
  p.rule("gemma4-value", p.lenient(p.choice(...values, unopened), p.choice(...values)));
  return object;
}

/** Gemma 4 values for the grammar copy: bare keys (in key order: the template dictsorts), delimited strings. */
const GEMMA4_LITERALS: LiteralDialect = {
  name: "gemma4",
  string: (p, schema, name) => quotedString(p, schema, STRING, STRING, name),
  stringLiterals: (v) => [`${STRING}${v}${STRING}`],
  key: (p, key) => p.literal(writtenKey(key)),
  any: (p) => p.ref("gemma4-value"),
  words: { null: ["null", "None"], true: ["true", "True"], false: ["false", "False"] },
  comma: ",",
  colon: ":",
  sortedKeys: true,
};

/**
 * The grammar of one tool's argument object (a rule, built once): arguments in key order (the
 * template dictsorts), each typed by its schema, objects and arrays included (see literal-schema.ts).
 */
function typedArgs(p: PegArena, tool: ToolDefinition, i: number): PegId {
  const name = `g-tool-${i}-args`;
  if (p.ruleNode(name) !== undefined) return p.ref(name);
  const arg = (key: string, schema: JsonSchema): PegId => {
    const value = literalValue(p, schema, GEMMA4_LITERALS, argRuleName(i, key));
    return p.seq(p.literal(writtenKey(key)), p.literal(":"), value);
  };
  return p.rule(
    name,
    p.seq(p.literal("{"), orderedArguments(p, toolParameters(tool), arg, p.literal(","), "sorted"), p.literal("}")),
  );
}

/** The grammar's call section for tool_choice "required": arguments in schema order, typed, bounded. */
function requiredSection(p: PegArena, req: NormalizedRequest): PegId {
  const calls = req.tools.map((t, i) =>
    p.rule(
      `g-tool-${i}`,
      p.tag(
        NODE.tool,
        p.seq(p.capture(NODE.toolName, p.literal(t.function.name)), p.capture(NODE.toolArgs, typedArgs(p, t, i))),
      ),
    ),
  );
  const one = p.seq(p.literal(CALL), p.choice(...calls), p.literal(CALL_END));
  return p.rule(
    "g-tool-calls",
    p.tag(NODE.toolSection, p.seq(one, req.parallel ? p.repeat(p.seq(p.space(), one), 0, req.maxCalls - 1) : p.eps())),
  );
}

function build(req: NormalizedRequest): DedicatedBuild {
  const p = new PegArena();
  const useTools = req.tools.length > 0 && req.toolChoice !== "none" && req.jsonSchema === null;
  // For the parser a thought also ends where the answer opens a channel of its own (`<|channel>response\n`), and at
  // a call after which the thought is never closed, tools or not, as the generic parser's reasoning does (a model goes
  // from thinking straight to a call: the markup is then a call or content, never hidden reasoning).
  const answerChannel = p.seq(p.literal(CHANNEL), p.not(p.literal("thought")), p.chars("a-z_", 1, 32), p.space());
  const endsAtCall = req.jsonSchema === null;
  const callStarts = endsAtCall ? [p.and(p.literal("<|tool_call>"))] : [];
  // For the parser the end of the output ends a thought too: text there that could have begun its end marker
  // (`…<chann`) is thought, as the generic parser's reasoning reads it.
  const thoughtEnd = p.lenient(
    p.choice(p.literal(CHANNEL_END), answerChannel, ...callStarts, p.end()),
    p.literal(CHANNEL_END),
  );
  const read = endsAtCall ? reasoningText(p, [CHANNEL_END, CHANNEL], ["<|tool_call>"]) : p.until(CHANNEL_END, CHANNEL);
  const thoughtText = p.lenient(read, p.until(CHANNEL_END));
  // For the parser any channel the model opens is a thought (`<|channel>Let me see<channel|>`: models leave the
  // name out); empty ones, and an opener right before another, are skipped.
  const named = p.seq(p.literal(`${CHANNEL}thought`), p.space());
  const head = p.lenient(p.choice(named, p.seq(p.literal(CHANNEL), p.not(p.literal("thought")))), named);
  /** Empty channels, and openers right before another, skipped; an empty one only where `afterEmpty` follows. */
  const skipped = (afterEmpty: PegId): PegId =>
    p.zeroOrMore(
      p.seq(
        p.literal(CHANNEL),
        p.space(),
        p.choice(p.seq(p.literal(CHANNEL_END), afterEmpty), p.and(p.literal(CHANNEL))),
      ),
    );
  // For the parser an empty channel is skipped only before another channel: a last one is an empty thought.
  const thought = p.seq(
    p.lenient(skipped(p.and(p.seq(p.space(), p.literal(CHANNEL)))), skipped(p.eps())),
    p.tag(NODE.reasoningBlock, p.seq(head, p.capture(NODE.reasoning, thoughtText), thoughtEnd)),
  );
  const start = p.optional(p.literal("<|turn>model\n"));
  let body: PegId;
  let grammarRoot: PegId | undefined;
  if (req.jsonSchema !== null) {
    const answer = jsonAnswerValue(p, req.jsonSchema);
    body = p.seq(p.optional(thought), p.space(), maybeFenced(p, answer), p.space(), p.end());
  } else if (useTools) {
    const object = valueRules(p);
    const value = p.ref("gemma4-value");
    // For the parser whitespace may come between the name and its argument object (`call:f\n{\n  k:…\n}`).
    const gap = p.lenient(p.space(), p.eps());
    const calls = req.tools.map((t, i) => {
      const name = p.capture(NODE.toolName, p.literal(t.function.name));
      const withArgs = p.seq(
        p.atomic(p.seq(name, gap, p.and(p.literal("{")))),
        p.capture(
          NODE.toolArgs,
          p.schema(object, toolParameters(t), { name: `tool-${i}-args`, grammar: typedArgs(p, t, i) }),
        ),
      );
      // For the parser also an argument object written wrongly, repaired (gemma4-repair.ts), and a call without
      // its argument object right before its closer (`call:now<tool_call|>`).
      const repaired = p.seq(
        p.atomic(p.seq(name, gap, p.and(p.chars("{(", 1, 1)))),
        repairedArguments(p, t, value, MARKERS),
      );
      const bare = p.atomic(p.seq(name, p.and(p.literal(CALL_END))));
      return p.rule(`tool-${i}`, p.tag(NODE.tool, p.lenient(p.choice(withArgs, repaired, bare), withArgs)));
    });
    // The parser also reads a call whose `<|tool_call>` and `<tool_call|>` the output lacks (a serving stack
    // that drops special tokens writes `call:NAME{…}`): its braces still close it.
    const names = p.choice(...req.tools.map((t) => p.literal(t.function.name)));
    const bareHead = p.seq(p.literal("call:"), names, p.literal("{"));
    // Also `<|tool_call>:NAME{…}`, the `call` left out (as Ollama's users report Gemma 4 writing it).
    const uncalled = p.seq(p.literal("<|tool_call>:"), p.and(p.seq(names, p.literal("{"))));
    const opener = p.lenient(
      p.choice(p.literal(CALL), uncalled, p.seq(p.and(bareHead), p.literal("call:"))),
      p.literal(CALL),
    );
    const closer = p.lenient(p.optional(p.literal(CALL_END)), p.literal(CALL_END));
    const one = p.seq(opener, p.choice(...calls), closer);
    // A bare call starts the output or follows a space or punctuation: `recall:f{` or a quoted `"call:f{…}"` in
    // prose is text.
    const before = p.choice(...BARE_CALL_AFTER.map((c) => p.literal(c)));
    const bareStops = BARE_CALL_AFTER.map((c) => `${c}call:`);
    /** Text up to `stops` or a bare call. */
    const textUntil = (...stops: string[]): PegId => {
      const piece = p.until(...stops, ...bareStops);
      const text = p.seq(
        piece,
        p.zeroOrMore(p.seq(before, p.not(bareHead), piece)),
        p.optional(p.seq(before, p.and(bareHead))),
      );
      return p.lenient(p.choice(p.and(bareHead), text), p.until(...stops));
    };
    const section = p.rule(
      "tool-calls",
      p.tag(NODE.toolSection, p.seq(one, req.parallel ? p.zeroOrMore(p.seq(p.space(), one)) : p.eps())),
      { trigger: true },
    );
    // The model's end-of-turn marker after calls (the template writes it in history).
    const after = p.seq(p.space(), p.optional(p.literal(TURN_END)), p.space(), p.end());
    // Every call section is read, with the text between and after them (content).
    const between = p.capture(NODE.content, textUntil("<|tool_call>", TURN_END));
    const sections = sectionsThenText(p, section, ["<|tool_call>", TURN_END], req.readsParallel, between);
    if (req.toolChoice === "required") {
      body = p.seq(p.optional(thought), p.space(), sections, after);
      grammarRoot = p.seq(
        start,
        req.thinking ? p.optional(thought) : p.eps(),
        p.space(),
        requiredSection(p, req),
        after,
      );
    } else {
      const content = p.capture(NODE.content, textUntil(CHANNEL, CHANNEL_END, "<|tool_call>"));
      const message = p.seq(p.optional(thought), content);
      // For the parser a thought's end with no thought open (its opener misspelled: `<|channel|>thought…<channel|>`)
      // is text, and reading goes on to the calls after it.
      const stray = p.capture(NODE.content, p.literal(CHANNEL_END));
      const next = p.lenient(p.choice(thought, stray), thought);
      body = p.seq(message, p.zeroOrMore(p.seq(next, content)), p.optional(sections), after);
    }
  } else {
    // A trailing empty thought block or a stray channel end may follow the content.
    const content = p.capture(NODE.content, p.until(CHANNEL, CHANNEL_END));
    body = p.seq(
      p.optional(thought),
      content,
      p.zeroOrMore(p.seq(thought, content)),
      p.optional(p.literal(CHANNEL_END)),
      p.capture(NODE.content, p.rest()),
    );
  }
  const root = p.seq(start, body);
  const built = dedicatedParser("gemma4", p, req, {
    root,
    body,
    ...(grammarRoot !== undefined ? { grammarRoot } : {}),
    mapping: { valueDialect: GEMMA4_DIALECT },
    useTools,
  });
  return {
    built,
    prefix: "",
    state: "none",
    preservedTokens: [CHANNEL, CHANNEL_END, "<|tool_call>", CALL_END, "<|turn>", STRING],
  };
}

/** The Gemma 4 handler. */
export const gemma4: DedicatedHandlerDef = {
  name: "gemma4",
  handles: ["gemma4"],
  detect: (s) => (sourceHas(s, "'<|tool_call>call:'") ? "gemma4" : null),
  reasoning: { start: `${CHANNEL}thought\n`, end: CHANNEL_END },
  build,
};
