/**
 * The room a required tool call needs in a turn's maxTokens: the tokens of the shortest output its
 * grammar accepts. The turn fails up front when maxTokens cannot hold it, and closes reasoning
 * early enough that it still fits after the reasoning end.
 */
import type { ChatParams } from "../chat/types.js";
import { LruCache } from "../grammar/lru-cache.js";
import { shortestGbnfText } from "../grammar/gbnf-shortest.js";
import type { ToolChoice } from "../types.js";
import { afterReasoningClosed, type TriggerTokenizer } from "./grammar.js";

/** Tokens a required call needs. */
export interface CallRoom {
  /** What the request requires, for messages: `a call to get_weather` or `a tool call`. */
  what: string;
  /** Tokens of the shortest output the turn's grammar accepts from its first token (no reasoning). */
  call: number;
  /**
   * Tokens the turn needs once the reasoning budget closes reasoning: the end marker the session
   * writes, then the shortest output of the grammar that follows; null when nothing closes reasoning.
   */
  afterClose: number | null;
}

/** Shortest texts by grammar: the same tools give the same grammar request after request. */
const SHORTEST = new LruCache<string | null>(64, 4_000_000);

function shortestOf(gbnf: string): string | null {
  let text = SHORTEST.get(gbnf);
  if (text === undefined) {
    text = shortestGbnfText(gbnf);
    SHORTEST.set(gbnf, text, text?.length ?? 0);
  }
  return text;
}

/** What `toolChoice` requires, or null when it requires no call. */
function requirement(toolChoice: ToolChoice | undefined): string | null {
  if (toolChoice === "required") return "a tool call";
  if (typeof toolChoice === "object" && toolChoice !== null) return `a call to ${toolChoice.function.name}`;
  return null;
}

/**
 * The room of the call a request requires, or null when it requires none (or its grammar plan
 * writes no call grammar).
 *
 * @example
 * const room = requiredCallRoom(params, "required", tokenize);
 * room?.call; // e.g. 19: tokens of <tool_call>{"name":"get_weather","arguments":{"city":""}}</tool_call>
 */
export function requiredCallRoom(
  params: ChatParams,
  toolChoice: ToolChoice | undefined,
  tokenize: TriggerTokenizer,
): CallRoom | null {
  const what = requirement(toolChoice);
  const plan = params.grammarPlan;
  if (what === null || (plan.kind !== "strict" && plan.kind !== "after-reasoning")) return null;
  const call = shortestOf(plan.gbnf);
  if (call === null) return null;
  const end = params.reasoningEnd;
  let afterClose: number | null = null;
  if (end !== null) {
    // As the turn goes on once the budget closes reasoning (step.ts's closeReasoning).
    const next = afterReasoningClosed(plan, end, tokenize, undefined);
    const rest = next.grammar?.gbnf === undefined ? null : shortestOf(next.grammar.gbnf);
    if (rest !== null) afterClose = tokenize(next.marker).length + tokenize(rest).length;
  }
  return { what, call: tokenize(call).length, afterClose };
}
