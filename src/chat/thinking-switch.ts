/**
 * `enableThinking` on templates that read no `enable_thinking` but turn thinking on and off with another variable:
 * `reasoning_effort` (Tencent Hy3 does not think unless asked for an effort, Solar Open thinks unless asked for a
 * low one, Cohere's Command A Reasoning stops at "none") or a flag of another name (Kimi K3's `thinking`). Names and
 * values differ per template, so the template is asked: the first candidate whose generation prompt leaves
 * reasoning as the request wants it (for no thinking: closed, or no longer opened; for thinking: not closed).
 */
import type { ReasoningAnalysis, TemplateAnalysis } from "../analysis/index.js";
import { type ChatTemplate, TemplateError, TemplateRuntimeError } from "../template/index.js";
import { formatReasoning } from "./dedicated/index.js";
import { type ReasoningPrefixState, reasoningPrefix, renderPrompt } from "./prompt.js";
import type { ChatRequest } from "./types.js";

/** Template variables other than `enable_thinking` that switch thinking, tried in this order. */
const FLAGS = ["thinking", "enable_reasoning", "reasoning"];
const EFFORTS = { on: ["high", "medium", "low"], off: ["none", "no_think", "minimal", "low", "off", "disabled"] };
const PROBE = [{ role: "user" as const, content: "Hi" }];

type Switch = Record<string, unknown>;

/** Per template: the switch found for each request shape (null: none does it, or the template needs none). */
const found = new WeakMap<ChatTemplate, Map<string, Switch | null>>();

/**
 * The request with the template variable set that makes the template do what `enableThinking` asks, where the
 * template reads no `enable_thinking`, the request sets none of those variables itself, and the template's
 * default does not already do it. Otherwise the request as given.
 *
 * @example
 * withThinkingSwitch(hy3Template, hy3Analysis, { messages, enableThinking: true }).extraContext;
 * // { reasoning_effort: "high" }
 */
export function withThinkingSwitch(template: ChatTemplate, analysis: TemplateAnalysis, req: ChatRequest): ChatRequest {
  const reasoning = formatReasoning(analysis);
  const wanted = req.enableThinking;
  const extra = req.extraContext ?? {};
  if (wanted === undefined || template.caps.supportsEnableThinking || reasoning.mode === "NONE") return req;
  if (["reasoning_effort", ...FLAGS].some((name) => extra[name] !== undefined)) return req;
  let byShape = found.get(template);
  if (byShape === undefined) found.set(template, (byShape = new Map()));
  const key = `${wanted}|${JSON.stringify(extra)}`;
  let choice = byShape.get(key);
  if (choice === undefined) {
    choice = searchSwitch(template, reasoning, wanted, extra);
    byShape.set(key, choice);
  }
  return choice === null ? req : { ...req, extraContext: { ...extra, ...choice } };
}

function searchSwitch(
  template: ChatTemplate,
  reasoning: ReasoningAnalysis,
  wanted: boolean,
  extra: Record<string, unknown>,
): Switch | null {
  const state = (set: Switch): ReasoningPrefixState | null => stateWith(template, reasoning, { ...extra, ...set });
  const before = state({});
  if (before === null || (before === "closed") !== wanted) return null;
  const candidates: Switch[] = [
    ...(template.caps.supportsReasoningEffort ? EFFORTS[wanted ? "on" : "off"] : []).map((v) => ({
      reasoning_effort: v,
    })),
    ...FLAGS.map((name) => ({ [name]: wanted })),
  ];
  return (
    candidates.find((set) => {
      const after = state(set);
      if (after === null) return false;
      return wanted ? after !== "closed" : after === "closed" || (after === "none" && before === "open");
    }) ?? null
  );
}

/** Where the generation prompt leaves reasoning with this context; null when the template refuses it. */
function stateWith(template: ChatTemplate, reasoning: ReasoningAnalysis, extraContext: Record<string, unknown>) {
  try {
    return reasoningPrefix(renderPrompt(template, { messages: PROBE, extraContext }).generationPrompt, reasoning).state;
  } catch (e) {
    // A value the template rejects (Hy3 raises on one it does not know).
    if (e instanceof TemplateError || e instanceof TemplateRuntimeError) return null;
    throw e;
  }
}
