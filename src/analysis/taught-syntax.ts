/**
 * A call syntax the prompt teaches that the history does not render. Phi-4-mini's system
 * prompt tells the model to write `functools[{"name": [function name], "arguments": …}, ...]`
 * while its history renders the bare `{"name": …, "arguments": …}` objects: the model writes
 * the taught form, replayed history shows the other, and both must parse. Found in the prompt
 * rendered with tools, as an opener written right against `[{"name"` in an instruction example
 * (its name is a placeholder, not one of the tools: a tool list is no example of a call).
 *
 * @example
 * taughtListStart(renderer, format); // "functools"
 */
import { ARG_FIRST, FIRST_CALL, FUN_FIRST, FUN_SECOND, PROBE_TOOLS, USER_TURN, assistantWithCalls } from "./probes.js";
import type { VariantRenderer } from "./render.js";
import type { ToolFormatAnalysis } from "./types.js";

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** How far after the opener the example's arguments key may come (on the same line). */
const EXAMPLE_SPAN = 200;

/**
 * The opener the prompt teaches for a list of JSON calls, or "" when it teaches none the
 * history does not render too. Only for markerless JSON formats (the others have markers the
 * history shows).
 */
export function taughtListStart(renderer: VariantRenderer, format: ToolFormatAnalysis): string {
  if (format.mode !== "JSON_NATIVE" || format.sectionStart !== "" || format.perCallStart !== "" || format.funNameIsKey)
    return "";
  const prompt = renderer.render({ messages: [USER_TURN], tools: PROBE_TOOLS, addGenerationPrompt: true });
  const history = renderer.render({ messages: [USER_TURN, assistantWithCalls([FIRST_CALL])], tools: PROBE_TOOLS });
  if (prompt === null || history === null) return "";
  const name = escapeRegex(format.nameField || "name");
  const args = `"${format.argsField || "arguments"}"`;
  for (const m of prompt.matchAll(
    new RegExp(`([A-Za-z_][A-Za-z0-9_]*|<[^<>\\s]+>|\\[[^[\\]\\s]+\\])\\[\\s*\\{\\s*"${name}"`, "g"),
  )) {
    // The example: the rest of its line (what follows it may be the tool list).
    const line = prompt.slice(m.index, m.index + m[0].length + EXAMPLE_SPAN);
    const example = line.includes("\n") ? line.slice(0, line.indexOf("\n")) : line;
    if (!example.includes(args)) continue;
    // A rendered tool list names the tools; an instruction example a placeholder.
    if ([FUN_FIRST, FUN_SECOND, ARG_FIRST].some((needle) => example.includes(needle))) continue;
    const opener = m[1]!;
    // What the history's assistant turn renders (the system prompt repeats the instructions).
    if (!history.slice(commonPrefix(prompt, history)).includes(`${opener}[`)) return opener;
  }
  return "";
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
