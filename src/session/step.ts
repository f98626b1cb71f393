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
import type { ChatDelta, ChatParams, ChatRequest } from "../chat/types.js";
import { fitPrompt } from "./context-fit.js";
import { TriggerWatch } from "./trigger-watch.js";
import { readImage } from "./images.js";
import { hasImages, type ImageSource, imagesToMarkers } from "../chat/media-parts.js";
import { MediaError, type MediaPrompt } from "../runtime/projector.js";
import { type CallRoom, requiredCallRoom } from "./call-room.js";
import { afterReasoningClosed, chatGrammar, strictGrammar } from "./grammar.js";
import { ReasoningBudget } from "./reasoning-budget.js";
import { FORWARDED_OPTIONS, type PlannedChat } from "./options.js";
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
  const request: Record<string, unknown> = { messages };
  // Options given as is, by chat()'s option table (only the first turn continues the caller's final message).
  for (const [key, forward] of FORWARDED_OPTIONS) {
    if (o[key] !== undefined && (forward === "each turn" || firstTurn)) request[key] = o[key];
  }
  if (plan.tools.length)
    request.tools = plan.tools.map((t) => ({ type: "function" as const, function: jsonFunction(t.function) }));
  // A reasoning budget of 0 asks for no reasoning: templates that can turn it off do.
  if (o.enableThinking !== undefined) request.enableThinking = o.enableThinking;
  else if (plan.reasoningBudget === 0) request.enableThinking = false;
  return generateChatParams(prepared.analysis, prepared.template, request as unknown as ChatRequest);
}

function finishReasonOf(stop: StopReason | undefined, message: AssistantMessage, cutCall: boolean): FinishReason {
  if (stop === "abort") return "abort";
  // Output cut off by maxTokens or a full context: "length" (a call it cut is content, or with streamCalls a call
  // kept as far as written; either way never run).
  if (stop === "maxTokens" || stop === "contextFull") return "length";
  // A call streamed as it was written and cut by a stop string is no finished call to run.
  if (message.tool_calls?.length && !cutCall) return "tool_calls";
  return "stop";
}

/** The state a turn's generations share: the parser, the tokens generated, the reasoning budget. */
interface Turn {
  context: Context;
  plan: PlannedChat;
  params: ChatParams;
  /** The prompt's tokens (image placeholders included). */
  prompt: Int32Array;
  /** The prompt's images, if it has any. */
  media: MediaPrompt | undefined;
  /** The prompt left old turns out: its kept turns may stay in the cache by a context shift. */
  shift: boolean;
  parser: ChatStreamParser;
  budget: ReasoningBudget;
  stop: string[];
  tokenize: (text: string) => Int32Array;
  generated: number[];
  usage: ChatUsage;
  firstAt: number | undefined;
  stopReason: StopReason | undefined;
  /** The budget ran out (or was 0 with reasoning forced open): the session closes reasoning. */
  forced: boolean;
  /** Output tokens by which reasoning closes so that a required call fits after it; undefined: no such limit. */
  closeBy: number | undefined;
}

/** Renders, tokenizes and fits the prompt of one turn (dropping old turns where the plan says so). */
async function fittedPrompt(
  context: Context,
  plan: PlannedChat,
  prepared: PreparedTemplate,
  messages: ChatMessage[],
  firstTurn: boolean,
) {
  const model = context.model;
  const bos = model.specialTokens.bos >= 0 ? model.detokenize([model.specialTokens.bos]) : "";
  const images = new Map<ImageSource, Promise<Uint8Array>>(); // read once, however often the prompt is fitted
  const mediaOf = new Map<Int32Array, MediaPrompt>(); // fitPrompt may render several times: each prompt's images
  const render = async (list: ChatMessage[]) => {
    const marked = hasImages(list)
      ? imagesToMarkers(list, markerOf(model, plan.where), `${plan.where}.messages`)
      : undefined;
    const rendered = paramsFor(plan, prepared, marked?.messages ?? list, firstTurn);
    // Most templates write BOS themselves: do not add a second one.
    const addSpecial = !(bos !== "" && rendered.prompt.startsWith(bos));
    if (marked === undefined || marked.images.length === 0) {
      return {
        params: rendered,
        tokens: await model.tokenizeAsync(rendered.prompt, { addSpecial, parseSpecial: true }),
      };
    }
    for (const source of marked.images) if (!images.has(source)) images.set(source, readImage(source));
    const bytes = await Promise.all(marked.images.map((source) => images.get(source) as Promise<Uint8Array>));
    const media = await model.tokenizeWithImages(rendered.prompt, bytes, { addSpecial, parseSpecial: true });
    mediaOf.set(media.tokens, media);
    return { params: rendered, tokens: media.tokens };
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
  return { ...fitted, media: mediaOf.get(fitted.tokens) };
}

/** The projector's image marker, or a MediaError when the model reads no images. */
function markerOf(model: Context["model"], where: string): string {
  const marker = model.projector?.marker;
  if (marker === undefined) {
    throw new MediaError(
      `${where}: the messages have images, but model "${model.path}" has no projector to read them: ` +
        `load it with loadModel(path, { projector: "mmproj….gguf" })`,
      "TOOLWRIGHT_NO_PROJECTOR",
    );
  }
  return marker;
}

/**
 * The room of the call the request requires; a maxTokens that cannot hold even the shortest call
 * fails here, before any token is generated.
 */
function checkedCallRoom(plan: PlannedChat, params: ChatParams, tokenize: (text: string) => Int32Array) {
  const room = requiredCallRoom(params, plan.options.toolChoice, tokenize);
  if (room !== null && plan.maxTokens < room.call) {
    throw new RangeError(
      `${plan.where}: options.maxTokens (${plan.maxTokens}) has no room for ${room.what}: ` +
        `the shortest one the grammar accepts takes ${room.call} tokens`,
    );
  }
  return room;
}

/**
 * Where reasoning must close so that a required call still fits after the reasoning end: before
 * the shortest call's tokens and, where maxTokens has them to spare, as many again (models write
 * whitespace and real values; the shortest call has neither), up to half of what is spare.
 */
function reasoningCloseBy(maxTokens: number, shortest: number): number {
  const spare = maxTokens - shortest;
  return spare - Math.min(shortest, Math.max(0, Math.floor(spare / 2)));
}

/**
 * Whether the turn's calls go out as they are written (streamChat's `streamCalls`): under a grammar
 * that holds every call the parser reads (a required call, or the answer after reasoning), the
 * model finishes each call it starts unless the output is cut.
 */
function streamsCalls(plan: PlannedChat, params: ChatParams): boolean {
  const g = params.grammarPlan;
  const constrained = g.kind === "after-reasoning" || (g.kind === "strict" && g.constrains === "tool-calls");
  return plan.streamCalls && plan.grammar && constrained;
}

/** Under tool choice auto, calls stream from where the lazy grammar takes over (`streamCalls`). */
function triggerWatchOf(turn: Turn, grammar: GrammarOptions | undefined): TriggerWatch | null {
  const { plan, params } = turn;
  if (!plan.streamCalls || grammar?.lazy === undefined || params.grammarPlan.kind !== "lazy") return null;
  return new TriggerWatch(grammar.lazy);
}

function withStreamedCalls(params: ChatParams): ChatParams {
  return { ...params, parser: { ...params.parser, mapping: { ...params.parser.mapping, streamCalls: true } } };
}

/** The shared state of a turn over a fitted prompt. */
function startTurn(
  context: Context,
  plan: PlannedChat,
  params: ChatParams,
  prompt: Int32Array,
  media: MediaPrompt | undefined,
  shift: boolean,
): Turn {
  const model = context.model;
  const tokenize = (text: string) => model.tokenize(text, { addSpecial: false, parseSpecial: true });
  const room: CallRoom | null = checkedCallRoom(plan, params, tokenize);
  const closeBy = room?.afterClose == null ? undefined : reasoningCloseBy(plan.maxTokens, room.afterClose);
  return {
    context,
    plan,
    params,
    prompt,
    media,
    shift,
    parser: new ChatStreamParser(streamsCalls(plan, params) ? withStreamedCalls(params) : params),
    budget: new ReasoningBudget(
      plan.reasoningBudget,
      { opener: params.reasoningStart, end: params.reasoningEnd, forcedOpen: params.thinkingForcedOpen },
      closeBy === undefined ? {} : { closeBy },
    ),
    stop: [...new Set([...params.additionalStops.filter((s) => s !== ""), ...plan.stop])],
    tokenize,
    generated: [],
    usage: {
      promptTokens: prompt.length,
      completionTokens: 0,
      totalTokens: 0,
      cachedPromptTokens: 0,
      evaluatedPromptTokens: prompt.length,
      shiftedPromptTokens: 0,
      forcedTokens: 0,
      draftedTokens: 0,
      acceptedDraftTokens: 0,
      droppedForcedTokens: 0,
    },
    firstAt: undefined,
    stopReason: undefined,
    forced: false,
    closeBy,
  };
}

/**
 * Tokens a generation read whole (chat(), not streamChat()) takes at a time (GenerateOptions.deliverEvery): a
 * stop string is then seen up to this many tokens late, and the tokens after it are made for nothing.
 */
const WHOLE_READ_GROUP = 8;

/** One generation into the turn's parser; stops early when the reasoning budget runs out. */
async function* generate(
  turn: Turn,
  tokens: Int32Array,
  maxTokens: number,
  grammar: GrammarOptions | undefined,
  contextShift = false,
): AsyncGenerator<ChatDelta, Generation> {
  const { plan, parser } = turn;
  const generation = turn.context.generate({
    tokens,
    ...(turn.media ? { media: turn.media } : {}),
    ...(contextShift ? { contextShift } : {}),
    maxTokens,
    stop: turn.stop,
    // A request read whole takes its tokens in groups (the JS thread wakes less often); not while a reasoning
    // budget counts, which stops the generation at a token of its own.
    ...(plan.streaming || !turn.budget.settled ? {} : { deliverEvery: WHOLE_READ_GROUP }),
    ...(plan.options.sampling ? { sampling: plan.options.sampling } : {}),
    ...(grammar ? { grammar } : {}),
    ...(plan.signal ? { signal: plan.signal } : {}),
  });
  const watch = triggerWatchOf(turn, grammar);
  const base = parser.fed;
  for await (const { token, text } of generation) {
    turn.firstAt ??= performance.now();
    turn.generated.push(token);
    // The output's text is read only while the budget counts (it is a copy of the whole output each time).
    const counts = !turn.forced && !turn.budget.settled;
    const before = counts ? parser.text : "";
    const from = watch?.push(token, text) ?? null;
    if (from !== null) parser.streamCallsFrom(base + from);
    // chat() takes the finished message: its deltas are not handed up the chain of generators token by token.
    if (text !== "") {
      const deltas = parser.feed(text);
      if (plan.streaming) yield* deltas;
    }
    if (counts && turn.budget.step(before, parser.text)) {
      // Out of budget: stop here (leaving the loop ends the generation); the caller closes reasoning.
      turn.forced = true;
      break;
    }
  }
  return generation;
}

/**
 * The grammar of the first generation: the plan's, or, where the model may open reasoning but a
 * required call leaves no room for even its opener, the grammar of what follows reasoning.
 */
function firstGrammar(turn: Turn): GrammarOptions | undefined {
  const { plan, params, closeBy } = turn;
  const g = params.grammarPlan;
  const opener = params.reasoningStart;
  if (g.kind === "strict" && g.afterReasoning !== null && closeBy !== undefined && opener !== null) {
    if (closeBy < turn.tokenize(opener).length) return strictGrammar(g.afterReasoning, plan.grammarEngine);
  }
  return chatGrammar(g, turn.tokenize, plan.grammarEngine);
}

/**
 * The first generation, under the plan's grammar. Returns false when there was none: a budget of
 * 0 (or no room before a required call) closes forced-open reasoning before the first token.
 */
async function* generateFirst(turn: Turn): AsyncGenerator<ChatDelta, boolean> {
  const { plan } = turn;
  if (turn.budget.closesAtOnce) {
    turn.forced = true;
    return false;
  }
  const grammar = plan.grammar ? firstGrammar(turn) : undefined;
  const first = yield* generate(turn, turn.prompt, plan.maxTokens, grammar, turn.shift);
  promptUsage(turn.usage, first);
  turn.usage.completionTokens = first.stats.tokensGenerated;
  turn.usage.forcedTokens = first.stats.forcedTokens;
  turn.usage.draftedTokens = first.stats.draftedTokens;
  turn.usage.acceptedDraftTokens = first.stats.acceptedDraftTokens;
  turn.usage.droppedForcedTokens = first.stats.droppedForcedTokens;
  turn.stopReason = first.stopReason;
  return true;
}

/**
 * Reasoning ran out of budget: close it and let the answer follow under the grammar of what
 * follows reasoning (or, without room left, end the turn).
 */
async function* closeReasoning(turn: Turn, generatedFirst: boolean): AsyncGenerator<ChatDelta, void> {
  const { plan, params, usage } = turn;
  const end = params.reasoningEnd;
  if (end === null || usage.completionTokens >= plan.maxTokens || plan.signal?.aborted) {
    // Closed for lack of room: the budget met maxTokens.
    if (turn.stopReason === undefined) turn.stopReason = plan.signal?.aborted ? "abort" : "maxTokens";
    return;
  }
  const next = plan.grammar
    ? afterReasoningClosed(params.grammarPlan, end, turn.tokenize, plan.grammarEngine)
    : { marker: `${end}\n`, grammar: undefined };
  let tokens = Int32Array.from([...turn.prompt, ...turn.generated]);
  if (next.marker !== "") {
    tokens = Int32Array.from([...tokens, ...turn.tokenize(next.marker)]);
    yield* turn.parser.feed(next.marker);
  }
  const room = plan.maxTokens - usage.completionTokens;
  const second = yield* generate(turn, tokens, room, next.grammar, !generatedFirst && turn.shift);
  if (!generatedFirst) promptUsage(usage, second);
  usage.completionTokens += second.stats.tokensGenerated;
  usage.forcedTokens += second.stats.forcedTokens;
  usage.draftedTokens += second.stats.draftedTokens;
  usage.acceptedDraftTokens += second.stats.acceptedDraftTokens;
  usage.droppedForcedTokens += second.stats.droppedForcedTokens;
  turn.stopReason = second.stopReason;
}

/** The prompt's share of a turn's usage, from the generation that evaluated it. */
function promptUsage(usage: ChatUsage, generation: Generation): void {
  usage.cachedPromptTokens = generation.stats.promptTokensReused;
  usage.evaluatedPromptTokens = generation.stats.promptTokensEvaluated;
  usage.shiftedPromptTokens = generation.stats.promptTokensShifted;
}

/** The turn's timings, from the call (`startedAt`), the start of generation and its first token. */
function timingsOf(turn: Turn, startedAt: number, genStart: number, done: number): ChatTimings {
  const first = turn.firstAt ?? done;
  const generationMs = done - first;
  const n = turn.usage.completionTokens;
  return {
    promptMs: first - genStart,
    generationMs,
    firstTokenMs: first - startedAt,
    tokensPerSecond: n > 1 && generationMs > 0 ? ((n - 1) * 1000) / generationMs : 0,
  };
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
  const fitted = await fittedPrompt(context, plan, prepared, messages, firstTurn);
  // The prompt left its oldest turns out: the turns after them may stay in the KV cache, shifted.
  const shift = fitted.droppedMessages > 0;
  const turn = startTurn(context, plan, fitted.params, fitted.tokens, fitted.media, shift);
  const genStart = performance.now();
  const generatedFirst = yield* generateFirst(turn);
  if (turn.forced) yield* closeReasoning(turn, generatedFirst);
  // A call the output stops inside (maxTokens, a full context, the end of sequence) is no call: the
  // parser gives its text as content (chat-parser.ts), so it is never run.
  yield* turn.parser.finish();
  const done = performance.now();
  const message = turn.parser.message();
  turn.usage.totalTokens = turn.usage.promptTokens + turn.usage.completionTokens;
  return {
    message,
    finishReason: finishReasonOf(turn.stopReason, message, turn.parser.cutCall),
    usage: turn.usage,
    timings: timingsOf(turn, startedAt, genStart, done),
    params: fitted.params,
    droppedMessages: fitted.droppedMessages,
  };
}
