/**
 * The one place that decides which grammar a chat request generates under: from the built parser,
 * where the prompt leaves reasoning and whether the request asks for a JSON answer, a
 * {@link GrammarPlan} that the session carries out as it is.
 */
import type { WhitespacePolicy } from "../grammar/index.js";
import { type PegGbnfOptions, pegToGbnf } from "../peg/index.js";
import { core } from "./build-helpers.js";
import type { BuiltParser } from "./generic-parser.js";
import type { ReasoningPrefixState } from "./prompt.js";
import type { SpaceBound } from "./template-space.js";
import type { ChatGrammarTrigger, ChatParams, GrammarPlan } from "./types.js";

/**
 * Tool arguments and response_format answers hold only the properties their schema declares,
 * unless it allows more (`additionalProperties: true` or a schema): what users mean by a schema,
 * and what llama.cpp and OpenAI's strict mode do. Without it, a random or confused model may
 * spend its tokens inventing keys. (The converter's own default is JSON Schema's: allowed.)
 */
const CHAT_SCHEMA = { additionalProperties: false } as const;

const NONE: GrammarPlan = { kind: "none" };

/** What the plan depends on besides the parser. */
export interface GrammarPlanInput {
  /** Where the prompt leaves reasoning: "open" defers a strict grammar past it. */
  state: ReasoningPrefixState;
  /** Free whitespace bound of the template (template-space.ts). */
  space: SpaceBound;
  /** The request asks for a JSON answer (response_format). */
  jsonAnswer: boolean;
  /** How the template spells its calls' JSON (template-json-style.ts; default "flexible"). */
  json?: WhitespacePolicy;
}

const copyTriggers = (triggers: readonly ChatGrammarTrigger[]) => triggers.map((t) => ({ ...t }));

/** tool_choice auto: the call section, started by its trigger; none when no marker opens a call. */
function lazyPlan(built: BuiltParser, state: ReasoningPrefixState, options: PegGbnfOptions): GrammarPlan {
  try {
    const g = pegToGbnf(built.arena, built.lazyGrammarRoot ?? built.root, { ...options, lazy: true });
    const end = built.reasoningEnd;
    return {
      kind: "lazy",
      gbnf: g.grammar,
      triggers: copyTriggers(g.triggers),
      guard: state === "open" && end !== null ? core(end) : null,
    };
  } catch (e) {
    // No marker opens a call in this format: calls stay unconstrained under tool_choice auto.
    if (e instanceof RangeError) return NONE;
    throw e;
  }
}

/**
 * The grammar plan of a built parser.
 *
 * @example
 * const plan = planGrammar(built, { state: "none", space: CHAT_SPACE, jsonAnswer: false });
 * plan.kind; // "lazy" under tool_choice auto
 */
export function planGrammar(built: BuiltParser, input: GrammarPlanInput): GrammarPlan {
  const { state, space, jsonAnswer } = input;
  // A response_format answer was not taught by the template: its JSON keeps free whitespace.
  const options: PegGbnfOptions = { ...CHAT_SCHEMA, space, whitespace: jsonAnswer ? "flexible" : input.json };
  if (!built.constrained) return NONE;
  if (built.lazy) return lazyPlan(built, state, options);
  const p = built.arena;
  const body = built.grammarBody ?? built.body;
  const end = built.reasoningEnd;
  if (state === "open" && end !== null) {
    const after = p.rule("after-reasoning", p.seq(p.literal(end), p.space(), body), { trigger: { word: end } });
    const g = pegToGbnf(p, after, { ...options, lazy: true });
    return { kind: "after-reasoning", gbnf: g.grammar, triggers: copyTriggers(g.triggers), reasoningEnd: core(end) };
  }
  const g = pegToGbnf(p, state === "closed" ? body : (built.grammarRoot ?? built.root), options);
  // The model may open reasoning under a strict grammar: what follows it, for the reasoning budget.
  const afterReasoning = state === "none" && end !== null ? pegToGbnf(p, body, options).grammar : null;
  return {
    kind: "strict",
    gbnf: g.grammar,
    constrains: jsonAnswer ? "response-format" : "tool-calls",
    afterReasoning,
  };
}

/**
 * The flat grammar fields of {@link ChatParams}, as views of a plan.
 *
 * @example
 * grammarFields({ kind: "none" });
 * // { grammar: null, grammarLazy: false, grammarTriggers: [], grammarAfterReasoning: null }
 */
export function grammarFields(
  plan: GrammarPlan,
): Pick<ChatParams, "grammar" | "grammarLazy" | "grammarTriggers" | "grammarAfterReasoning"> {
  switch (plan.kind) {
    case "none":
      return { grammar: null, grammarLazy: false, grammarTriggers: [], grammarAfterReasoning: null };
    case "lazy":
    case "after-reasoning":
      return { grammar: plan.gbnf, grammarLazy: true, grammarTriggers: plan.triggers, grammarAfterReasoning: null };
    case "strict":
      return {
        grammar: plan.gbnf,
        grammarLazy: false,
        grammarTriggers: [],
        grammarAfterReasoning: plan.afterReasoning,
      };
  }
}
