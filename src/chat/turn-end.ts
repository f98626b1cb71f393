/**
 * Where the model's output ends: the marker that closes its turn (analysis.assistantEnd), unless
 * the format also uses that text inside a turn (Kimi K3's `<|close|>` closes its blocks too).
 */
import type { TemplateAnalysis } from "../analysis/index.js";
import { analysisMarkers } from "../analysis/workaround-evidence.js";
import type { ChatTemplate } from "../template/index.js";
import { core } from "./build-helpers.js";
import { CONVENTIONAL_END_TEXTS } from "./trailing-end.js";

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

/**
 * The texts that, at the very end of an output, end it without being content: the model's
 * end-of-sequence token (the template's `eos_token`), the turn's end marker where it is no stop
 * (a format marker too), and the conventional end texts.
 *
 * @example
 * endTextsOf(gigaChatAnalysis, template, []); // ["<|message_sep|>", "</s>", "<|endoftext|>", …]
 */
export function endTextsOf(a: TemplateAnalysis, template: ChatTemplate, stopAt: readonly string[]): string[] {
  const own = [template.eosToken, core(a.assistantEnd ?? "")].map((t) => t.trim());
  return [...new Set([...own, ...CONVENTIONAL_END_TEXTS])].filter((t) => t !== "" && !stopAt.includes(t));
}
