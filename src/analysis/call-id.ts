/**
 * T7, call-id markers: renders the same call with id "call00001" and "call99999". Where the
 * function name sits relative to the differing id (shared prefix or shared suffix) gives the
 * id's position; the nearest markers around the id are its prefix and suffix.
 *
 * @example
 * extractCallIdMarkers(renderer, tools);
 * // Mistral Small 3.2: BETWEEN_FUNC_AND_ARGS, prefix "[CALL_ID]", suffix "[ARGS]"
 */
import { any, end, findAnywhere, lit, many, marker, not, seq, tag, tagText } from "./pattern.js";
import {
  CALL_ID_001,
  CALL_ID_999,
  FIRST_CALL,
  FIRST_CALL_OTHER_ID,
  FUN_FIRST,
  PROBE_TOOLS,
  USER_TURN,
  assistantWithCalls,
} from "./probes.js";
import type { VariantRenderer } from "./render.js";
import type { ToolsAnalysis } from "./types.js";

const LAST_MARKER_TO_END = seq(marker, many(seq(not(marker), any)), end);
const LAST_MARKER = seq(many(seq(not(LAST_MARKER_TO_END), any)), tag("m", marker));
const FIRST_MARKER = tag("m", marker);

function lastMarker(text: string): string {
  return tagText(findAnywhere(LAST_MARKER, text), "m");
}

function firstMarker(text: string): string {
  return tagText(findAnywhere(FIRST_MARKER, text), "m");
}

function sharedStart(a: string, b: string): string {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return a.slice(0, n);
}

/**
 * With the id before the name, T3 saw the probe id as part of the name prefix
 * ("call00001<|tool_call:name|>"); the id and its suffix marker belong to the call id.
 */
function dropIdFromNamePrefix(out: ToolsAnalysis): void {
  const fn = out.function;
  const at = fn.namePrefix.indexOf(CALL_ID_001);
  if (at < 0) return;
  let rest = fn.namePrefix.slice(at + CALL_ID_001.length);
  if (out.callId.suffix !== "" && rest.startsWith(out.callId.suffix)) rest = rest.slice(out.callId.suffix.length);
  fn.namePrefix = rest;
}

/** Runs T7. */
export function extractCallIdMarkers(renderer: VariantRenderer, out: ToolsAnalysis): void {
  const cmp = renderer.compare(
    { messages: [USER_TURN, assistantWithCalls([FIRST_CALL])], tools: PROBE_TOOLS },
    { messages: [USER_TURN, assistantWithCalls([FIRST_CALL_OTHER_ID])] },
  );
  if (!cmp) return;
  const { diff } = cmp;
  if (diff.left === "" && diff.right === "") return;
  const id = out.callId;
  const idStart = sharedStart(CALL_ID_001, CALL_ID_999); // "call"

  // Improvement over llama.cpp: the tool declarations earlier in the prompt also contain the
  // function name, so only the text after the last call opener counts as "before the id".
  const opener = out.format.perCallStart || out.format.sectionStart;
  const callStart = opener === "" ? -1 : diff.prefix.lastIndexOf(opener);
  const nameInCall = diff.prefix.lastIndexOf(FUN_FIRST);
  const nameInPrefix = callStart >= 0 && nameInCall < callStart ? -1 : nameInCall;
  const nameInSuffix = diff.suffix.indexOf(FUN_FIRST);

  if (nameInPrefix >= 0 && nameInSuffix < 0) {
    const argsInPrefix = diff.prefix.indexOf("{", nameInPrefix);
    const argsInSuffix = diff.suffix.indexOf("{");
    if (argsInSuffix >= 0 && argsInPrefix < 0) {
      // name … id … {args}
      id.position = "BETWEEN_FUNC_AND_ARGS";
      const afterName = diff.prefix.slice(nameInPrefix + FUN_FIRST.length);
      // The marker right before the id, with no other marker in between.
      const beforeId = seq(tag("prefix", marker), many(seq(not(marker), not(lit(idStart)), any)), lit(idStart));
      const found = findAnywhere(beforeId, afterName);
      id.prefix = found.ok ? tagText(found, "prefix") : lastMarker(afterName);
      const afterId = findAnywhere(seq(many(seq(not(marker), not(lit("{")), any)), tag("suffix", marker)), diff.suffix);
      if (afterId.ok) id.suffix = tagText(afterId, "suffix");
    } else if (argsInPrefix >= 0) {
      // name … {args} … id
      id.position = "POST_ARGS";
      const afterArgs = diff.prefix.slice(argsInPrefix);
      const brace = afterArgs.lastIndexOf("}");
      if (brace >= 0) id.prefix = lastMarker(afterArgs.slice(brace + 1));
      id.suffix = firstMarker(diff.suffix);
    }
  } else if (nameInSuffix >= 0 && nameInPrefix < 0) {
    // id … name
    id.position = "PRE_FUNC_NAME";
    id.prefix = lastMarker(diff.prefix);
    id.suffix = firstMarker(diff.suffix.slice(0, nameInSuffix));
  }

  if (id.position === "PRE_FUNC_NAME") dropIdFromNamePrefix(out);

  if (id.prefix === out.arguments.end) id.prefix = "";
  if (id.suffix === out.arguments.start) id.suffix = "";
  // A per-call closer that begins with the id suffix was really the id's suffix plus arguments.
  if (id.position !== "NONE" && id.suffix !== "" && out.format.perCallEnd.startsWith(id.suffix)) {
    out.format.perCallEnd = "";
  }
}
