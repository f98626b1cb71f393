// Every known difference between toolwright's template analysis and llama.cpp's, per template,
// with the analysis fields that differ and why.
//  - IMPROVEMENTS: toolwright's value is deliberately different and better;
//    test/unit/analysis-roundtrip.test.ts demonstrates each one on a real rendering.
//  - TAUGHT_IN_PROSE: the template renders no tool call, and its tools prompt teaches the call
//    syntax in words; toolwright reads it, llama.cpp finds no format. No rendering can show it:
//    test/unit/analysis-taught-section.test.ts parses the taught syntax instead.
//  - UNPROBED_REASONING: the template writes reasoning only for a message shape the probes do not send; a
//    workaround row (src/analysis/workarounds.ts) sets its markers, which peers' tests read as reasoning;
//    test/unit/analysis-workaround-evidence.test.ts renders that shape and finds them.
// LENIENT_TEMPLATES is not a list of differences: it names the templates whose ordinary
// conversations raise under Python Jinja2 (transformers) semantics and only render with
// llama.cpp's relaxations (src/template/compat.ts). analyzeTemplate renders them in
// compat "auto" mode and agrees with llama.cpp on them; test/oracle/analysis-oracle.test.ts checks
// that each one really raises strictly, that its analysis says renderMode "lenient", and that
// no other template does.

export interface Difference {
  /** Dotted TemplateAnalysis paths whose values differ from llama.cpp's. */
  fields: string[];
  reason: string;
}

export const IMPROVEMENTS: Record<string, Difference> = {
  "LFM2.5-8B-A1B.jinja": {
    fields: [
      "preservedTokens",
      "tools.arguments.namePrefix",
      "tools.arguments.nameSuffix",
      "tools.arguments.separator",
      "tools.format.mode",
      "tools.format.toolsArrayWrapped",
      "tools.function.close",
      "tools.function.namePrefix",
      "tools.function.nameSuffix",
    ],
    reason:
      "The template writes calls as Python call expressions, [NAME(ARG='value', ...)]. llama.cpp's generic analysis " +
      "has no such format: it labels the template TAG_WITH_TAGGED and bakes the probe's own function name, argument " +
      "names and values into the markers (name suffix \"(AA_ARG_FST_AA='XXXX', BB_ARG_SND_BB='YYYY')]\"), so " +
      "a parser " +
      "built from them only reads the probe call; llama.cpp uses a dedicated handler instead. toolwright detects " +
      "PYTHONIC (name followed by '(' and a keyword argument), with the list in brackets inside " +
      "<|tool_call_start|> / " +
      "<|tool_call_end|>, and preserves only those wrappers as tokens.",
  },
  "upstage-Solar-Open-100B.jinja": {
    fields: [
      "tools.callId.position",
      "tools.callId.prefix",
      "tools.callId.suffix",
      "tools.function.namePrefix",
      "preservedTokens",
      "reasoning.mode",
      "reasoning.start",
      "reasoning.end",
    ],
    reason:
      "Solar writes the call id before the function name. llama.cpp's call-id phase finds the function name " +
      "in the tool declarations of the system prompt, gives up, and leaves the probe id 'call00001' inside the " +
      "function-name prefix, so a parser built from it only accepts calls whose id is literally call00001. " +
      "toolwright only looks for the name inside the call, detects PRE_FUNC_NAME and takes the id out of the prefix. " +
      "Solar thinks in a message of its own (<|think|>…<|end|>) before the answer's <|begin|>assistant; llama.cpp " +
      "finds no reasoning (the renderings show it only in history) and stops live generation at that <|begin|>.",
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

export const TAUGHT_IN_PROSE: Record<string, Difference> = {
  "ibm-granite-granite-3.3-2B-Instruct.jinja": {
    fields: ["preservedTokens", "tools.format.mode", "tools.format.sectionStart", "tools.format.toolsArrayWrapped"],
    reason:
      "The template renders no assistant tool calls; given tools, its system prompt says to respond with " +
      "<|tool_call|> followed by a JSON list of tools used. llama.cpp's analysis finds no format (NONE) and builds " +
      "no parser; toolwright reads the marker and the list from the prose (JSON_NATIVE, section <|tool_call|>, " +
      "calls in a list) and preserves <|tool_call|> as a token.",
  },
};

export const UNPROBED_REASONING: Record<string, Difference> = {
  "Apertus-8B-Instruct.jinja": {
    fields: ["preservedTokens", "reasoning.end", "reasoning.mode", "reasoning.start"],
    reason:
      "The template renders reasoning only from assistant content given as blocks of type 'thoughts', between " +
      "<|inner_prefix|> and <|inner_suffix|>; no probe sends that shape, so the diff finds no reasoning (llama.cpp: " +
      "NONE). Its models write the markers (SGLang's and Ollama's Apertus tests read them as reasoning); a " +
      "workaround row sets them.",
  },
};

/** Template → why strict rendering raises on it (the Python exception, then the cause). */
export const LENIENT_TEMPLATES: Record<string, { strictRaises: string; reason: string }> = {
  "Kimi-K2-Instruct.jinja": {
    strictRaises: "SecurityError",
    reason:
      "calls list.append()/pop() to number tool calls; transformers' immutable sandbox refuses them " +
      "(relaxation: mutation).",
  },
  "Kimi-K2-Thinking.jinja": {
    strictRaises: "SecurityError",
    reason:
      "calls list.append()/pop() to number tool calls; transformers' immutable sandbox refuses them " +
      "(relaxation: mutation).",
  },
  "fireworks-ai-llama-3-firefunction-v2.jinja": {
    strictRaises: "UndefinedError",
    reason:
      "concatenates `functions` and `datetime`, variables the chat-template context does not have; llama.cpp's " +
      'engine concatenates a missing value as "" (relaxation: concat-missing).',
  },
  "llama-cpp-deepseek-r1.jinja": {
    strictRaises: "TypeError",
    reason:
      "pipes `tools | map(attribute='function')` into tojson: in Python map gives a generator that json.dumps " +
      "refuses; llama.cpp's map gives a list (relaxation: iterator-as-list).",
  },
};
