// Every known difference between toolwright's template analysis and llama.cpp's, per template,
// with the analysis fields that differ and why.
//  - IMPROVEMENTS: toolwright's value is deliberately different and better;
//    test/analysis-roundtrip.test.ts demonstrates each one on a real rendering.
//  - RENDERER_LIMITATIONS: the template raises under Python Jinja2 semantics (what transformers
//    and toolwright's renderer implement) on a probe that llama.cpp's more lenient Jinja engine
//    renders, so toolwright cannot analyse that part (nor detect the capability: the caps
//    probes raise too); test/analysis-oracle.test.ts checks that the probe really raises, so an
//    entry goes stale (and the test fails) once it renders.

export interface Difference {
  /** Dotted TemplateAnalysis paths whose values differ from llama.cpp's. */
  fields: string[];
  reason: string;
}

export const IMPROVEMENTS: Record<string, Difference> = {
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
  "meetkai-functionary-medium-v3.2.jinja": {
    fields: [
      "tools.format.mode",
      "tools.function.nameSuffix",
      "tools.arguments.namePrefix",
      "tools.arguments.nameSuffix",
      "tools.arguments.valuePrefix",
      "tools.arguments.valueSuffix",
      "preservedTokens",
    ],
    reason:
      "The template concatenates the arguments as a string, so it cannot take object arguments (Python Jinja2 " +
      "raises; toolwright's prompts pass JSON strings). llama.cpp's probes pass objects anyway, its engine prints " +
      "them as a Python dict, and the 'markers' it derives contain the probe's own name and arguments. toolwright " +
      "renders probes the way it renders prompts (JSON-string arguments) and finds name + JSON arguments. " +
      "Both llama.cpp and toolwright route this template to a dedicated handler.",
  },
};

const SANDBOX_APPEND =
  "calls list.append(), which the immutable sandbox of Python Jinja2 (as used by transformers) refuses with " +
  "SecurityError; llama.cpp's engine allows it. No tool-call turn renders, so no tool format (dedicated kimi-k2 handler).";

export const RENDERER_LIMITATIONS: Record<string, Difference> = {
  "Kimi-K2-Instruct.jinja": {
    fields: [
      "caps.supportsTools",
      "caps.supportsToolCalls",
      "caps.supportsParallelToolCalls",
      "caps.supportsObjectArguments",
      "tools.format.mode",
      "tools.format.sectionStart",
      "tools.format.sectionEnd",
      "tools.format.perCallStart",
      "tools.format.perCallEnd",
      "tools.function.namePrefix",
      "tools.function.nameSuffix",
      "preservedTokens",
    ],
    reason: `The template ${SANDBOX_APPEND}`,
  },
  "Kimi-K2-Thinking.jinja": {
    fields: [
      "caps.supportsTools",
      "caps.supportsToolCalls",
      "caps.supportsParallelToolCalls",
      "caps.supportsObjectArguments",
      "reasoning.mode",
      "reasoning.start",
      "reasoning.end",
      "tools.format.mode",
      "tools.format.sectionStart",
      "tools.format.sectionEnd",
      "tools.format.perCallStart",
      "tools.format.perCallEnd",
      "tools.function.namePrefix",
      "tools.function.nameSuffix",
      "assistantStart",
      "preservedTokens",
    ],
    reason: `The template ${SANDBOX_APPEND} Its reasoning is only rendered on tool turns, so reasoning is not found either.`,
  },
  "fireworks-ai-llama-3-firefunction-v2.jinja": {
    fields: [
      "caps.supportsStringContent",
      "caps.supportsSystemRole",
      "caps.supportsToolCalls",
      "caps.supportsParallelToolCalls",
      "caps.supportsObjectArguments",
      "tools.format.mode",
      "tools.format.sectionStart",
      "tools.format.toolsArrayWrapped",
      "tools.format.parameterOrder",
      "preservedTokens",
    ],
    reason:
      "The template concatenates a `functions` variable that the caller is expected to pass (not part of the " +
      "chat-template context): Python Jinja2 raises UndefinedError, llama.cpp's engine treats it as empty. " +
      "Most probes raise.",
  },
  "llama-cpp-deepseek-r1.jinja": {
    fields: [
      "caps.supportsTools",
      "caps.supportsToolCalls",
      "caps.supportsParallelToolCalls",
      "caps.supportsObjectArguments",
      "tools.format.mode",
      "tools.format.sectionStart",
      "tools.format.sectionEnd",
      "tools.format.perCallStart",
      "tools.format.perCallEnd",
      "tools.function.namePrefix",
      "tools.function.nameSuffix",
      "tools.function.close",
      "preservedTokens",
    ],
    reason:
      "llama.cpp's own template pipes `tools | map(attribute='function')` into tojson: in Python `map` is a " +
      "generator and json.dumps raises TypeError; llama.cpp's map returns a list. Tool probes raise.",
  },
};
