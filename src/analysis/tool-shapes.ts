/**
 * Empty tool analysis and small helpers shared by the tool phases (T1–T7).
 *
 * @example
 * const tools = emptyToolsAnalysis(); // mode "NONE", OpenAI field names
 */
import type { ToolsAnalysis } from "./types.js";

/** A tool analysis with nothing detected yet (OpenAI JSON field names as defaults). */
export function emptyToolsAnalysis(): ToolsAnalysis {
  return {
    format: {
      mode: "NONE",
      sectionStart: "",
      sectionEnd: "",
      perCallStart: "",
      perCallEnd: "",
      funNameIsKey: false,
      toolsArrayWrapped: false,
      usesPythonDicts: false,
      openaiWrapperTrigger: false,
      functionField: "function",
      nameField: "name",
      argsField: "arguments",
      idField: "",
      genIdField: "",
      parameterOrder: [],
      taughtListStart: "",
    },
    function: { namePrefix: "", nameSuffix: "", argsSeparator: "", close: "" },
    arguments: {
      start: "",
      end: "",
      namePrefix: "",
      nameSuffix: "",
      valuePrefix: "",
      valueSuffix: "",
      separator: "",
      tolerateIntertagWhitespace: false,
    },
    callId: { position: "NONE", prefix: "", suffix: "" },
  };
}

/** Number of non-overlapping occurrences of `needle` in `haystack`. */
export function countOccurrences(haystack: string, needle: string): number {
  if (needle === "") return 0;
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** Removes the first occurrence of `needle` from `text` (no-op when absent or empty). */
export function removeFirst(text: string, needle: string): string {
  if (needle === "") return text;
  const at = text.indexOf(needle);
  return at < 0 ? text : text.slice(0, at) + text.slice(at + needle.length);
}
