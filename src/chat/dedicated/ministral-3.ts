/**
 * Ministral 3 / Magistral / Devstral: optional reasoning in [THINK]…[/THINK], content, then
 * calls, each "[TOOL_CALLS]name[ARGS]{json}" (the parser also reads "[TOOL_CALLS]name{json}").
 * The template renders reasoning only as a "thinking" content block, which is what the message
 * adapter produces.
 */
import type { ChatMessage } from "../../types.js";
import { PegArena, type PegId } from "../../peg/index.js";
import { identifierEnd, toolParameters, jsonAnswerValue, maybeFenced, sectionsThenText } from "../build-helpers.js";
import type { NormalizedRequest } from "../request.js";
import { NODE } from "../tree-names.js";
import { type DedicatedBuild, type DedicatedHandlerDef, reasoningThenBody, sourceHas } from "./handler.js";

const THINK = "[THINK]";
const END_THINK = "[/THINK]";
const CALLS = "[TOOL_CALLS]";
const ARGS = "[ARGS]";

function build(req: NormalizedRequest): DedicatedBuild {
  const p = new PegArena();
  // For the parser whitespace may come before the block (`\n[THINK]…`).
  const lead = p.lenient(p.space(), p.eps());
  const reasoning = p.optional(
    p.tag(
      NODE.reasoningBlock,
      p.seq(lead, p.literal(THINK), p.capture(NODE.reasoning, p.until(END_THINK)), p.literal(END_THINK)),
    ),
  );
  const useTools = req.tools.length > 0 && req.toolChoice !== "none" && req.jsonSchema === null;
  let body: PegId;
  let grammarBody: PegId | undefined;
  if (req.jsonSchema !== null) {
    const answer = p.rule("response-format", jsonAnswerValue(p, req.jsonSchema));
    body = p.seq(p.space(), maybeFenced(p, answer), p.space(), p.end());
  } else if (useTools) {
    const gap = p.lenient(p.space(), p.eps());
    const calls = req.tools.map((t, i) =>
      p.rule(
        `tool-${i}`,
        p.tag(
          NODE.tool,
          p.seq(
            p.atomic(p.seq(p.capture(NODE.toolName, p.literal(t.function.name)), identifierEnd(p))),
            // The parser also reads the arguments right after the name, without [ARGS] (`name{…}`), and
            // whitespace around the name and before the arguments (`[TOOL_CALLS] name [ARGS]\n{…}`).
            gap,
            p.lenient(p.choice(p.literal(ARGS), p.and(p.literal("{"))), p.literal(ARGS)),
            gap,
            p.capture(NODE.toolArgs, p.schema(p.json(), toolParameters(t), { name: `tool-${i}-args` })),
          ),
        ),
      ),
    );
    const one = p.seq(p.literal(CALLS), gap, p.choice(...calls));
    // For the parser a later call may leave its [TOOL_CALLS] out where a declared name and [ARGS] follow the
    // call before it (`[TOOL_CALLS]a[ARGS]{…}b[ARGS]{…}`, as mlx-lm's tests read it): [ARGS] only follows a name.
    const named = p.choice(...req.tools.map((t) => p.seq(p.literal(t.function.name), gap, p.literal(ARGS))));
    const later = p.lenient(p.choice(one, p.seq(p.and(named), p.choice(...calls))), one);
    const section = p.rule(
      "tool-calls",
      p.tag(NODE.toolSection, p.seq(one, req.parallel ? p.zeroOrMore(p.seq(p.space(), later)) : p.eps())),
      { trigger: true },
    );
    // Every call section is read, with the text between and after them (content).
    const sections = sectionsThenText(p, section, [CALLS], req.readsParallel);
    body = p.seq(
      p.optional(p.capture(NODE.content, p.until(CALLS))),
      req.toolChoice === "required" ? sections : p.optional(sections),
      p.space(),
      p.end(),
    );
    if (req.toolChoice === "required") {
      // The grammar: the calls alone, their number bounded.
      const more = req.parallel ? p.repeat(p.seq(p.space(), one), 0, req.maxCalls - 1) : p.eps();
      grammarBody = p.seq(p.rule("g-tool-calls", p.tag(NODE.toolSection, p.seq(one, more))), p.space(), p.end());
    }
  } else {
    body = p.capture(NODE.content, p.rest());
  }
  const built = reasoningThenBody("ministral-3", p, req, {
    reasoning,
    body,
    ...(grammarBody !== undefined ? { grammarBody } : {}),
    reasoningEnd: END_THINK,
    reasoningStart: THINK,
    useTools,
  });
  return { built, prefix: "", state: "none", preservedTokens: [THINK, END_THINK, CALLS, ARGS] };
}

/** Reasoning is rendered from a thinking block, which the template writes as [THINK]…[/THINK]. */
function adaptMessages(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((m) => {
    if (m.role !== "assistant" || typeof m.reasoning_content !== "string" || m.reasoning_content === "") return m;
    const text =
      typeof m.content === "string"
        ? m.content
        : Array.isArray(m.content)
          ? m.content.map((c) => c.text).join("\n")
          : "";
    const { reasoning_content, ...rest } = m;
    return { ...rest, content: `${THINK}${reasoning_content}${END_THINK}${text}` };
  });
}

/** The Ministral 3 handler. */
export const ministral3: DedicatedHandlerDef = {
  name: "ministral-3",
  handles: ["ministral-3"],
  // Mistral Small 3.2 has [CALL_ID]; Ministral / Magistral 3 do not.
  detect: (s) =>
    sourceHas(s, "[SYSTEM_PROMPT]", "[TOOL_CALLS]", "[ARGS]") && !s.includes("[CALL_ID]") ? "ministral-3" : null,
  reasoning: { start: THINK, end: END_THINK },
  adaptMessages,
  build,
};
