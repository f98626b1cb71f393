/**
 * One model turn: render the prompt, tokenize it, generate with the grammar, and stream the
 * output through the chat parser. Prefix reuse is the context's: only the suffix after the
 * longest prefix shared with the KV cache is evaluated.
 */
import type { Context } from "../runtime/context.js";
import type { Generation, StopReason } from "../runtime/generation.js";
import type { GrammarOptions } from "../runtime/sampling.js";
import type { AssistantMessage, ChatMessage, FunctionDefinition } from "../types.js";
import { parametersJsonSchema } from "../chat/tool-schema.js";
import { ChatStreamParser } from "../chat/chat-parser.js";
import { generateChatParams } from "../chat/generate.js";
import type { ChatDelta, ChatParams } from "../chat/types.js";
import { fitPrompt } from "./context-fit.js";
import { chatGrammar, strictGrammar } from "./grammar.js";
import { ReasoningBudget } from "./reasoning-budget.js";
import type { PlannedChat } from "./options.js";
import type { PreparedTemplate } from "./template-cache.js";
import type { ChatTimings, ChatToolFunction, ChatUsage, FinishReason } from "./types.js";

/** What one turn produced. */
export interface StepOutcome {
  message: AssistantMessage;
  finishReason: FinishReason;
  usage: ChatUsage;
  timings: ChatTimings;
  params: ChatParams;
  /** Messages left out of the prompt to fit the context (contextOverflow "truncate-oldest"). */
  droppedMessages: number;
}

/** A tool's function as the chat layer takes it: `parameters` as JSON Schema (a schema library's converted). */
function jsonFunction(f: ChatToolFunction): FunctionDefinition {
  const { parameters, ...rest } = f;
  return parameters === undefined ? rest : { ...rest, parameters: parametersJsonSchema(parameters, "parameters") };
}

/** The chat request of one turn, with `execute` stripped from the tools (templates render them). */
export function paramsFor(
  plan: PlannedChat,
  prepared: PreparedTemplate,
  messages: ChatMessage[],
  firstTurn = true,
): ChatParams {
  const o = plan.options;
  return generateChatParams(prepared.analysis, prepared.template, {
    messages,
    ...(plan.tools.length
      ? { tools: plan.tools.map((t) => ({ type: "function" as const, function: jsonFunction(t.function) })) }
      : {}),
    ...(o.toolChoice !== undefined ? { toolChoice: o.toolChoice } : {}),
    ...(o.parallelToolCalls !== undefined ? { parallelToolCalls: o.parallelToolCalls } : {}),
    ...(o.responseFormat !== undefined ? { responseFormat: o.responseFormat } : {}),
    // A reasoning budget of 0 asks for no reasoning: templates that can turn it off do.
    ...(o.enableThinking !== undefined
      ? { enableThinking: o.enableThinking }
      : plan.reasoningBudget === 0
        ? { enableThinking: false }
        : {}),
    ...(o.maxToolCalls !== undefined ? { maxToolCalls: o.maxToolCalls } : {}),
    ...(o.extraContext !== undefined ? { extraContext: o.extraContext } : {}),
    ...(o.reasoningFormat !== undefined ? { reasoningFormat: o.reasoningFormat } : {}),
    // Only the first turn continues the caller's final message (later turns follow tool results).
    ...(firstTurn && o.continueFinalMessage !== undefined ? { continueFinalMessage: o.continueFinalMessage } : {}),
    ...(firstTurn && o.addGenerationPrompt !== undefined ? { addGenerationPrompt: o.addGenerationPrompt } : {}),
  });
}

function finishReasonOf(stop: StopReason | undefined, message: AssistantMessage): FinishReason {
  if (stop === "abort") return "abort";
  // Output cut off by maxTokens or a full context: "length" (a call left open is marked incomplete).
  if (stop === "maxTokens" || stop === "contextFull") return "length";
  if (message.tool_calls?.length) return "tool_calls";
  return "stop";
}

/** Whether the grammar is the deferred one, which starts by writing the reasoning end itself. */
function grammarStartsWithReasoningEnd(params: ChatParams): boolean {
  return (
    params.grammarLazy &&
    params.grammarTriggers.length === 1 &&
    params.grammarTriggers[0]!.type === "word" &&
    params.grammarTriggers[0]!.value === params.reasoningEnd
  );
}

/**
 * Runs one turn, yielding the parser's deltas as tokens arrive; returns the message and counts.
 *
 * @example
 * const it = runStep(context, plan, prepared, messages, performance.now());
 */
export async function* runStep(
  context: Context,
  plan: PlannedChat,
  prepared: PreparedTemplate,
  messages: ChatMessage[],
  startedAt: number,
  firstTurn = true,
): AsyncGenerator<ChatDelta, StepOutcome, undefined> {
  const model = context.model;
  const bos = model.specialTokens.bos >= 0 ? model.detokenize([model.specialTokens.bos]) : "";
  const render = async (list: ChatMessage[]) => {
    const rendered = paramsFor(plan, prepared, list, firstTurn);
    // Most templates write BOS themselves: do not add a second one.
    const addSpecial = !(bos !== "" && rendered.prompt.startsWith(bos));
    return { params: rendered, tokens: await model.tokenizeAsync(rendered.prompt, { addSpecial, parseSpecial: true }) };
  };
  // A prompt that does not fit fails, or loses its oldest turns (plan.contextOverflow); the
  // truncation leaves room for a quarter of the context or maxTokens, whichever is less.
  const fitted = await fitPrompt(messages, render, {
    contextSize: context.contextSize,
    reserve: Math.min(plan.maxTokens, Math.floor(context.contextSize / 4)),
    overflow: plan.contextOverflow ?? "error",
    where: plan.where,
    trainContextSize: model.info.trainContextSize,
  });
  const params = fitted.params;
  const prompt = fitted.tokens;
  const tokenize = (text: string) => model.tokenize(text, { addSpecial: false, parseSpecial: true });
  const grammar = plan.grammar ? chatGrammar(params, tokenize, plan.grammarEngine) : undefined;
  const stop = [...new Set([...params.additionalStops.filter((s) => s !== ""), ...plan.stop])];
  const parser = new ChatStreamParser(params);
  const usage: ChatUsage = { promptTokens: prompt.length, completionTokens: 0, totalTokens: 0, cachedPromptTokens: 0 };
  const generated: number[] = [];
  let genStart = performance.now();
  let firstAt: number | undefined;
  let stopReason: StopReason | undefined;

  const end = params.reasoningEnd;
  const budget = new ReasoningBudget(plan.reasoningBudget, {
    opener: params.reasoningStart,
    end,
    forcedOpen: params.thinkingForcedOpen,
  });
  let forced = false;

  const run = async function* (
    tokens: Int32Array,
    maxTokens: number,
    g: GrammarOptions | undefined,
  ): AsyncGenerator<ChatDelta, Generation> {
    const generation = context.generate({
      tokens,
      maxTokens,
      stop,
      ...(plan.options.sampling ? { sampling: plan.options.sampling } : {}),
      ...(g ? { grammar: g } : {}),
      ...(plan.signal ? { signal: plan.signal } : {}),
    });
    for await (const { token, text } of generation) {
      firstAt ??= performance.now();
      generated.push(token);
      const before = parser.text;
      if (text !== "") yield* parser.feed(text);
      if (!forced && budget.step(before, parser.text)) {
        // Out of budget: stop here (leaving the loop ends the generation); the caller closes reasoning.
        forced = true;
        break;
      }
    }
    return generation;
  };

  genStart = performance.now();
  // A budget of 0 closes forced-open reasoning before the first token.
  const closeAtOnce = budget.budget === 0 && params.thinkingForcedOpen;
  if (closeAtOnce) forced = true;
  else {
    const first = yield* run(prompt, plan.maxTokens, grammar);
    usage.cachedPromptTokens = first.stats.promptTokensReused;
    usage.completionTokens = first.stats.tokensGenerated;
    stopReason = first.stopReason;
  }
  if (forced && end !== null && usage.completionTokens < plan.maxTokens && !plan.signal?.aborted) {
    // Reasoning ran out of budget: close it and let the answer follow under the grammar of what follows reasoning.
    let tokens = Int32Array.from([...prompt, ...generated]);
    let g: GrammarOptions | undefined;
    if (plan.grammar && grammarStartsWithReasoningEnd(params)) g = strictGrammar(params.grammar, plan.grammarEngine);
    else {
      const marker = `${end}\n`;
      tokens = Int32Array.from([...tokens, ...model.tokenize(marker, { addSpecial: false, parseSpecial: true })]);
      yield* parser.feed(marker);
      if (!plan.grammar) g = undefined;
      else if (params.grammarLazy) g = chatGrammar(params, tokenize, plan.grammarEngine, { afterReasoning: true });
      else g = strictGrammar(params.grammarAfterReasoning ?? params.grammar, plan.grammarEngine);
    }
    const second = yield* run(tokens, plan.maxTokens - usage.completionTokens, g);
    if (closeAtOnce) usage.cachedPromptTokens = second.stats.promptTokensReused;
    usage.completionTokens += second.stats.tokensGenerated;
    stopReason = second.stopReason;
  } else if (forced && stopReason === undefined) {
    // Closed for lack of room: the budget met maxTokens.
    stopReason = plan.signal?.aborted ? "abort" : "maxTokens";
  }
  const truncated = stopReason === "maxTokens" || stopReason === "contextFull";
  // The arguments as generated, before the parser closes what is still open.
  const partial = truncated ? parser.message() : undefined;
  const open = new Set<number>();
  for (const delta of parser.finish()) {
    if (!truncated || delta.tool_calls === undefined) {
      yield delta;
      continue;
    }
    // Cut off: a call still open keeps its raw partial arguments (OpenAI's behaviour); the text
    // that would close it into JSON is not streamed. A call named only now is announced bare.
    const { tool_calls, ...rest } = delta;
    for (const t of tool_calls) open.add(t.index);
    const headers = tool_calls
      .filter((t) => t.id !== undefined)
      .map((t) => ({ ...t, function: { ...t.function, arguments: "" } }));
    if (headers.length > 0) yield { ...rest, tool_calls: headers };
    else if (Object.keys(rest).length > 0) yield rest;
  }
  const done = performance.now();
  const message = parser.message();
  if (open.size > 0 && message.tool_calls) {
    message.tool_calls = message.tool_calls.map((call, i) =>
      open.has(i)
        ? {
            ...call,
            function: { ...call.function, arguments: partial?.tool_calls?.[i]?.function.arguments ?? "" },
            incomplete: true,
          }
        : call,
    );
  }
  usage.totalTokens = usage.promptTokens + usage.completionTokens;
  const first_ = firstAt ?? done;
  const generationMs = done - first_;
  return {
    message,
    finishReason: finishReasonOf(stopReason, message),
    usage,
    timings: {
      promptMs: first_ - genStart,
      generationMs,
      firstTokenMs: first_ - startedAt,
      tokensPerSecond:
        usage.completionTokens > 1 && generationMs > 0 ? ((usage.completionTokens - 1) * 1000) / generationMs : 0,
    },
    params,
    droppedMessages: fitted.droppedMessages,
  };
}
