/**
 * Ling 3: llama.cpp reads it with a hand-written handler; toolwright's generic analysis reads it
 * (see `generic`). Detected all the same, so the analysis reports the family as llama.cpp does.
 */
import { type DedicatedHandlerDef, sourceHas } from "./handler.js";

export const ling3: DedicatedHandlerDef = {
  name: "ling-3",
  handles: ["ling-3"],
  detect: (s) => (sourceHas(s, "<role>ASSISTANT</role>", "<arg_key>") ? "ling-3" : null),
  generic: "tagged calls (<tool_call>NAME, <arg_key>/<arg_value>) whose markers the diffing finds",
};
