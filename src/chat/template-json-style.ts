/**
 * How a chat template spells the JSON of its tool calls, so that the grammar lets a model write
 * that spelling only. A model writes its calls as the template rendered them in training, and
 * most templates render arguments with `tojson` (Python's `json.dumps`: `{"a": 1, "b": [1, 2]}`).
 * Where the template's own call turn spells every separator one way, the grammar writes exactly
 * that: each key, colon, comma and the spaces between them become forced text, which fast-forward
 * decodes without sampling, and a confused model cannot spend its tokens on whitespace. Where the
 * template shows no JSON or mixes spellings, the grammar keeps its free whitespace. The parser
 * reads any whitespace either way.
 *
 * @example
 * pegToGbnf(arena, root, { space, whitespace: templateJsonStyle(template) });
 */
import type { WhitespacePolicy } from "../grammar/index.js";
import type { ChatTemplate } from "../template/index.js";
import type { ToolDefinition } from "../types.js";
import { renderedCallTurn } from "./template-space.js";

const PROBE_ARGS = { text: "x", list: [1, 2], nested: { flag: true } };
const PROBE_TOOL: ToolDefinition = {
  type: "function",
  function: {
    name: "probe_tool",
    description: "probe",
    parameters: {
      type: "object",
      properties: {
        text: { type: "string" },
        list: { type: "array", items: { type: "integer" } },
        nested: { type: "object", properties: { flag: { type: "boolean" } } },
      },
      required: ["text", "list", "nested"],
    },
  },
};

const SPACED_ARGS = '{"text": "x", "list": [1, 2], "nested": {"flag": true}}';
const COMPACT_ARGS = JSON.stringify(PROBE_ARGS);

/** The learned styles and how each spells the probe's arguments and one separator gap. */
const STYLES = [
  { style: "spaced", args: SPACED_ARGS, gap: " " },
  { style: "none", args: COMPACT_ARGS, gap: "" },
] as const;

const BLANK = "[ \\t\\r\\n]*";
// A colon or comma between JSON tokens: after a string or a closed bracket, before a value.
const COLON = new RegExp(`"(${BLANK}):(${BLANK})(?=["{\\[\\-0-9tfn])`, "g");
const COMMA = new RegExp(`(?<=["\\]}])(${BLANK}),(${BLANK})(?=["{\\[])`, "g");
// Whitespace right inside a bracket next to a value.
const INSIDE = /[{[][ \t\r\n]+(?=["{[\-0-9tfn])|(?<=["\]}0-9el])[ \t\r\n]+[}\]]/;

/**
 * The JSON style of a rendered call turn: "spaced" or "none" where the probe's arguments appear in
 * that spelling and every JSON separator of the turn (the call's envelope too) agrees with it,
 * else "flexible".
 */
export function jsonStyleOf(turn: string): WhitespacePolicy {
  if (INSIDE.test(turn)) return "flexible";
  for (const { style, args, gap } of STYLES) {
    if (!turn.includes(args)) continue;
    const gaps = [...turn.matchAll(COLON), ...turn.matchAll(COMMA)];
    return gaps.every((m) => m[1] === "" && m[2] === gap) ? style : "flexible";
  }
  return "flexible";
}

/**
 * The style of the template's call turn. A template that writes the arguments string a request gives it (the
 * same arguments sent in two spellings render differently) teaches no spelling of its own: the history's
 * spelling is the client's.
 */
function renderedStyle(template: ChatTemplate): WhitespacePolicy {
  const compact = renderedCallTurn(template, PROBE_TOOL, COMPACT_ARGS);
  const spaced = renderedCallTurn(template, PROBE_TOOL, SPACED_ARGS);
  return compact === spaced ? jsonStyleOf(compact) : "flexible";
}

const cache = new WeakMap<ChatTemplate, WhitespacePolicy>();

/** The JSON style the template renders its tool calls in (see the module comment). Cached per template. */
export function templateJsonStyle(template: ChatTemplate): WhitespacePolicy {
  let style = cache.get(template);
  if (style === undefined) {
    style = template.caps.supportsToolCalls ? renderedStyle(template) : "flexible";
    cache.set(template, style);
  }
  return style;
}
