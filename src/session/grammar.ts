/**
 * From the chat layer's grammar and triggers to the runtime's grammar option. This is the one
 * place that turns an engine choice into the runtime's option (undefined: the runtime's default).
 */
import type { GrammarOptions } from "../runtime/sampling.js";
import type { ChatParams } from "../chat/types.js";

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

/**
 * The grammar option of one chat generation, or undefined when the output is unconstrained.
 * Word and pattern triggers become lazy patterns; a token trigger becomes a lazy token when the
 * vocabulary has it as one token, else a word pattern. When the prompt opens reasoning, triggers
 * other than the reasoning end only count after it, so reasoning is never constrained.
 *
 * @example
 * const tokenize = (text: string) => model.tokenize(text, { addSpecial: false, parseSpecial: true });
 * chatGrammar(params, tokenize, undefined); // { gbnf, lazy: { patterns: ["^[\\s\\S]*?(<tool_call>)[\\s\\S]*"] } }
 */
export function chatGrammar(
  params: ChatParams,
  tokenize: TriggerTokenizer,
  engine: string | undefined,
  options: { afterReasoning?: boolean } = {},
): GrammarOptions | undefined {
  if (params.grammar === null) return undefined;
  const base: GrammarOptions = { gbnf: params.grammar, ...(engine === undefined ? {} : { engine }) };
  if (!params.grammarLazy) return base;
  const end = params.reasoningEnd;
  // After the reasoning was closed for the model (reasoning budget), the output is past it already.
  const guarded = params.thinkingForcedOpen && !options.afterReasoning;
  const guardFor = (value: string) => (guarded && end !== null && value !== end ? escapeRegex(end) : "");
  const patterns: string[] = [];
  const tokens: number[] = [];
  for (const t of params.grammarTriggers) {
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
  return { ...base, lazy: { ...(patterns.length ? { patterns } : {}), ...(tokens.length ? { tokens } : {}) } };
}

/**
 * A grammar applied from the current position on (no triggers): used when the reasoning budget
 * runs out, with the deferred grammar (which starts with the reasoning end, so the model must
 * now write it) or with the grammar of what follows reasoning.
 *
 * @example
 * strictGrammar(params.grammar, undefined); // { gbnf }
 */
export function strictGrammar(gbnf: string | null, engine: string | undefined): GrammarOptions | undefined {
  if (gbnf === null) return undefined;
  return { gbnf, ...(engine === undefined ? {} : { engine }) };
}
