/**
 * generateChatParams: from a template analysis and a chat request, everything one generation
 * needs: the prompt, the output parser (a PEG definition) and the GBNF grammar derived from that
 * same definition, with its triggers.
 *
 *   - no tools and no JSON schema: no grammar;
 *   - tool_choice auto: a lazy grammar covering the tool-call section, started by its marker;
 *   - tool_choice required / named, response_format json_schema: a strict grammar; when the
 *     prompt opens reasoning, it is deferred (lazy, triggered by the reasoning end marker) so
 *     reasoning is never constrained.
 *
 * That choice is made once, as the request's GrammarPlan (grammar-plan.ts).
 */
import type { TemplateAnalysis } from "../analysis/index.js";
import { ChatTemplate } from "../template/index.js";
import { core, toolParameters } from "./build-helpers.js";
import { dedicatedHandler, formatReasoning } from "./dedicated/index.js";
import { type BuiltParser, buildGenericParser } from "./generic-parser.js";
import { prepareMessages } from "./messages.js";
import { withThinkingSwitch } from "./thinking-switch.js";
import { grammarFields, planGrammar } from "./grammar-plan.js";
import {
  type ReasoningPrefixState,
  continuationPrefix,
  reasoningPrefix,
  renderContinuation,
  renderPrompt,
} from "./prompt.js";
import { type NormalizedRequest, normalizeRequest } from "./request.js";
import { templateJsonStyle } from "./template-json-style.js";
import { templateSpace } from "./template-space.js";
import { endTextsOf, turnEndStops } from "./turn-end.js";
import { jsonContainersOf, rendersPythonLiterals } from "./value-syntax.js";
import type { ChatMappingOptions, ChatParams, ChatRequest } from "./types.js";

/**
 * Most whitespace characters where a chat grammar allows free whitespace (between markers,
 * around calls). Templates' own newlines are matched by the markers; a few more cover models
 * that double them, and a bound keeps random or confused models from spending tokens on spaces.
 * Templates that render wider runs themselves widen it (template-space.ts).
 */
export const CHAT_SPACE = { inline: 2, lines: 2, indent: 8 };

/**
 * Derives prompt, parser and grammar for one chat request.
 *
 * @example
 * const template = new ChatTemplate(source);
 * const analysis = analyzeChatTemplate(source, { template });
 * const params = generateChatParams(analysis, template, {
 *   messages: [{ role: "user", content: "Weather in Paris?" }],
 *   tools: [{
 *     type: "function",
 *     function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
 *   }],
 * });
 * params.grammarLazy;     // true
 * params.grammarTriggers; // [{ type: "word", value: "<tool_call>" }]
 * parseChatOutput(params, '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>');
 */
export function generateChatParams(
  analysis: TemplateAnalysis,
  template: ChatTemplate,
  request: ChatRequest,
): ChatParams {
  if (
    analysis === null ||
    typeof analysis !== "object" ||
    typeof analysis.reasoning !== "object" ||
    typeof analysis.tools !== "object"
  ) {
    throw new TypeError(
      "generateChatParams: analysis must be a TemplateAnalysis (from analyzeChatTemplate or analyzeTemplate)",
    );
  }
  if (!(template instanceof ChatTemplate)) throw new TypeError("generateChatParams: template must be a ChatTemplate");
  const req = normalizeRequest(request, template.caps);
  const handler = dedicatedHandler(analysis.dedicatedHandler);
  request = withThinkingSwitch(template, analysis, request);

  const messages = prepareMessages(analysis, request.messages);
  const continued =
    req.continuation === null
      ? null
      : renderContinuation(
          template,
          request,
          messages,
          req.continuation,
          formatReasoning(analysis),
          // Continued content is written after the format's content opener (Command's `<|START_TEXT|>`); a dedicated
          // parser names its own.
          handler?.contentStart ?? (handler?.build || analysis.content.mode === "PLAIN" ? "" : analysis.content.start),
        );
  const { prompt, generationPrompt } = continued ?? renderPrompt(template, request, messages, req.addGenerationPrompt);
  // Parsers are built for the generation prompt the model would have continued without prefill.
  const baseGeneration = continued?.baseGenerationPrompt ?? generationPrompt;

  let built: BuiltParser;
  let prefix: string;
  let state: ReasoningPrefixState;
  let preservedTokens = [...analysis.preservedTokens];
  if (handler?.build) {
    const h = handler.build(req, { generationPrompt: baseGeneration, analysis, template });
    built = h.built;
    ({ prefix, state } = h);
    preservedTokens = [...new Set([...h.preservedTokens, ...(h.keepAnalysisTokens ? preservedTokens : [])])];
  } else {
    ({ prefix, state } = reasoningPrefix(baseGeneration, analysis.reasoning));
    if (continued !== null && continued.state !== "none") state = continued.state;
    const tagged = analysis.tools.format.mode === "TAG_WITH_TAGGED" && req.tools.length > 0;
    built = buildGenericParser(analysis, req, {
      pythonTaggedValues: tagged && rendersPythonLiterals(template),
      jsonContainers: jsonContainersOf(tagged, template),
      deferredGrammar: state === "open",
      promptClosedReasoning: state === "closed",
    });
  }
  if (continued !== null) {
    prefix = continuationPrefix(prefix, continued);
    if (continued.state !== "none") state = continued.state;
  }
  // The message keeps the continued text; inline reasoning keeps the opener the prompt wrote.
  const keptPrefix =
    continued !== null ? continued.continued.length : req.reasoningInline && state === "open" ? prefix.length : 0;
  const mapping: ChatMappingOptions = {
    ...built.mapping,
    ...(req.reasoningInline ? { reasoningInline: true } : {}),
    ...(req.readsParallel ? {} : { readsOneCall: true }),
    ...reasoningInContent(built, req, analysis),
    // Finished calls' arguments are checked against the schemas (call-finish.ts).
    toolParameters: Object.fromEntries(req.tools.map((t) => [t.function.name, toolParameters(t)])),
  };
  const stopAt = turnEndStops(analysis, handler?.build ? preservedTokens : null);
  const space = templateSpace(template, CHAT_SPACE);
  const json = templateJsonStyle(template);
  const grammarPlan = planGrammar(built, { state, space, jsonAnswer: req.jsonSchema !== null, json });
  return {
    prompt,
    generationPrompt,
    continuesFinalMessage: continued !== null,
    parser: {
      arena: built.arena,
      root: built.root,
      resumeRoot: built.resume ?? built.body,
      prefix,
      keptPrefix,
      mapping,
      stopAt,
      endTexts: endTextsOf(analysis, template, stopAt),
      format: built.format,
    },
    grammarPlan,
    ...grammarFields(grammarPlan),
    preservedTokens,
    additionalStops: [...new Set([...analysis.additionalStops, ...stopAt])],
    thinkingForcedOpen: state === "open",
    reasoningEnd: built.reasoningEnd === null ? null : core(built.reasoningEnd),
    reasoningStart: built.reasoningEnd === null || !built.reasoningStart ? null : core(built.reasoningStart),
  };
}

/**
 * Where the model may open reasoning again after content (models that interleave thinking with the answer):
 * the format's reasoning markers where it has both (not channels: their parsers read every message), for a
 * request that thinks and answers in text. Not for inline reasoning (the markers stay content) or a JSON answer.
 */
function reasoningInContent(
  built: BuiltParser,
  req: NormalizedRequest,
  analysis: TemplateAnalysis,
): Pick<ChatMappingOptions, "reasoningInContent"> {
  const { reasoningStart: start, reasoningEnd: end } = built;
  if (!req.thinking || req.reasoningInline || req.jsonSchema !== null) return {};
  const resume = analysis.content.mode === "PLAIN" ? "" : analysis.content.start;
  return start && end ? { reasoningInContent: { start, end, resume } } : {};
}
