/**
 * MiniMax M3: every structural tag is preceded by the namespace token "]<]minimax[>[":
 *   <mm:think>REASONING</mm:think>CONTENT]<]minimax[>[<tool_call>
 *   ]<]minimax[>[<invoke name="get_weather">]<]minimax[>[<city>Paris]<]minimax[>[</city>]<]minimax[>[</invoke>
 *   ]<]minimax[>[</tool_call>
 * A turn without reasoning starts with a lone </mm:think>. String arguments are raw text,
 * others JSON. (The template expands object and array values into nested elements, which
 * this parser reads only as JSON text; null members are dropped by the template.)
 */
import { PegArena, type PegId } from "../../peg/index.js";
import { argumentValue, mayBeString, schemaProperties, toolParameters, type BuildContext } from "../build-helpers.js";
import type { BuiltParser } from "../generic-parser.js";
import type { NormalizedRequest } from "../request.js";
import { NODE } from "../tree-names.js";
import type { DedicatedBuild, DedicatedHandlerDef } from "./handler.js";

const NS = "]<]minimax[>[";
const THINK_START = "<mm:think>";
const THINK_END = "</mm:think>";
const CALLS_START = `${NS}<tool_call>`;
const CALLS_END = `${NS}</tool_call>`;

function build(req: NormalizedRequest): DedicatedBuild {
  const p = new PegArena();
  const useTools = req.tools.length > 0 && req.toolChoice !== "none" && req.jsonSchema === null;
  const reasoning = p.optional(p.choice(p.seq(p.literal(THINK_START), p.space(), p.capture(NODE.reasoning, p.until(THINK_END)), p.literal(THINK_END)), p.literal(THINK_END)));
  let body: PegId;
  if (req.jsonSchema !== null) {
    const answer = p.capture(NODE.content, p.schema(p.json(), req.jsonSchema, { name: "response" }));
    body = p.seq(p.space(), p.choice(p.seq(p.literal("```json"), p.space(), answer, p.space(), p.literal("```")), answer), p.space(), p.end());
  } else if (useTools) {
    const ctx: BuildContext = { p, tools: req.tools, requireCalls: true, parallel: req.parallel, pythonValues: false, pythonTaggedValues: false, toolTrigger: true, cdataStrings: false };
    const calls = req.tools.map((t, i) => {
      const args = schemaProperties(toolParameters(t)).map(([key, schema]) => {
        const close = `${NS}</${key}>`;
        const value = mayBeString(schema) ? p.capture(NODE.argString, p.until(close)) : p.capture(NODE.argJson, argumentValue(ctx, schema, `tool-${i}-arg-${key.replace(/[^A-Za-z0-9_-]/g, "_")}`));
        const head = p.atomic(p.seq(p.literal(`${NS}<`), p.capture(NODE.argName, p.literal(key)), p.literal(">")));
        return p.tag(NODE.toolArg, p.seq(head, value, p.literal(close)));
      });
      const head = p.atomic(p.seq(p.literal(`${NS}<invoke name="`), p.capture(NODE.toolName, p.literal(t.function.name)), p.literal('">')));
      const argList = args.length === 0 ? p.eps() : p.zeroOrMore(p.seq(p.space(), p.choice(...args)));
      return p.rule(`tool-${i}`, p.tag(NODE.tool, p.seq(head, argList, p.space(), p.literal(`${NS}</invoke>`))));
    });
    const call = p.choice(...calls);
    const list = p.seq(call, req.parallel ? p.zeroOrMore(p.seq(p.space(), call)) : p.eps());
    const section = p.rule("tool-calls", p.tag(NODE.toolSection, p.seq(p.literal(CALLS_START), p.space(), list, p.space(), p.literal(CALLS_END))), { trigger: true });
    const content = p.capture(NODE.content, p.until(CALLS_START));
    body = p.seq(content, req.toolChoice === "required" ? section : p.optional(section), p.space(), p.end());
  } else {
    body = p.capture(NODE.content, p.rest());
  }
  const root = p.seq(reasoning, body);
  const built: BuiltParser = {
    arena: p,
    root,
    body,
    reasoningEnd: THINK_END,
    constrained: req.jsonSchema !== null || useTools,
    lazy: useTools && req.toolChoice === "auto",
    mapping: { idAfterName: false, ignoreModelIds: false },
    format: "minimax-m3",
  };
  return { built, prefix: "", state: "none", preservedTokens: [NS, "<tool_call>", "</tool_call>", THINK_START, THINK_END] };
}

/** The MiniMax M3 handler. */
export const minimaxM3: DedicatedHandlerDef = { name: "minimax-m3", build };
