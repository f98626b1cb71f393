/**
 * Where the model's output ends: the marker that closes its turn (analysis.assistantEnd), unless
 * the format also uses that text inside a turn (Kimi K3's `<|close|>` closes its blocks too).
 */
import type { TemplateAnalysis } from "../analysis/index.js";
import { analysisMarkers } from "../analysis/workaround-evidence.js";
import { core } from "./build-helpers.js";

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
  const markers = dedicatedMarkers ?? analysisMarkers(a);
  return markers.some((m) => m.includes(end)) ? [] : [end];
}
