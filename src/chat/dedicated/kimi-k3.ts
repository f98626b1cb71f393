/**
 * Kimi K3: the message is a series of named blocks, each `<|open|>NAME ATTRS<|sep|>…<|close|>NAME<|sep|>`:
 *   <|open|>think<|sep|>REASONING<|close|>think<|sep|>
 *   <|open|>response<|sep|>CONTENT<|close|>response<|sep|>
 *   <|open|>tools<|sep|>
 *     <|open|>call tool="NAME" index="1"<|sep|>
 *       <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
 *     <|close|>call<|sep|>
 *   <|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>
 * String arguments are raw text, others JSON; attribute values (tool and argument names) are escaped (`&amp;`,
 * `&quot;`). The prompt opens the think block.
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
import type { ReasoningPrefixState } from "../prompt.js";
import type { NormalizedRequest } from "../request.js";
import { rawOrTyped } from "../raw-union.js";
import { NODE } from "../tree-names.js";
import type { ToolDefinition } from "../../types.js";
import { taggedArgsRule } from "./grammar-args.js";
import { argumentList, lenientValue, textValue, undeclaredElement } from "./lenient-args.js";
import {
  type DedicatedBuild,
  type DedicatedContext,
  type DedicatedHandlerDef,
  dedicatedBuildContext,
  reasoningThenBody,
  sourceHas,
} from "./handler.js";
import { argRuleName } from "../rule-names.js";
import { ATTRIBUTE_ESCAPES, escapeName } from "../name-escapes.js";

const SEP = "<|sep|>";
const open = (name: string): string => `<|open|>${name}${SEP}`;
const close = (name: string): string => `<|close|>${name}${SEP}`;
const MSG_START = open('message role="assistant"');
const THINK_START = open("think");
const THINK_END = close("think");
const RESP_START = open("response");
const RESP_END = close("response");
const TOOLS_START = open("tools");
const TOOLS_END = close("tools");
const MSG_END = close("message");
const EOM = "<|end_of_msg|>";

/** Where the generation prompt leaves the think block. */
function thinkPrefix(generationPrompt: string): { prefix: string; state: ReasoningPrefixState } {
  const at = generationPrompt.lastIndexOf(THINK_START);
  if (at < 0) return { prefix: "", state: "none" };
  const prefix = generationPrompt.slice(at);
  return { prefix, state: prefix.includes(THINK_END) ? "closed" : "open" };
}

/** The grammar of one tool's arguments (a rule, built once): in schema order, typed, bounded. */
function typedArgs(p: PegArena, parse: BuildContext, t: ToolDefinition, i: number): PegId {
  return taggedArgsRule(p, parse, t, i, close("argument"), (key, value) => {
    // The template adds the value's type as an attribute.
    const type = p.optional(
      p.seq(
        p.literal(' type="'),
        p.choice(...["string", "number", "integer", "boolean", "object", "array", "null"].map((n) => p.literal(n))),
        p.literal('"'),
      ),
    );
    return p.seq(
      p.literal('<|open|>argument key="'),
      p.capture(NODE.argName, p.literal(escapeName(key, ATTRIBUTE_ESCAPES))),
      p.literal('"'),
      type,
      p.literal(SEP),
      value,
      p.literal(close("argument")),
    );
  });
}

/** The grammar of tool_choice "required": the tools section alone, arguments in schema order, bounded. */
function requiredGrammar(
  p: PegArena,
  req: NormalizedRequest,
  parse: BuildContext,
  trailer: PegId,
  responseOpen: boolean,
): PegId {
  const calls = req.tools.map((t, i) => {
    // ...and the call's index.
    const index = p.optional(p.seq(p.literal(' index="'), p.chars("0-9", 1, 3), p.literal('"')));
    const head = p.seq(
      p.literal('<|open|>call tool="'),
      p.capture(NODE.toolName, p.literal(escapeName(t.function.name, ATTRIBUTE_ESCAPES))),
      p.literal('"'),
      index,
      p.literal(SEP),
    );
    return p.rule(
      `g-tool-${i}`,
      p.tag(NODE.tool, p.seq(head, p.space(), typedArgs(p, parse, t, i), p.space(), p.literal(close("call")))),
    );
  });
  const call = p.choice(...calls);
  const list = p.seq(call, req.parallel ? p.repeat(p.seq(p.space(), call), 0, req.maxCalls - 1) : p.eps());
  // The template writes an empty response before the tools (a prompt that does not think opens it already).
  const emptyResponse = p.optional(
    responseOpen ? p.literal(RESP_END) : p.seq(p.literal(RESP_START), p.literal(RESP_END)),
  );
  return p.seq(
    p.space(),
    emptyResponse,
    p.space(),
    p.rule(
      "g-tool-calls",
      p.tag(NODE.toolSection, p.seq(p.literal(TOOLS_START), p.space(), list, p.space(), p.literal(TOOLS_END), trailer)),
    ),
  );
}

/**
 * For the parser: an argument the tool does not declare, typed by the type the model wrote in its
 * opener (see typedByOpener).
 */
function undeclaredArgument(p: PegArena): PegId {
  // The template escapes only `&` and `"` in a key: `<`, `>` and newlines are the name's own.
  return undeclaredElement(p, '<|open|>argument key="', '"', close("argument"), typedByOpener(p), '^"');
}

/** After an argument's key: its value as the opener's type says (`type="string"`: text; else JSON, else text). */
function typedByOpener(p: PegArena): PegId {
  const end = close("argument");
  const stringTyped = p.seq(p.literal(' type="string"'), p.until(SEP), p.literal(SEP), textValue(p, end));
  const other = p.seq(p.until(SEP), p.literal(SEP), lenientValue(p, end));
  return p.choice(stringTyped, other);
}

/**
 * For the parser: the arguments as one JSON object in a json block, as the template writes arguments
 * given as a string (`<|open|>json type="object"<|sep|>{"city": "Tokyo"}<|close|>json<|sep|>`).
 */
function jsonBlockArguments(p: PegArena): PegId {
  const open = p.seq(p.space(), p.literal("<|open|>json"), p.until(SEP), p.literal(SEP), p.space());
  return p.seq(open, p.capture(NODE.toolArgs, p.json()), p.space(), p.literal(close("json")));
}

/**
 * For the parser: a call of no declared tool (another name, or none: `<|open|>call index="1"<|sep|>`). Its text is
 * content, and the calls around it are still read.
 */
function unreadCall(p: PegArena): PegId {
  const head = p.seq(p.literal("<|open|>call"), p.capture(NODE.toolName, p.until(SEP)), p.literal(SEP));
  return p.tag(NODE.tool, p.seq(head, p.until(close("call")), p.literal(close("call"))));
}

function build(req: NormalizedRequest, { generationPrompt }: DedicatedContext): DedicatedBuild {
  const p = new PegArena();
  const { prefix, state } = thinkPrefix(generationPrompt);
  const useTools = req.tools.length > 0 && req.toolChoice !== "none" && req.jsonSchema === null;
  const reasoning = p.optional(
    p.tag(
      NODE.reasoningBlock,
      p.seq(
        p.literal(THINK_START),
        p.capture(NODE.reasoning, p.until(THINK_END, RESP_START)),
        p.optional(p.literal(THINK_END)),
      ),
    ),
  );
  const trailer = p.seq(
    p.space(),
    p.optional(p.literal(MSG_END)),
    p.space(),
    p.optional(p.literal(EOM)),
    p.space(),
    p.end(),
  );
  let body: PegId;
  let grammarBody: PegId | undefined;
  if (req.jsonSchema !== null) {
    const answer = jsonAnswerValue(p, req.jsonSchema);
    body = p.seq(
      p.optional(p.literal(RESP_START)),
      p.space(),
      answer,
      p.space(),
      p.optional(p.literal(RESP_END)),
      trailer,
    );
  } else {
    const response = p.seq(
      p.optional(p.literal(RESP_START)),
      p.capture(NODE.content, p.until(RESP_END, TOOLS_START, MSG_END)),
      p.optional(p.literal(RESP_END)),
    );
    if (useTools) {
      const ctx = dedicatedBuildContext(p, req);
      const calls = req.tools.map((t, i) => {
        const args = schemaProperties(toolParameters(t)).map(([key, schema]) => {
          const name = argRuleName(i, key);
          const typed = rawOrTyped(p, schema, {
            text: () => textValue(p, close("argument")),
            typed: (s) => p.capture(NODE.argJson, argumentValue(ctx, s, name)),
            stops: [close("argument")],
            forGrammar: false,
          });
          // A value that is not what the schema types (`{not json` for an object) is kept as text; a lookahead
          // decides first, so a stream never shows the typed reading it then takes back.
          const end = close("argument");
          const value = p.choice(p.seq(p.and(p.seq(typed, p.space(), p.literal(end))), typed), textValue(p, end));
          const named = p.seq(
            p.literal('<|open|>argument key="'),
            p.capture(NODE.argName, p.literal(escapeName(key, ATTRIBUTE_ESCAPES))),
            p.literal('"'),
          );
          // A parameter its schema does not type is read by the type its opener names, as for an undeclared one.
          if (isUntyped(schema)) {
            return p.tag(NODE.toolArg, p.seq(p.atomic(named), typedByOpener(p), p.literal(close("argument"))));
          }
          const head = p.atomic(p.seq(named, p.until(SEP), p.literal(SEP)));
          return p.tag(NODE.toolArg, p.seq(head, value, p.literal(close("argument"))));
        });
        const head = p.atomic(
          p.seq(
            p.literal('<|open|>call tool="'),
            p.capture(NODE.toolName, p.literal(escapeName(t.function.name, ATTRIBUTE_ESCAPES))),
            p.literal('"'),
            p.until(SEP),
            p.literal(SEP),
          ),
        );
        const anyOrder = p.zeroOrMore(p.seq(p.space(), p.choice(...args, undeclaredArgument(p))));
        // The grammar (also the lazy one of tool_choice auto) writes them typed, in schema order.
        const argList = argumentList(p, anyOrder, t, i, () => typedArgs(p, ctx, t, i));
        const written = p.lenient(p.choice(jsonBlockArguments(p), argList), argList);
        return p.rule(`tool-${i}`, p.tag(NODE.tool, p.seq(head, written, p.space(), p.literal(close("call")))));
      });
      if (req.toolChoice === "required")
        grammarBody = requiredGrammar(p, req, ctx, trailer, generationPrompt.trimEnd().endsWith(RESP_START));
      const declared = p.choice(...calls);
      const call = p.lenient(p.choice(declared, unreadCall(p)), declared);
      const list = p.seq(call, req.parallel ? p.zeroOrMore(p.seq(p.space(), call)) : p.eps());
      // The grammar's section takes the end of the message with it (a lazy grammar covers only
      // the section); the parser reads it after the last section.
      const section = p.rule(
        "tool-calls",
        p.tag(
          NODE.toolSection,
          p.seq(p.literal(TOOLS_START), p.space(), list, p.space(), p.literal(TOOLS_END), p.lenient(p.eps(), trailer)),
        ),
        {
          trigger: state !== "open" || req.toolChoice === "auto",
        },
      );
      // Every tools block is read, with the response text between and after them.
      const between = p.seq(response, p.space());
      const sections = p.seq(sectionsBetween(p, section, between, req.readsParallel), trailer);
      body = p.seq(response, p.space(), req.toolChoice === "required" ? sections : p.choice(sections, trailer));
    } else {
      body = p.seq(response, trailer);
    }
  }
  const built = reasoningThenBody("kimi-k3", p, req, {
    lead: p.optional(p.literal(MSG_START)),
    reasoning,
    body,
    ...(grammarBody !== undefined ? { grammarBody } : {}),
    reasoningEnd: THINK_END,
    reasoningStart: THINK_START,
    useTools,
    // Tool and argument names are attribute values, which the template escapes.
    mapping: { nameEscapes: ATTRIBUTE_ESCAPES },
  });
  return { built, prefix, state, preservedTokens: ["<|open|>", "<|close|>", SEP, EOM] };
}

/** The Kimi K3 handler. */
export const kimiK3: DedicatedHandlerDef = {
  name: "kimi-k3",
  handles: ["kimi-k3"],
  detect: (s) => (sourceHas(s, "<|open|>", "<|close|>", "<|end_of_msg|>") ? "kimi-k3" : null),
  // The analysis diffs only `<|sep|>` … `<|close|>` out of the think block's tags.
  reasoning: { start: THINK_START, end: THINK_END },
  contentStart: RESP_START,
  build,
};
