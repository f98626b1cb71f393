/**
 * Functionary v3.2: every message starts with a recipient line after ">>>" (the prompt ends
 * with the first ">>>"):
 *   all\nTEXT>>>get_weather\n{"city": "Paris"}>>>other\n{...}
 * "all" addresses the user (content); any other recipient is a function call with JSON
 * arguments. The template writes content first only; models also write it between and after calls.
 */
import { PegArena, type PegId } from "../../peg/index.js";
import { toolParameters, jsonAnswerValue, sectionsBetween } from "../build-helpers.js";
import type { NormalizedRequest } from "../request.js";
import { NODE } from "../tree-names.js";
import { type DedicatedBuild, type DedicatedHandlerDef, dedicatedParser, sourceHas } from "./handler.js";

const PREFIX = ">>>";

function build(req: NormalizedRequest): DedicatedBuild {
  const p = new PegArena();
  const useTools = req.tools.length > 0 && req.toolChoice !== "none" && req.jsonSchema === null;
  const contentToEnd = p.seq(p.literal("all\n"), p.capture(NODE.content, p.rest()));
  let body: PegId;
  let grammarBody: PegId | undefined;
  if (req.jsonSchema !== null) {
    body = p.seq(p.literal("all\n"), p.space(), jsonAnswerValue(p, req.jsonSchema), p.space(), p.end());
  } else if (!useTools) {
    body = contentToEnd;
  } else {
    const calls = req.tools.map((t, i) =>
      p.rule(
        `tool-${i}`,
        p.tag(
          NODE.tool,
          p.seq(
            p.atomic(p.seq(p.capture(NODE.toolName, p.literal(t.function.name)), p.literal("\n"))),
            p.capture(NODE.toolArgs, p.schema(p.json(), toolParameters(t), { name: `tool-${i}-args` })),
          ),
        ),
      ),
    );
    const call = p.choice(...calls);
    const list = p.seq(call, req.parallel ? p.zeroOrMore(p.seq(p.space(), p.literal(PREFIX), call)) : p.eps());
    // After content, the next ">>>" always starts a call; right after the prompt, a recipient line that is not "all".
    const afterContent = p.rule("tool-calls-after-content", p.tag(NODE.toolSection, p.seq(p.literal(PREFIX), list)), {
      trigger: true,
    });
    const first = p.rule("tool-calls", p.tag(NODE.toolSection, list), {
      trigger: { pattern: "^((?!all\\n)[A-Za-z0-9_.\\-]+\\n)" },
    });
    // Every further call is read, with the messages to the user between and after them.
    const between = p.seq(p.literal(`${PREFIX}all\n`), p.capture(NODE.content, p.until(PREFIX)));
    const callsFrom = (firstSection: PegId): PegId =>
      sectionsBetween(p, afterContent, between, req.readsParallel, firstSection);
    const contentThenCalls = p.seq(
      p.literal("all\n"),
      p.capture(NODE.content, p.until(PREFIX)),
      callsFrom(afterContent),
    );
    const callsFirst = callsFrom(first);
    const options =
      req.toolChoice === "required" ? [contentThenCalls, callsFirst] : [contentThenCalls, contentToEnd, callsFirst];
    body = p.seq(p.choice(...options), p.space(), p.end());
    if (req.toolChoice === "required") {
      // The grammar: a call right away (no "all" content first), the number of calls bounded.
      const bounded = p.seq(
        call,
        req.parallel ? p.repeat(p.seq(p.space(), p.literal(PREFIX), call), 0, req.maxCalls - 1) : p.eps(),
      );
      grammarBody = p.seq(p.rule("g-tool-calls", p.tag(NODE.toolSection, bounded)), p.space(), p.end());
    }
  }
  const root = p.seq(p.literal(PREFIX), body);
  const built = dedicatedParser("functionary-v3.2", p, req, {
    root,
    body,
    ...(grammarBody !== undefined ? { grammarBody, grammarRoot: p.seq(p.literal(PREFIX), grammarBody) } : {}),
    useTools,
  });
  return { built, prefix: PREFIX, state: "closed", preservedTokens: [">>>all"] };
}

/** The Functionary v3.2 handler. */
export const functionaryV32: DedicatedHandlerDef = {
  name: "functionary-v3.2",
  handles: ["functionary-v3.2"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the template source's own Jinja-like text
  detect: (s) => (sourceHas(s, ">>>all", ">>>${recipient}") ? "functionary-v3.2" : null),
  contentStart: "all\n",
  build,
};
