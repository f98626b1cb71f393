/**
 * How much free whitespace a chat grammar allows, per template. The parser takes any amount;
 * the grammar bounds it (CHAT_SPACE) so that a confused model cannot spend its tokens on
 * spaces. Some templates indent their markers with their own source indentation (8–20 spaces
 * rendered verbatim between calls, or before the section): a model trained on them writes the
 * same, so the bound widens to cover the longest run the template itself renders in an
 * assistant turn with tool calls.
 *
 * @example
 * pegToGbnf(arena, root, { space: templateSpace(template, CHAT_SPACE) });
 */
import type { ChatTemplate } from "../template/index.js";
import type { ChatMessage, ToolDefinition } from "../types.js";

/** What one free-whitespace slot of a grammar may hold (see pegToGbnf's `space` option). */
export interface SpaceBound {
  inline: number;
  lines: number;
  indent: number;
}

const PROBE_TOOL: ToolDefinition = {
  type: "function",
  function: {
    name: "probe_tool",
    description: "probe",
    parameters: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
  },
};
const PROBE_USER: ChatMessage = { role: "user", content: "probe" };
const call = (id: string, tool: ToolDefinition, args: unknown) => ({
  id,
  type: "function" as const,
  function: { name: tool.function.name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
});

/** The widest whitespace run of `text`, as a bound: leading blanks, line breaks, trailing indent. */
export function whitespaceRuns(text: string): SpaceBound {
  const out: SpaceBound = { inline: 0, lines: 0, indent: 0 };
  for (const [run] of text.matchAll(/[ \t\r\n]+/g)) {
    const lines = run.split("\n");
    out.inline = Math.max(out.inline, lines[0]!.replace(/\r/g, "").length);
    if (lines.length === 1) continue;
    out.lines = Math.max(out.lines, lines.length - 1);
    out.indent = Math.max(out.indent, lines[lines.length - 1]!.length);
  }
  return out;
}

/**
 * The assistant turn with calls of `tool` (two where the template renders parallel calls) as the
 * template renders it after the prompt, or "" when it cannot. `args`: the calls' arguments, as a value
 * or as the JSON string a client would send.
 */
export function renderedCallTurn(template: ChatTemplate, tool = PROBE_TOOL, args: unknown = { a: "x" }): string {
  const parallel = template.caps.supportsParallelToolCalls;
  const turn: ChatMessage = {
    role: "assistant",
    content: "",
    tool_calls: parallel
      ? [call("call00001", tool, args), call("call00002", tool, args)]
      : [call("call00001", tool, args)],
  };
  try {
    const prompt = template.render({ messages: [PROBE_USER], tools: [tool], addGenerationPrompt: true });
    const full = template.render({ messages: [PROBE_USER, turn], tools: [tool], addGenerationPrompt: false });
    let i = 0;
    while (i < prompt.length && i < full.length && prompt.charCodeAt(i) === full.charCodeAt(i)) i++;
    return full.slice(i).trimEnd();
  } catch {
    return "";
  }
}

const cache = new WeakMap<ChatTemplate, SpaceBound>();

/**
 * `base`, widened to the whitespace runs the template renders in a tool-call turn (templates
 * that render no tool calls keep `base`). Cached per template.
 */
export function templateSpace(template: ChatTemplate, base: SpaceBound): SpaceBound {
  let measured = cache.get(template);
  if (measured === undefined) {
    measured = template.caps.supportsToolCalls
      ? whitespaceRuns(renderedCallTurn(template))
      : { inline: 0, lines: 0, indent: 0 };
    cache.set(template, measured);
  }
  return {
    inline: Math.max(base.inline, measured.inline),
    lines: Math.max(base.lines, measured.lines),
    indent: Math.max(base.indent, measured.indent),
  };
}
