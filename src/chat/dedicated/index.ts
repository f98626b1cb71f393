/**
 * Dedicated handlers by name (the analysis' `dedicatedHandler`); the other names the analysis
 * may report are handled by the generic generator.
 */
import type { DedicatedHandler } from "../../analysis/index.js";
import { functionaryV32 } from "./functionary-v3-2.js";
import { gemma4 } from "./gemma4.js";
import { kimiK3 } from "./kimi-k3.js";
import { lfm25 } from "./lfm2-5.js";
import { gptOss } from "./gpt-oss.js";
import type { DedicatedHandlerDef } from "./handler.js";
import { minicpm5 } from "./minicpm5.js";
import { minimaxM3 } from "./minimax-m3.js";
import { ministral3 } from "./ministral-3.js";
import { museGlimmer } from "./muse-glimmer.js";

export type { DedicatedBuild, DedicatedContext, DedicatedHandlerDef } from "./handler.js";

const HANDLERS: Partial<Record<DedicatedHandler, DedicatedHandlerDef>> = {
  "gpt-oss": gptOss,
  "functionary-v3.2": functionaryV32,
  "ministral-3": ministral3,
  minicpm5,
  gemma4,
  "kimi-k3": kimiK3,
  "minimax-m3": minimaxM3,
  // LFM2 writes its calls as LFM2.5 does (<|tool_call_start|>[f(a=1)]<|tool_call_end|>); its
  // template only describes tools and never renders a call, so the analysis cannot learn it.
  lfm2: lfm25,
  "lfm2.5": lfm25,
  "muse-glimmer": museGlimmer,
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
