/**
 * From the chat layer's grammar and triggers to the runtime's grammar option. This is the one
 * place that turns an engine choice into the runtime's option (undefined: the runtime's default).
 */
import type { GrammarOptions } from "../runtime/sampling.js";
import type { ChatGrammarTrigger, GrammarPlan } from "../chat/types.js";

/** Tokenizes a trigger text (special tokens parsed), to tell whether it is one token. */
export type TriggerTokenizer = (text: string) => ArrayLike<number>;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** Whether a regex has a capturing group (an unescaped "(" not followed by "?"). */
function hasCaptureGroup(pattern: string): boolean {
  return /(^|[^\\])\((?!\?)/.test(pattern);
}

/**
 * The runtime matches lazy patterns against the whole output and hands the grammar the text from
 * the first capture group: a trigger found anywhere becomes `^[\s\S]*?(trigger)[\s\S]*`. `guard`
 * (the escaped reasoning-end marker) must come first, so nothing inside reasoning triggers it.
 */
function anywhere(pattern: string, captures: boolean, guard: string): string {
  // A pattern with its own group keeps it first: the grammar sees the text from that group.
  const body = captures ? `(?:${pattern})` : `(${pattern})`;
  return `^[\\s\\S]*?${guard ? `${guard}[\\s\\S]*?` : ""}${body}[\\s\\S]*`;
}

/** The runtime's option for a grammar applied from the current position on (no triggers). */
function fromHere(gbnf: string, engine: string | undefined): GrammarOptions {
  return { gbnf, ...(engine === undefined ? {} : { engine }) };
}

/**
 * A grammar applied from the current position on (no triggers), or undefined for none.
 *
 * @example
 * strictGrammar('root ::= "yes" | "no"', undefined); // { gbnf: 'root ::= "yes" | "no"' }
 */
export function strictGrammar(gbnf: string | null, engine: string | undefined): GrammarOptions | undefined {
  return gbnf === null ? undefined : fromHere(gbnf, engine);
}

/**
 * The grammar option of one chat generation, or undefined when the output is unconstrained.
 * Word and pattern triggers become lazy patterns; a token trigger becomes a lazy token when the
 * vocabulary has it as one token, else a word pattern. A lazy plan's `guard` (the reasoning end,
 * when the prompt opens reasoning) makes its other triggers count only after it, so reasoning is
 * never constrained; `afterReasoning` drops it (the output is past the reasoning already).
 *
 * @example
 * import { generateChatParams } from "toolwright/chat";
 * const tokenize = (text: string) => model.tokenize(text, { addSpecial: false, parseSpecial: true });
 * const params = generateChatParams(analysis, template, { messages, tools });
 * chatGrammar(params.grammarPlan, tokenize, undefined);
 * // { gbnf, lazy: { patterns: ["^[\\s\\S]*?(<tool_call>)[\\s\\S]*"] } }
 */
export function chatGrammar(
  plan: GrammarPlan,
  tokenize: TriggerTokenizer,
  engine: string | undefined,
  options: { afterReasoning?: boolean } = {},
): GrammarOptions | undefined {
  switch (plan.kind) {
    case "none":
      return undefined;
    case "strict":
      return fromHere(plan.gbnf, engine);
    case "lazy":
      return lazyGrammar(plan.gbnf, plan.triggers, options.afterReasoning ? null : plan.guard, tokenize, engine);
    case "after-reasoning":
      return lazyGrammar(plan.gbnf, plan.triggers, options.afterReasoning ? null : plan.reasoningEnd, tokenize, engine);
  }
}

function lazyGrammar(
  gbnf: string,
  triggers: readonly ChatGrammarTrigger[],
  guard: string | null,
  tokenize: TriggerTokenizer,
  engine: string | undefined,
): GrammarOptions | undefined {
  const guardFor = (value: string) => (guard !== null && value !== guard ? escapeRegex(guard) : "");
  const patterns: string[] = [];
  const tokens: number[] = [];
  for (const t of triggers) {
    switch (t.type) {
      case "word":
        patterns.push(anywhere(escapeRegex(t.value), false, guardFor(t.value)));
        break;
      case "pattern":
        patterns.push(anywhere(t.value, hasCaptureGroup(t.value), guardFor(t.value)));
        break;
      case "token": {
        const ids = tokenize(t.value);
        if (ids.length === 1 && guardFor(t.value) === "") tokens.push(ids[0]!);
        else patterns.push(anywhere(escapeRegex(t.value), false, guardFor(t.value)));
        break;
      }
      default: {
        const never: never = t;
        throw new TypeError(`chat: unknown grammar trigger ${JSON.stringify(never)}`);
      }
    }
  }
  if (patterns.length === 0 && tokens.length === 0) return undefined;
  const lazy = { ...(patterns.length ? { patterns } : {}), ...(tokens.length ? { tokens } : {}) };
  return { ...fromHere(gbnf, engine), lazy };
}

/** How generation goes on once the reasoning budget has closed the reasoning. */
export interface AfterReasoningClosed {
  /** Text the session writes for the model first (the reasoning end), or "" when the grammar writes it. */
  marker: string;
  grammar: GrammarOptions | undefined;
}

/**
 * What follows reasoning closed by the reasoning budget: a deferred grammar (it starts with the
 * reasoning end) now applies from here, so the model writes the end under it; otherwise the
 * session writes the end and generation goes on under the grammar of what follows reasoning
 * (a lazy grammar's triggers unguarded).
 *
 * @example
 * afterReasoningClosed(params.grammarPlan, "</think>", tokenize, undefined);
 * // { marker: "</think>\n", grammar: { gbnf } }
 */
export function afterReasoningClosed(
  plan: GrammarPlan,
  reasoningEnd: string,
  tokenize: TriggerTokenizer,
  engine: string | undefined,
): AfterReasoningClosed {
  if (plan.kind === "after-reasoning") return { marker: "", grammar: fromHere(plan.gbnf, engine) };
  const marker = `${reasoningEnd}\n`;
  if (plan.kind === "strict") return { marker, grammar: fromHere(plan.afterReasoning ?? plan.gbnf, engine) };
  return { marker, grammar: chatGrammar(plan, tokenize, engine, { afterReasoning: true }) };
}
