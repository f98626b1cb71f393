/**
 * Kimi K2: the generic analysis reads its section and call markers; what it needs besides is
 * Kimi's call ids in history (`functions.NAME:INDEX`), which some of its templates expect from
 * the caller and write where the function name goes. A history-only handler: no parser of its
 * own (see DedicatedHandlerDef.build); the analysis' probes get the same ids.
 */
import type { DedicatedHandlerDef } from "./handler.js";
import { sourceHas } from "./handler.js";
import { kimiCallIds } from "./kimi-call-ids.js";

export const kimiK2: DedicatedHandlerDef = {
  name: "kimi-k2",
  handles: ["kimi-k2"],
  detect: (s) => (sourceHas(s, "<|tool_calls_section_begin|>", "<|tool_call_begin|>") ? "kimi-k2" : null),
  adaptMessages: kimiCallIds,
  probeMessages: kimiCallIds,
};
