/**
 * LFM2.5: optional <think> reasoning, content, then calls as a Python list of call expressions:
 *   <|tool_call_start|>[get_weather(city='Paris'), get_weather(city='Tokyo', days=3)]<|tool_call_end|>
 * Keyword arguments; strings are read as Python strings with escapes, though the template writes
 * them unescaped (`'it's'`): a quote ends one only when `)` or `, NAME=` follows; other values are
 * Python or JSON literals.
 */
import type { ChatMessage } from "../../types.js";
import { PegArena, type PegId } from "../../peg/index.js";
import {
  jsonCallObject,
  pythonTyped,
  pythonSequence,
  pythonValue,
  schemaProperties,
  toolParameters,
  jsonAnswerValue,
  sectionsThenText,
} from "../build-helpers.js";
import type { JsonSchema, ToolDefinition } from "../../types.js";
import { grammarString, orderedArguments } from "./grammar-args.js";
import type { NormalizedRequest } from "../request.js";
import { lenientString, pythonicListHead, undeclaredKeywordArgument } from "../build-tools-pythonic.js";
import { hasStringKeywords } from "../literal-schema.js";
import { rawOrTyped } from "../raw-union.js";
import { NODE } from "../tree-names.js";
import {
  type DedicatedBuild,
  type DedicatedHandlerDef,
  dedicatedBuildContext,
  reasoningThenBody,
  sourceHas,
} from "./handler.js";
import { argRuleName } from "../rule-names.js";
import { textBeforeCalls } from "../fenced-calls.js";

const CALLS_START = "<|tool_call_start|>";
const CALLS_END = "<|tool_call_end|>";
const THINK = "<think>";
const END_THINK = "</think>";

/**
 * The grammar of one tool's keyword arguments (a rule, built once): in schema order, strings
 * single-quoted and bounded by the schema, other values typed Python literals.
 */
function typedArgs(p: PegArena, req: NormalizedRequest, t: ToolDefinition, i: number): PegId {
  const rule = `g-tool-${i}-args`;
  if (p.ruleNode(rule) !== undefined) return p.ref(rule);
  const ctx = dedicatedBuildContext(p, req, { pythonTaggedValues: true, toolTrigger: false, forGrammar: true });
  const arg = (key: string, schema: JsonSchema): PegId => {
    const name = argRuleName(i, key);
    // Strings with keywords (enum, pattern, bounds) cannot hold the quote; others are read as the parser reads them.
    const text = (s: JsonSchema): PegId =>
      hasStringKeywords(s)
        ? p.seq(p.literal("'"), p.capture(NODE.argString, grammarString(p, s, ["'"], name)), p.literal("'"))
        : lenientString(p, "'");
    const value = rawOrTyped(p, schema, {
      text,
      typed: (s) => p.capture(NODE.argJson, pythonTyped(ctx, s, name)),
      stops: null,
      forGrammar: true,
    });
    return p.tag(NODE.toolArg, p.seq(p.capture(NODE.argName, p.literal(key)), p.literal("="), value));
  };
  return p.rule(rule, orderedArguments(p, toolParameters(t), arg, p.literal(", ")));
}

/**
 * The grammar of tool_choice "required": the call list alone, keyword arguments in schema
 * order, strings single-quoted and bounded by the schema, other values typed Python literals.
 */
function requiredGrammar(p: PegArena, req: NormalizedRequest): PegId {
  const calls = req.tools.map((t, i) =>
    p.rule(
      `g-tool-${i}`,
      p.tag(
        NODE.tool,
        p.seq(
          p.capture(NODE.toolName, p.literal(t.function.name)),
          p.literal("("),
          typedArgs(p, req, t, i),
          p.literal(")"),
        ),
      ),
    ),
  );
  const call = p.choice(...calls);
  const list = p.seq(
    p.literal("["),
    call,
    req.parallel ? p.repeat(p.seq(p.literal(", "), call), 0, req.maxCalls - 1) : p.eps(),
    p.literal("]"),
  );
  return p.seq(
    p.rule("g-tool-calls", p.tag(NODE.toolSection, p.seq(p.literal(CALLS_START), list, p.literal(CALLS_END)))),
    p.space(),
    p.end(),
  );
}

function build(req: NormalizedRequest): DedicatedBuild {
  const p = new PegArena();
  const useTools = req.tools.length > 0 && req.toolChoice !== "none" && req.jsonSchema === null;
  const reasoning = p.optional(
    p.seq(
      p.tag(
        NODE.reasoningBlock,
        p.seq(p.literal(THINK), p.capture(NODE.reasoning, p.until(END_THINK)), p.literal(END_THINK)),
      ),
      p.space(),
    ),
  );
  let body: PegId;
  let grammarBody: PegId | undefined;
  const content = (): PegId => p.capture(NODE.content, p.until(CALLS_START));
  if (req.jsonSchema !== null) {
    body = p.seq(p.space(), jsonAnswerValue(p, req.jsonSchema), p.space(), p.end());
  } else if (useTools) {
    const calls = req.tools.map((t, i) => {
      const args = schemaProperties(toolParameters(t)).map(([key]) => {
        // Any string or literal: a value that does not fit the schema (None for a string) is kept
        // as written, and the argument check reports it.
        const value = p.choice(
          lenientString(p, "'"),
          lenientString(p, '"'),
          p.capture(NODE.argJson, pythonValue(p)),
          p.capture(NODE.argString, pythonSequence(p)),
        );
        return p.tag(
          NODE.toolArg,
          p.seq(p.atomic(p.seq(p.capture(NODE.argName, p.literal(key)), p.space(), p.literal("="))), p.space(), value),
        );
      });
      // The parser also reads an argument the tool does not declare (the argument check reports it).
      const one = p.choice(...args, undeclaredKeywordArgument(p));
      // A trailing comma is valid Python (`f(x='a',)`).
      const anyOrder = p.optional(
        p.seq(
          one,
          p.zeroOrMore(p.seq(p.space(), p.literal(","), p.space(), one)),
          p.optional(p.seq(p.space(), p.literal(","))),
        ),
      );
      // The grammar (also the lazy one of tool_choice auto) writes them typed, in schema order.
      const argList =
        args.length === 0
          ? p.lenient(anyOrder, p.eps())
          : p.schema(anyOrder, toolParameters(t), { name: `tool-${i}-args`, grammar: typedArgs(p, req, t, i) });
      const head = p.atomic(p.seq(p.capture(NODE.toolName, p.literal(t.function.name)), p.literal("(")));
      return p.rule(`tool-${i}`, p.tag(NODE.tool, p.seq(head, p.space(), argList, p.space(), p.literal(")"))));
    });
    // The parser also reads calls written as JSON objects in the list; the grammar writes Python calls.
    const call = p.lenient(
      p.choice(...calls, ...req.tools.map((t) => jsonCallObject(p, t.function.name))),
      p.choice(...calls),
    );
    const jsonCalls = p.choice(...req.tools.map((t) => jsonCallObject(p, t.function.name)));
    // The parser reads every call the model writes (the required grammar bounds them).
    const list = p.seq(
      p.literal("["),
      p.space(),
      call,
      p.zeroOrMore(p.seq(p.space(), p.literal(","), p.space(), call)),
      p.space(),
      p.literal("]"),
    );
    // For the parser also calls without the list's brackets (`<|tool_call_start|>f(a=1)<|tool_call_end|>`).
    const unbracketed = p.seq(call, p.zeroOrMore(p.seq(p.space(), p.literal(","), p.space(), call)), p.space());
    const section = p.rule(
      "tool-calls",
      // The parser reads whitespace after the opener (`<|tool_call_start|> [f()]`), and one JSON call object
      // without the list's brackets; the grammar writes the list.
      p.tag(
        NODE.toolSection,
        p.seq(
          p.literal(CALLS_START),
          p.lenient(p.space(), p.eps()),
          p.lenient(p.choice(list, p.seq(jsonCalls, p.space()), unbracketed), list),
          // The parser reads a section its model left unclosed (`…(a=1)]` at the end), and whitespace before its
          // closer (`…] <|tool_call_end|>`); the grammar writes the closer right after the list.
          p.lenient(p.optional(p.seq(p.space(), p.literal(CALLS_END))), p.literal(CALLS_END)),
        ),
      ),
      { trigger: true },
    );
    // The parser also reads the list without its markers where its first call names a declared tool
    // (`[get_weather(city='Paris')]`, as models write it); a list in prose is no call.
    const bareHead = pythonicListHead(p, req.tools);
    const bare = p.tag(NODE.toolSection, p.seq(p.and(bareHead), list));
    const text = (): PegId =>
      p.lenient(textBeforeCalls(p, [CALLS_START], { fenced: null, braceCall: bareHead, callStarts: ["["] }), content());
    // Every call section is read, with the text between and after them (content).
    const sections = sectionsThenText(
      p,
      p.lenient(p.choice(section, bare), section),
      [CALLS_START],
      req.readsParallel,
      text(),
    );
    body = p.seq(text(), req.toolChoice === "required" ? sections : p.optional(sections), p.space(), p.end());
    if (req.toolChoice === "required") grammarBody = requiredGrammar(p, req);
  } else {
    body = p.capture(NODE.content, p.rest());
  }
  const built = reasoningThenBody("lfm2.5", p, req, {
    reasoning,
    body,
    ...(grammarBody !== undefined ? { grammarBody } : {}),
    reasoningEnd: END_THINK,
    reasoningStart: THINK,
    useTools,
  });
  return { built, prefix: "", state: "none", preservedTokens: [CALLS_START, CALLS_END, THINK, END_THINK] };
}

/** The template reads reasoning from `thinking`. */
function adaptMessages(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((m) =>
    m.role === "assistant" && typeof m.reasoning_content === "string"
      ? ({ ...m, thinking: m.reasoning_content } as unknown as ChatMessage)
      : m,
  );
}

/** The LFM2.5 handler. */
// LFM2 writes its calls as LFM2.5 does (<|tool_call_start|>[f(a=1)]<|tool_call_end|>); its
// template only describes tools and never renders a call, so the analysis cannot learn it.
/** LFM2 lists tools between markers; LFM2.5 writes "List of tools: [" and no list markers. */
function detect(s: string): "lfm2" | "lfm2.5" | null {
  if (sourceHas(s, "<|tool_list_start|>", "<|tool_list_end|>")) return "lfm2";
  return sourceHas(s, "List of tools: [") && !s.includes("<|tool_list_start|>") ? "lfm2.5" : null;
}

export const lfm25: DedicatedHandlerDef = {
  name: "lfm2.5",
  handles: ["lfm2", "lfm2.5"],
  detect,
  reasoning: { start: THINK, end: END_THINK },
  adaptMessages,
  build,
};
