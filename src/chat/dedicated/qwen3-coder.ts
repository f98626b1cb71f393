/**
 * Qwen3-Coder: llama.cpp reads it with a hand-written handler; toolwright's generic analysis reads it
 * (see `generic`). Detected all the same, so the analysis reports the family as llama.cpp does.
 * Templates that build the opening tag from the name in one expression are left to the plain analysis.
 */
import { type DedicatedHandlerDef, sourceHas } from "./handler.js";

export const qwen3Coder: DedicatedHandlerDef = {
  name: "qwen3-coder",
  handles: ["qwen3-coder"],
  detect: (s) =>
    sourceHas(s, "<tool_call>", "<function=", "<parameter=") &&
    !s.includes("'<tool_call><function=' ~ tool_call.name ~ '>'")
      ? "qwen3-coder"
      : null,
  generic: "tagged calls (<tool_call><function=NAME><parameter=KEY>) whose markers the diffing finds",
};
