/**
 * Cohere Command (MoE): llama.cpp reads it with a hand-written handler; toolwright's generic analysis reads it
 * (see `generic`). Detected all the same, so the analysis reports the family as llama.cpp does.
 */
import { type DedicatedHandlerDef, sourceHas } from "./handler.js";

export const cohere2Moe: DedicatedHandlerDef = {
  name: "cohere2-moe",
  handles: ["cohere2-moe"],
  detect: (s) => (sourceHas(s, "<|START_TEXT|>", "<|START_ACTION|>") ? "cohere2-moe" : null),
  generic: "JSON calls in an <|START_ACTION|> section the diffing finds",
};
