/**
 * Dedicated formats by the family the analysis detects (`dedicatedHandler`): one module per
 * format (detection signatures stay in the analysis, which probes some families differently),
 * and the registry derived from the modules. The other families the analysis may report are
 * handled by the generic generator, each listed with why in GENERIC_HANDLES.
 */
import type { DedicatedHandler } from "../../analysis/index.js";
import { functionaryV32 } from "./functionary-v3-2.js";
import { gemma4 } from "./gemma4.js";
import { kimiK2 } from "./kimi-k2.js";
import { kimiK3 } from "./kimi-k3.js";
import { lfm25 } from "./lfm2-5.js";
import { gptOss } from "./gpt-oss.js";
import type { DedicatedHandlerDef } from "./handler.js";
import { minicpm5 } from "./minicpm5.js";
import { minimaxM3 } from "./minimax-m3.js";
import { ministral3 } from "./ministral-3.js";
import { museGlimmer } from "./muse-glimmer.js";

export type { DedicatedBuild, DedicatedContext, DedicatedHandlerDef } from "./handler.js";

/** Every dedicated format; the registry below is derived from what each says it handles. */
const FORMATS: readonly DedicatedHandlerDef[] = [gptOss, functionaryV32, ministral3, minicpm5, gemma4, kimiK2, kimiK3, minimaxM3, lfm25, museGlimmer];

const HANDLERS: Partial<Record<DedicatedHandler, DedicatedHandlerDef>> = Object.fromEntries(FORMATS.flatMap((f) => (f.handles ?? [f.name as DedicatedHandler]).map((family) => [family, f])));

/**
 * Formats llama.cpp gives a hand-written handler that toolwright's generic analysis handles,
 * and why it can: a flagged format is either in HANDLERS or here, never silently generic
 * (test/chat-dedicated-coverage.test.ts checks both, and that these round trip).
 */
export const GENERIC_HANDLES: Readonly<Partial<Record<DedicatedHandler, string>>> = {
  "qwen3-coder": "tagged calls (<tool_call><function=NAME><parameter=KEY>) whose markers the diffing finds",
  "ling-3": "tagged calls (<tool_call>NAME, <arg_key>/<arg_value>) whose markers the diffing finds",
  "cohere2-moe": "JSON calls in an <|START_ACTION|> section the diffing finds",
  "gigachat-v3": "JSON calls after a 'function call' role header the diffing finds",
  "deepseek-v3.2": "DSML invoke/parameter tags the diffing finds",
};

/**
 * The dedicated handler for an analysis' `dedicatedHandler`, or null to use the generic one.
 *
 * @example
 * dedicatedHandler("gpt-oss")?.name; // "gpt-oss"
 */
export function dedicatedHandler(name: DedicatedHandler | null): DedicatedHandlerDef | null {
  return name === null ? null : (HANDLERS[name] ?? null);
}
