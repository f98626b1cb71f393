/**
 * `enableThinking` on templates that turn thinking on and off with `reasoning_effort` alone (Tencent Hy3 does not
 * think unless asked for an effort, Solar Open thinks unless asked for a low one, Cohere's Command A Reasoning
 * stops at "none"). The values differ per template, so the template is asked: the first candidate effort whose
 * generation prompt leaves reasoning as the request wants it (closed for no thinking, not closed for thinking).
 */
import type { ReasoningAnalysis } from "../analysis/index.js";
import { type ChatTemplate, TemplateError, TemplateRuntimeError } from "../template/index.js";
import { reasoningPrefix } from "./prompt.js";
import type { ChatRequest } from "./types.js";

const THINKING = ["high", "medium", "low"];
const NOT_THINKING = ["none", "no_think", "minimal", "low", "off", "disabled"];
const PROBE = [{ role: "user" as const, content: "Hi" }];

/** Per template: the effort found for each request shape (null: none does it, or the template needs none). */
const found = new WeakMap<ChatTemplate, Map<string, string | null>>();

/**
 * The request with the `reasoning_effort` that makes the template do what `enableThinking` asks, where the template
 * reads no `enable_thinking` but reads `reasoning_effort`, the request sets no effort itself, and the template's
 * default does not already do it. Otherwise the request as given.
 *
 * @example
 * withThinkingEffort(hy3Template, hy3Analysis.reasoning, { messages, enableThinking: true }).extraContext;
 * // { reasoning_effort: "high" }
 */
export function withThinkingEffort(
  template: ChatTemplate,
  reasoning: ReasoningAnalysis,
  req: ChatRequest,
): ChatRequest {
  const wanted = req.enableThinking;
  const extra = req.extraContext ?? {};
  if (wanted === undefined || template.caps.supportsEnableThinking || !template.caps.supportsReasoningEffort)
    return req;
  if (extra.reasoning_effort !== undefined || reasoning.mode === "NONE") return req;
  let byShape = found.get(template);
  if (byShape === undefined) found.set(template, (byShape = new Map()));
  const key = `${wanted}|${JSON.stringify(extra)}`;
  let effort = byShape.get(key);
  if (effort === undefined) {
    effort = searchEffort(template, reasoning, wanted, extra);
    byShape.set(key, effort);
  }
  return effort === null ? req : { ...req, extraContext: { ...extra, reasoning_effort: effort } };
}

function searchEffort(
  template: ChatTemplate,
  reasoning: ReasoningAnalysis,
  wanted: boolean,
  extra: Record<string, unknown>,
): string | null {
  const does = (effort: string | undefined): boolean => {
    const state = stateWith(template, reasoning, effort === undefined ? extra : { ...extra, reasoning_effort: effort });
    return state !== null && (state === "closed") !== wanted;
  };
  if (does(undefined)) return null;
  return (wanted ? THINKING : NOT_THINKING).find((effort) => does(effort)) ?? null;
}

/** Where the generation prompt leaves reasoning with this context; null when the template refuses it. */
function stateWith(template: ChatTemplate, reasoning: ReasoningAnalysis, extraContext: Record<string, unknown>) {
  try {
    const without = template.render({ messages: PROBE, extraContext, addGenerationPrompt: false });
    const prompt = template.render({ messages: PROBE, extraContext, addGenerationPrompt: true });
    if (!prompt.startsWith(without)) return null;
    return reasoningPrefix(prompt.slice(without.length), reasoning).state;
  } catch (e) {
    // A value the template rejects (Hy3 raises on one it does not know).
    if (e instanceof TemplateError || e instanceof TemplateRuntimeError) return null;
    throw e;
  }
}
