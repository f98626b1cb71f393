/**
 * DeepSeek V3.2: llama.cpp reads it with a hand-written handler; toolwright's generic analysis reads it
 * (see `generic`). Detected all the same, so the analysis reports the family as llama.cpp does.
 */
import { type DedicatedHandlerDef, sourceHas } from "./handler.js";

export const deepseekV32: DedicatedHandlerDef = {
  name: "deepseek-v3.2",
  handles: ["deepseek-v3.2"],
  detect: (s) =>
    sourceHas(s, "dsml_token", "DSML") && (s.includes("function_calls") || s.includes("tool_calls"))
      ? "deepseek-v3.2"
      : null,
  generic: "DSML invoke/parameter tags the diffing finds",
};
