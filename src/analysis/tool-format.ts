/**
 * T1, tool-call format: renders a plain assistant turn against one that calls FUN_FIRST,
 * takes the tool-call section from the diff and classifies it:
 *  - the function name inside a JSON string (after `{` or `:`) → JSON_NATIVE, whose field
 *    names, array wrapping and section markers are read from the parsed call object;
 *  - only the argument name in JSON → TAG_WITH_JSON;  neither → TAG_WITH_TAGGED,
 *    whose section / per-call markers are the markers around the function-name marker;
 *  - before all that, the name written as a Python call with keyword arguments
 *    (`NAME(ARG=...)`) → PYTHONIC (see pythonic.ts).
 *
 * @example
 * analyzeToolCalls(renderer, reasoning, tools, true); // Hermes 2 Pro: JSON_NATIVE, "<tool_call>"
 */
import { trimLeadingWhitespace, trimWhitespace } from "./bytes.js";
import { TemplateAnalysisError } from "./errors.js";
import {
  choice,
  end,
  findAnywhere,
  lit,
  marker,
  not,
  rest,
  seq,
  space,
  tag,
  tagText,
  until,
  type Pattern,
} from "./pattern.js";
import {
  ARG_FIRST,
  ASSISTANT_TURN,
  FIRST_CALL,
  FUN_FIRST,
  PROBE_TOOLS,
  SECOND_CALL,
  USER_TURN,
  assistantWithCalls,
} from "./probes.js";
import { analyzePythonic, rendersPythonicCall } from "./pythonic.js";
import { parsePythonLiteral } from "./python-literal.js";
import type { VariantRenderer } from "./render.js";
import { removeFirst } from "./tool-shapes.js";
import type { ReasoningAnalysis, ToolsAnalysis } from "./types.js";
import { isPlainObject } from "../validate/index.js";

/** `{"needle"` or `: "needle"`: the needle is a JSON string in object context. */
function inJsonContext(haystack: string, needle: string, quote: string): boolean {
  const p = seq(choice(lit("{"), lit(":")), space, lit(quote + needle + quote));
  return findAnywhere(p, haystack).ok;
}

/** `std::string::substr` with a signed count: a negative count means "to the end". */
function substrSigned(text: string, pos: number, count: number): string {
  if (pos < 0 || pos > text.length) throw new TemplateAnalysisError(`tool call section has no JSON object at ${pos}`);
  return count < 0 ? text.slice(pos) : text.slice(pos, pos + count);
}

function parseCallObject(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Improvement over llama.cpp (whose analysis fails here): templates that print the
    // arguments without `tojson` render them as a Python dict.
    parsed = parsePythonLiteral(text);
  }
  if (isPlainObject(parsed)) return parsed;
  throw new TemplateAnalysisError(`rendered tool call is not a JSON object: ${JSON.stringify(text.slice(0, 200))}`);
}

/** JSON_NATIVE: field names, array wrapping and section markers from the parsed call. */
function analyzeJsonNative(clean: string, out: ToolsAnalysis): void {
  const format = out.format;
  let jsonStart = clean.indexOf("{");
  let jsonEnd = clean.lastIndexOf("}");
  const cut = substrSigned(clean, jsonStart, jsonEnd - jsonStart + 1);
  const call = parseCallObject(cut);

  const register = (prefix: string, key: string, value: unknown): void => {
    const path = prefix !== "" ? `${prefix}.${key}` : key;
    if (typeof value === "string" && value.includes("call0000")) format.idField = path;
    else if (typeof value === "string" && value === FUN_FIRST) format.nameField = path;
    else if (JSON.stringify(value).includes(ARG_FIRST)) format.argsField = path;
    else if (key.includes("id")) format.genIdField = path; // a generated id, e.g. "tool_call_id"
  };
  for (const [key, value] of Object.entries(call)) {
    if (key === FUN_FIRST) {
      // {"FFF_FIRST_FUN_F": {...args}}: the name is the key, arguments are its value.
      format.funNameIsKey = true;
      format.nameField = "";
      format.argsField = "";
      continue;
    }
    if (isPlainObject(value) && !JSON.stringify(value).includes(ARG_FIRST)) {
      format.functionField = key;
      for (const [subKey, subValue] of Object.entries(value)) register(key, subKey, subValue);
    }
    register("", key, value);
  }

  const inArray = findAnywhere(
    seq(tag("pre", seq(lit("["), space)), lit(cut), tag("post", seq(space, lit("]")))),
    clean,
  );
  if (inArray.ok) {
    format.toolsArrayWrapped = true;
    jsonStart -= tagText(inArray, "pre").length;
    jsonEnd += tagText(inArray, "post").length;
  }
  jsonEnd++;

  const located: [number, string][] = [];
  for (const field of [format.nameField, format.argsField, format.idField, format.genIdField]) {
    if (field === "") continue;
    const at = clean.indexOf(field);
    located.push([at < 0 ? Number.POSITIVE_INFINITY : at, field]);
  }
  located.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  format.parameterOrder = located.map(([, field]) => field);

  format.sectionStart = trimLeadingWhitespace(clean.slice(0, jsonStart));
  format.sectionEnd = trimWhitespace(clean.slice(jsonEnd));
  // With array wrapping the closing bracket belongs to the array, not to a section marker.
  if (format.toolsArrayWrapped && format.sectionEnd === "]") format.sectionEnd = "";
}

/** JSON_NATIVE / PYTHONIC with parallel calls: a section marker repeated per call is a per-call marker. */
function checkRepeatedSectionMarker(renderer: VariantRenderer, out: ToolsAnalysis): void {
  const cmp = renderer.compare(
    { messages: [USER_TURN, assistantWithCalls([FIRST_CALL])], tools: PROBE_TOOLS },
    { messages: [USER_TURN, assistantWithCalls([FIRST_CALL, SECOND_CALL])] },
  );
  if (!cmp) return;
  const format = out.format;
  if (format.sectionStart !== "" && cmp.diff.right.includes(format.sectionStart)) {
    format.perCallStart = format.sectionStart;
    format.perCallEnd = format.sectionEnd;
    format.sectionStart = "";
    format.sectionEnd = "";
  }
}

/** The marker that carries the function name, e.g. `<function=NAME>` or `[NAME]`. */
function functionNameMarker(name: string): Pattern {
  const angled = seq(
    tag("fun_pre", seq(lit("<"), until(">", name))),
    lit(name),
    tag("fun_post", seq(not(seq(space, lit("<"))), until(">"), lit(">"))),
    space,
  );
  const squared = seq(
    tag("fun_pre", seq(lit("["), until("]", name))),
    lit(name),
    tag("fun_post", seq(not(seq(space, lit("["), until("]"), lit("]"))), space)),
  );
  return tag("fun_marker", choice(angled, squared));
}

/** Tag formats: up to two opening markers before the name marker, up to two closing at the end. */
function analyzeNonJson(clean: string, out: ToolsAnalysis): void {
  const nameMarker = findAnywhere(functionNameMarker(FUN_FIRST), clean);
  const funMarker = nameMarker.ok ? tagText(nameMarker, "fun_marker") : FUN_FIRST;

  const sectionAndCall = seq(
    tag("sec_start", seq(marker, space)),
    tag("call_start", seq(marker, space)),
    tag("fun_pre", until(funMarker)),
    lit(funMarker),
    tag("rest", rest),
  );
  let opening = findAnywhere(sectionAndCall, clean);
  let closing;
  if (opening.ok) {
    const twoClosers = seq(tag("call_end", seq(marker, space)), tag("sec_end", seq(marker, space)), end);
    closing = findAnywhere(twoClosers, tagText(opening, "rest"));
    out.function.namePrefix = tagText(nameMarker, "fun_pre") + out.function.namePrefix;
  } else {
    opening = findAnywhere(seq(tag("sec_start", seq(marker, space)), lit(funMarker), tag("rest", rest)), clean);
    closing = findAnywhere(seq(tag("sec_end", seq(marker, space)), end), tagText(opening, "rest"));
  }
  out.format.perCallStart = tagText(opening, "call_start");
  out.format.perCallEnd = tagText(closing, "call_end");
  out.format.sectionStart = tagText(opening, "sec_start");
  out.format.sectionEnd = tagText(closing, "sec_end");
}

/** Classifies the tool-call section and fills the format markers. */
function classifyToolSection(
  renderer: VariantRenderer,
  haystack: string,
  reasoning: ReasoningAnalysis,
  supportsParallelToolCalls: boolean,
  out: ToolsAnalysis,
): void {
  const format = out.format;
  // Reasoning markers rendered on the tool turn are not part of the tool syntax.
  const clean = removeFirst(removeFirst(haystack, reasoning.start), reasoning.end);
  if (rendersPythonicCall(clean)) {
    analyzePythonic(clean, out);
    if (supportsParallelToolCalls) checkRepeatedSectionMarker(renderer, out);
    return;
  }
  if (inJsonContext(haystack, FUN_FIRST, '"')) format.mode = "JSON_NATIVE";
  else if (inJsonContext(haystack, ARG_FIRST, '"')) format.mode = "TAG_WITH_JSON";
  else format.mode = "TAG_WITH_TAGGED";
  format.usesPythonDicts = inJsonContext(haystack, ARG_FIRST, "'") || inJsonContext(haystack, FUN_FIRST, "'");

  if (format.mode === "JSON_NATIVE") {
    analyzeJsonNative(clean, out);
    if (supportsParallelToolCalls) checkRepeatedSectionMarker(renderer, out);
  } else {
    analyzeNonJson(clean, out);
  }
  // Whitespace around closing markers carries no meaning.
  format.sectionEnd = trimWhitespace(format.sectionEnd);
  format.perCallEnd = trimWhitespace(format.perCallEnd);
}

/** Runs T1: leaves `out.format.mode` at "NONE" when no tool-call section renders. */
export function analyzeToolCalls(
  renderer: VariantRenderer,
  reasoning: ReasoningAnalysis,
  supportsParallelToolCalls: boolean,
  out: ToolsAnalysis,
): void {
  const cmp = renderer.compare(
    { messages: [USER_TURN, ASSISTANT_TURN], tools: PROBE_TOOLS },
    { messages: [USER_TURN, assistantWithCalls([FIRST_CALL])] },
  );
  if (!cmp || cmp.diff.right === "") return;
  classifyToolSection(renderer, cmp.diff.right, reasoning, supportsParallelToolCalls, out);
}
