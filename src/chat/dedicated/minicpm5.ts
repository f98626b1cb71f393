/**
 * MiniCPM5: `<function name="f"><param name="k">value</param></function>`, strings raw or in a
 * CDATA block, other values as Python literals. The generic analysis gets everything but the
 * value end right (its probe's value suffix runs on into the function close and the end of the
 * turn), so this handler corrects those markers and reuses the generic tagged-call builder.
 */
import type { TemplateAnalysis } from "../../analysis/index.js";
import { buildGenericParser } from "../generic-parser.js";
import { reasoningPrefix } from "../prompt.js";
import type { NormalizedRequest } from "../request.js";
import { jsonContainersOf } from "../value-syntax.js";
import { type DedicatedBuild, type DedicatedContext, type DedicatedHandlerDef, sourceHas } from "./handler.js";

/** The analysis with the call markers the template really writes. */
function corrected(a: TemplateAnalysis): TemplateAnalysis {
  return {
    ...a,
    tools: {
      format: {
        ...a.tools.format,
        mode: "TAG_WITH_TAGGED",
        sectionStart: "",
        sectionEnd: "",
        perCallStart: "",
        perCallEnd: "",
      },
      function: { namePrefix: '<function name="', nameSuffix: '">', argsSeparator: "", close: "</function>" },
      arguments: {
        start: "",
        end: "",
        namePrefix: '<param name="',
        nameSuffix: '">',
        valuePrefix: "",
        valueSuffix: "</param>",
        separator: "",
        tolerateIntertagWhitespace: true,
      },
      callId: { position: "NONE", prefix: "", suffix: "" },
    },
  };
}

function build(req: NormalizedRequest, { generationPrompt, analysis, template }: DedicatedContext): DedicatedBuild {
  const { prefix, state } = reasoningPrefix(generationPrompt, analysis.reasoning);
  const built = buildGenericParser(corrected(analysis), req, {
    pythonTaggedValues: true,
    jsonContainers: jsonContainersOf(true, template),
    cdataStrings: true,
    deferredGrammar: state === "open",
    promptClosedReasoning: state === "closed",
  });
  return {
    built: { ...built, format: "minicpm5" },
    prefix,
    state,
    preservedTokens: ["<function", "<param", "</function>", "</param>", "<think>", "</think>"],
  };
}

/** The MiniCPM5 handler. */
export const minicpm5: DedicatedHandlerDef = {
  name: "minicpm5",
  handles: ["minicpm5"],
  detect: (s) => (sourceHas(s, "Tool usage guidelines:", '<function name="', '<param name="') ? "minicpm5" : null),
  build,
};
