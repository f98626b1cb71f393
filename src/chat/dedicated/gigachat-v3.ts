/**
 * GigaChat v3: llama.cpp reads it with a hand-written handler; toolwright's generic analysis reads it
 * (see `generic`). Detected all the same, so the analysis reports the family as llama.cpp does.
 */
import { type DedicatedHandlerDef, sourceHas } from "./handler.js";

export const gigachatV3: DedicatedHandlerDef = {
  name: "gigachat-v3",
  handles: ["gigachat-v3"],
  detect: (s) =>
    sourceHas(s, "<|role_sep|>", "<|message_sep|>") && !s.includes("<|function_call|>") ? "gigachat-v3" : null,
  generic: "JSON calls after a 'function call' role header the diffing finds",
};
