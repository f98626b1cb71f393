// Deliberate differences between toolwright's template analysis and llama.cpp's, per template.
// Each entry lists the analysis fields that differ and why toolwright's value is better;
// test/analysis-roundtrip.test.ts demonstrates each one on real renderings.

export interface Improvement {
  /** Dotted TemplateAnalysis paths whose values differ from llama.cpp's. */
  fields: string[];
  reason: string;
}

export const IMPROVEMENTS: Record<string, Improvement> = {
  "upstage-Solar-Open-100B.jinja": {
    fields: [
      "tools.callId.position",
      "tools.callId.prefix",
      "tools.callId.suffix",
      "tools.function.namePrefix",
      "preservedTokens",
    ],
    reason:
      "Solar writes the call id before the function name. llama.cpp's call-id phase finds the function name " +
      "in the tool declarations of the system prompt, gives up, and leaves the probe id 'call00001' inside the " +
      "function-name prefix, so a parser built from it only accepts calls whose id is literally call00001. " +
      "toolwright only looks for the name inside the call, detects PRE_FUNC_NAME and takes the id out of the prefix.",
  },
};
