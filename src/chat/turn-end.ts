/**
 * Where the model's output ends: the marker that closes its turn (analysis.assistantEnd), unless
 * the format also uses that text inside a turn (Kimi K3's `<|close|>` closes its blocks too).
 */
import type { TemplateAnalysis } from "../analysis/index.js";
import { core } from "./build-helpers.js";

/** Every marker of a generically parsed format, trimmed. */
function formatMarkers(a: TemplateAnalysis): string[] {
  const t = a.tools;
  const all = [
    a.reasoning.start,
    a.reasoning.end,
    a.content.start,
    a.content.end,
    t.format.sectionStart,
    t.format.sectionEnd,
    t.format.perCallStart,
    t.format.perCallEnd,
    t.function.namePrefix,
    t.function.nameSuffix,
    t.function.argsSeparator,
    t.function.close,
    t.arguments.start,
    t.arguments.end,
    t.arguments.namePrefix,
    t.arguments.nameSuffix,
    t.arguments.valuePrefix,
    t.arguments.valueSuffix,
    t.arguments.separator,
    t.callId.prefix,
    t.callId.suffix,
  ];
  return all.map(core).filter((m) => m !== "");
}

/**
 * The texts the output ends at: the turn's end marker, when no format marker contains it.
 * `dedicatedMarkers` are a dedicated format's own markers (null for generic formats).
 *
 * @example
 * turnEndStops(lingAnalysis, null); // ["<|role_end|>"]
 */
export function turnEndStops(a: TemplateAnalysis, dedicatedMarkers: readonly string[] | null): string[] {
  const end = core(a.assistantEnd ?? "");
  if (end === "") return [];
  const markers = dedicatedMarkers ?? formatMarkers(a);
  return markers.some((m) => m.includes(end)) ? [] : [end];
}
