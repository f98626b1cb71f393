/**
 * Muse Glimmer: the output is a series of messages, each with a recipient header after
 * "<|start|>assistant" (the prompt ends with the first one):
 *   to=self<|message|>REASONING<|eom|><|start|>assistant
 *   to=user<|message|>ANSWER
 * or calls, one per message:
 *   to=get_weather<|message|><atem:function_calls>
 *   <atem:invoke name="get_weather">
 *   <atem:parameter name="city">Paris</atem:parameter>
 *   </atem:invoke>
 *   </atem:function_calls><|eom|><|start|>assistant to=…
 * String parameters are raw text, others JSON.
 */
import { PegArena, type PegId } from "../../peg/index.js";
import {
  argumentValue,
  isUntyped,
  schemaProperties,
  toolParameters,
  type BuildContext,
  jsonAnswerValue,
  sectionsBetween,
} from "../build-helpers.js";
import type { NormalizedRequest } from "../request.js";
import { untypedJson } from "../build-tagged-arguments.js";
import { rawOrTyped } from "../raw-union.js";
import { NODE } from "../tree-names.js";
import {
  type DedicatedBuild,
  type DedicatedHandlerDef,
  dedicatedBuildContext,
  dedicatedParser,
  sourceHas,
} from "./handler.js";
import type { ToolDefinition } from "../../types.js";
import { taggedArgsRule } from "./grammar-args.js";
import { argumentList, undeclaredElement } from "./lenient-args.js";
import { argRuleName } from "../rule-names.js";

const START = "<|start|>assistant";
const MESSAGE = "<|message|>";
const EOM = "<|eom|>";
const EOT = "<|eot|>";
const BLOCK = "<atem:function_calls>";
const PARAM_END = "</atem:parameter>";
/** A recipient header naming neither the model itself nor the user starts a call. */
const CALL_TRIGGER =
  "(?:^|<\\|start\\|>assistant)( to=(?!self<\\|message\\|>)(?!user<\\|message\\|>)[^<]*<\\|message\\|>)";

/** The grammar of one tool's arguments (a rule, built once): in schema order, typed, bounded. */
function typedArgs(p: PegArena, parse: BuildContext, t: ToolDefinition, i: number): PegId {
  return taggedArgsRule(p, parse, t, i, PARAM_END, (key, value) =>
    p.seq(
      p.literal('<atem:parameter name="'),
      p.capture(NODE.argName, p.literal(key)),
      p.literal('">'),
      value,
      p.literal(PARAM_END),
    ),
  );
}

/**
 * The grammar of tool_choice "required": reasoning messages only when the request thinks, then
 * the calls, the recipient being the function's name as the template writes it, arguments in
 * schema order, bounded.
 */
function requiredGrammar(
  p: PegArena,
  req: NormalizedRequest,
  parse: BuildContext,
  earlier: PegId,
  ending: PegId,
): PegId {
  const calls = req.tools.map((t, i) => {
    const head = p.seq(
      p.literal(` to=${t.function.name}${MESSAGE}<atem:function_calls>`),
      p.space(),
      p.literal('<atem:invoke name="'),
      p.capture(NODE.toolName, p.literal(t.function.name)),
      p.literal('">'),
    );
    return p.rule(
      `g-tool-${i}`,
      p.tag(
        NODE.tool,
        p.seq(
          head,
          p.space(),
          typedArgs(p, parse, t, i),
          p.space(),
          p.literal("</atem:invoke>"),
          p.space(),
          p.literal("</atem:function_calls>"),
        ),
      ),
    );
  });
  const call = p.choice(...calls);
  const list = p.seq(
    call,
    req.parallel ? p.repeat(p.seq(p.literal(EOM), p.literal(START), call), 0, req.maxCalls - 1) : p.eps(),
    ending,
  );
  return p.seq(earlier, p.rule("g-tool-calls", p.tag(NODE.toolSection, list)));
}

/**
 * The invoked name: the tool's, for the parser also under its namespace where the name has none
 * (`get_weather.get_weather`): the template teaches recipients as `NAMESPACE.*`, the namespace being
 * the name up to its first dot, so a name without one is its own namespace.
 */
function invokedName(p: PegArena, name: string): PegId {
  const own = p.capture(NODE.toolName, p.literal(name));
  if (name.includes(".")) return own;
  return p.seq(p.lenient(p.optional(p.literal(`${name}.`)), p.eps()), own);
}

/** `value` in an attribute's double quotes; for the parser also in single quotes or none, as models write it. */
function quoted(p: PegArena, value: PegId): PegId {
  const written = p.seq(p.literal('"'), value, p.literal('"'));
  return p.lenient(p.choice(written, p.seq(p.literal("'"), value, p.literal("'")), value), written);
}

/** An attribute's value `text`, captured as `capture`, quoted as {@link quoted} reads it. */
function attribute(p: PegArena, capture: string, text: string): PegId {
  return quoted(p, p.capture(capture, p.literal(text)));
}

/**
 * One tool's call message as the parser reads it: any recipient header, arguments in any order (`call`); and, for
 * the parser, the same tool's invoke written after another in the same block (`more`).
 */
function parsedCall(p: PegArena, ctx: BuildContext, t: ToolDefinition, i: number): { call: PegId; more: PegId } {
  const args = schemaProperties(toolParameters(t)).map(([key, schema]) => {
    const name = argRuleName(i, key);
    const text = (): PegId => p.capture(NODE.argString, p.until(PARAM_END));
    // A value the schema gives no type is its JSON where it reads whole as JSON (the template writes JSON for any
    // value but a string), as in the generic tagged formats.
    const value = isUntyped(schema)
      ? p.choice(untypedJson(ctx, "", [PARAM_END]), text())
      : rawOrTyped(p, schema, {
          text,
          typed: (s) => p.capture(NODE.argJson, argumentValue(ctx, s, name)),
          stops: [PARAM_END],
          forGrammar: false,
        });
    const head = p.atomic(p.seq(p.literal("<atem:parameter name="), attribute(p, NODE.argName, key), p.literal(">")));
    return p.tag(NODE.toolArg, p.seq(head, value, p.literal(PARAM_END)));
  });
  // A message to the user or to the model itself is no call, whatever it holds (as the trigger says); one
  // without a recipient header is a call where it holds one (the invoked name says which).
  const recipient = p.seq(
    to(p),
    p.not(p.choice(p.literal(`user${MESSAGE}`), p.literal(`self${MESSAGE}`))),
    p.until(MESSAGE),
  );
  const invoke = p.seq(p.literal("<atem:invoke name="), quoted(p, invokedName(p, t.function.name)), p.literal(">"));
  // For the parser also a block without its message's header (`<atem:function_calls>` at the start of a message).
  const head = p.atomic(
    p.seq(
      p.lenient(p.optional(recipient), recipient),
      p.lenient(p.optional(p.literal(MESSAGE)), p.literal(MESSAGE)),
      p.literal("<atem:function_calls>"),
      p.space(),
      invoke,
    ),
  );
  const anyOrder = p.zeroOrMore(
    p.seq(p.space(), p.choice(...args, undeclaredElement(p, '<atem:parameter name="', '">', PARAM_END))),
  );
  // The grammar (also the lazy one of tool_choice auto) writes them typed, in schema order.
  const argList = argumentList(p, anyOrder, t, i, () => typedArgs(p, ctx, t, i));
  const closeInvoke = p.seq(p.space(), p.literal("</atem:invoke>"));
  const closeBlock = p.seq(p.space(), p.literal("</atem:function_calls>"));
  // For the parser a block may hold several invokes (each a call), as models that learned such blocks write
  // them: an invoke's closer then ends its call, the block's closer comes after the last.
  // The block's closer may also be left out at the end of the output (the call is whole).
  const blockGoesOn = p.choice(
    closeBlock,
    p.and(p.seq(p.space(), p.literal("<atem:invoke name="))),
    p.seq(p.space(), p.end()),
  );
  const end = p.lenient(p.seq(closeInvoke, blockGoesOn), p.seq(closeInvoke, closeBlock));
  return {
    call: p.rule(`tool-${i}`, p.tag(NODE.tool, p.seq(head, argList, end))),
    more: p.rule(`tool-${i}-more`, p.tag(NODE.tool, p.seq(p.atomic(invoke), argList, closeInvoke, blockGoesOn))),
  };
}

/**
 * `<|start|>assistant` before the next message; for the parser also left out before its recipient (` to=…`), or
 * `assistant` without its `<|start|>` (as Muse Glimmer's leaked headers read).
 */
function nextHeader(p: PegArena): PegId {
  const bare = p.seq(p.literal("assistant"), p.and(to(p)));
  return p.lenient(p.choice(p.literal(START), bare, p.and(to(p))), p.literal(START));
}

/** ` to=`, a recipient; for the parser also without its space (the first header, right after the prompt). */
function to(p: PegArena): PegId {
  return p.lenient(p.seq(p.optional(p.literal(" ")), p.literal("to=")), p.literal(" to="));
}

function build(req: NormalizedRequest): DedicatedBuild {
  const p = new PegArena();
  const useTools = req.tools.length > 0 && req.toolChoice !== "none" && req.jsonSchema === null;
  // For the parser a message may end without its end marker, right at the next message's start, and
  // whitespace may follow its end marker.
  const messageEnd = p.lenient(p.seq(p.optional(p.literal(EOM)), p.space()), p.literal(EOM));
  const analysis = p.seq(
    p.seq(to(p), p.literal(`self${MESSAGE}`)),
    p.capture(NODE.reasoning, p.lenient(p.until(EOM, START), p.until(EOM))),
    messageEnd,
    nextHeader(p),
  );
  // For the parser the output may end with a reasoning message (`to=self<|message|>…<|eom|>`, no answer yet).
  const lastThought = p.seq(
    to(p),
    p.literal(`self${MESSAGE}`),
    p.capture(NODE.reasoning, p.until(EOM, EOT, START)),
    p.optional(p.choice(p.literal(EOM), p.literal(EOT))),
  );
  const earlier = p.zeroOrMore(analysis);
  const ending = p.seq(p.space(), p.optional(p.choice(p.literal(EOT), p.literal(EOM))), p.space(), p.end());
  let last: PegId;
  let grammarBody: PegId | undefined;
  if (req.jsonSchema !== null) {
    const answer = jsonAnswerValue(p, req.jsonSchema);
    last = p.seq(p.optional(p.seq(to(p), p.literal("user"))), p.literal(MESSAGE), p.space(), answer, ending);
  } else {
    const final = p.seq(
      p.optional(p.seq(to(p), p.literal("user"))),
      p.literal(MESSAGE),
      p.capture(NODE.content, p.until(EOT, EOM)),
    );
    // For the parser the answer may go on in further messages to the user (`Oslo.<|eom|><|start|>assistant
    // to=user<|message|>And it is cold.`, also after `<|eot|>` or with a bare `assistant` header), as Muse
    // Glimmer's leaked headers read: one answer.
    const later = p.zeroOrMore(p.seq(p.choice(p.literal(EOM), p.literal(EOT)), p.space(), nextHeader(p), final));
    if (useTools) {
      const ctx = dedicatedBuildContext(p, req);
      const parsed = req.tools.map((t, i) => parsedCall(p, ctx, t, i));
      if (req.toolChoice === "required")
        grammarBody = requiredGrammar(p, req, ctx, req.thinking ? earlier : p.eps(), ending);
      const call = p.choice(...parsed.map((c) => c.call));
      const block = p.seq(call, p.zeroOrMore(p.seq(p.space(), p.choice(...parsed.map((c) => c.more)))));
      const list = p.seq(
        call,
        req.parallel ? p.zeroOrMore(p.seq(p.literal(EOM), p.literal(START), call)) : p.eps(),
        ending,
      );
      // The grammar's section runs to the end of the turn (a lazy grammar covers only the
      // section); the parser reads one call message per section, and what follows it below.
      const section = p.rule("tool-calls", p.tag(NODE.toolSection, p.lenient(block, list)), {
        trigger: { pattern: CALL_TRIGGER },
      });
      // Every call message is read, with the reasoning and answer messages between and after them.
      const next = p.seq(messageEnd, nextHeader(p));
      const between = p.seq(next, p.zeroOrMore(p.choice(analysis, p.seq(final, next))));
      const callMessages = p.seq(sectionsBetween(p, section, between, req.readsParallel), p.optional(final), ending);
      // An answer message may come first (under tool_choice "required" too: the grammar has its own).
      const answerThenCalls = p.seq(final, next, callMessages);
      // For the parser an answer written without its header may hold call blocks (`Checking. <atem:function_calls>…`),
      // as tt-metal's and mlxcel's tests read them: each a call (one with parallel calls off), the text around them
      // content, a block that is no call content too. A block in a message to the user is an example: content.
      const piece = p.capture(NODE.content, p.seq(p.optional(p.literal(BLOCK)), p.until(EOT, EOM, BLOCK)));
      const blocks = req.readsParallel
        ? p.zeroOrMore(p.choice(section, piece))
        : p.seq(p.optional(piece), p.optional(section), p.zeroOrMore(piece));
      const headerless = p.seq(p.not(to(p)), p.optional(p.literal(MESSAGE)), blocks, later, ending);
      const answer = p.lenient(p.choice(p.seq(final, later, ending), headerless), p.seq(final, ending));
      last =
        req.toolChoice === "required"
          ? p.choice(callMessages, answerThenCalls)
          : p.choice(callMessages, answerThenCalls, answer);
    } else {
      const headerless = p.seq(p.not(to(p)), p.capture(NODE.content, p.until(EOT, EOM)));
      last = p.lenient(p.seq(p.choice(final, headerless), later, ending), p.seq(final, ending));
    }
  }
  const body = p.seq(earlier, p.lenient(p.choice(last, p.seq(lastThought, ending)), last));
  const root = p.seq(p.literal(START), body);
  const built = dedicatedParser("muse-glimmer", p, req, {
    root,
    body,
    ...(grammarBody !== undefined ? { grammarBody, grammarRoot: p.seq(p.literal(START), grammarBody) } : {}),
    useTools,
  });
  const preservedTokens = [
    "<|start|>",
    MESSAGE,
    EOM,
    EOT,
    "<atem:function_calls>",
    "<atem:invoke",
    "<atem:parameter",
    PARAM_END,
    "</atem:invoke>",
    "</atem:function_calls>",
  ];
  return { built, prefix: START, state: "closed", preservedTokens };
}

/** The Muse Glimmer handler. */
export const museGlimmer: DedicatedHandlerDef = {
  name: "muse-glimmer",
  handles: ["muse-glimmer"],
  detect: (s) => (sourceHas(s, "<atem:function_calls>", "<|eom|>") ? "muse-glimmer" : null),
  // A continued message: its reasoning to itself, then its answer to the user, each in a message of its own.
  reasoning: { start: " to=self<|message|>", end: "<|eom|><|start|>assistant" },
  contentStart: " to=user<|message|>",
  build,
};
