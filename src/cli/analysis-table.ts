/**
 * Human-readable rendering of a {@link TemplateAnalysis} for the CLI: detected modes, then
 * every non-empty marker, one per line, quoted as JSON so whitespace is visible.
 *
 * @example
 * console.log(formatAnalysisTable(analyzeChatTemplate(source)));
 */
import type { TemplateAnalysis } from "../analysis/types.js";

type Row = [label: string, value: string];

const q = (s: string): string => JSON.stringify(s);

function markerRows(rows: Row[], entries: [string, string][]): void {
  for (const [label, value] of entries) if (value !== "") rows.push([label, q(value)]);
}

function capsLine(a: TemplateAnalysis): string {
  const c = a.caps;
  const flags: [string, boolean][] = [
    ["tools", c.supportsTools],
    ["tool calls", c.supportsToolCalls],
    ["parallel calls", c.supportsParallelToolCalls],
    ["system role", c.supportsSystemRole],
    ["typed content", c.supportsTypedContent],
    ["object arguments", c.supportsObjectArguments],
    ["reasoning effort", c.supportsReasoningEffort],
  ];
  return flags.map(([name, on]) => `${on ? "+" : "-"}${name}`).join("  ");
}

/** Formats the analysis as an aligned two-column table (no trailing newline). */
export function formatAnalysisTable(a: TemplateAnalysis): string {
  const { format, function: fn, arguments: args, callId } = a.tools;
  const rows: Row[] = [];
  rows.push(["capabilities", capsLine(a)]);
  rows.push(["dedicated handler", a.dedicatedHandler ?? "none (generic analysis applies)"]);
  markerRows(rows, [
    ["user turn starts", a.userStart],
    ["assistant turn starts", a.assistantStart],
  ]);

  rows.push(["reasoning", a.reasoning.mode]);
  markerRows(rows, [
    ["  start", a.reasoning.start],
    ["  end", a.reasoning.end],
  ]);

  rows.push(["content", a.content.mode]);
  markerRows(rows, [
    ["  start", a.content.start],
    ["  end", a.content.end],
  ]);

  rows.push(["tool calls", format.mode]);
  if (format.mode !== "NONE") {
    markerRows(rows, [
      ["  section start", format.sectionStart],
      ["  section end", format.sectionEnd],
      ["  per-call start", format.perCallStart],
      ["  per-call end", format.perCallEnd],
    ]);
    if (format.mode === "JSON_NATIVE") {
      const shape = format.funNameIsKey
        ? "function name is the key"
        : `name "${format.nameField}", arguments "${format.argsField}"`;
      rows.push(["  json fields", shape]);
      if (format.idField) rows.push(["  id field", format.idField]);
      if (format.genIdField) rows.push(["  generated id field", format.genIdField]);
      if (format.toolsArrayWrapped) rows.push(["  array wrapped", "yes"]);
    }
    if (format.mode === "PYTHONIC" && format.toolsArrayWrapped) rows.push(["  calls in a list", "yes"]);
    if (format.usesPythonDicts) rows.push(["  python dicts", "yes"]);
    markerRows(rows, [
      ["  name prefix", fn.namePrefix],
      ["  name suffix", fn.nameSuffix],
      ["  args separator", fn.argsSeparator],
      ["  call close", fn.close],
      ["  args start", args.start],
      ["  args end", args.end],
      ["  arg name prefix", args.namePrefix],
      ["  arg name suffix", args.nameSuffix],
      ["  arg value prefix", args.valuePrefix],
      ["  arg value suffix", args.valueSuffix],
      ["  arg separator", args.separator],
    ]);
    if (callId.position !== "NONE") {
      rows.push(["  call id", callId.position]);
      markerRows(rows, [
        ["    prefix", callId.prefix],
        ["    suffix", callId.suffix],
      ]);
    }
  }
  rows.push(["preserved tokens", a.preservedTokens.length ? a.preservedTokens.map(q).join(" ") : "none"]);
  if (a.additionalStops.length) rows.push(["extra stop strings", a.additionalStops.map(q).join(" ")]);

  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join("\n");
}
