/**
 * The token loop of `Context.generate()`: the generation is submitted to the context's batch
 * scheduler (native/batch_scheduler.h), which runs it on one of the context's sequences (the only
 * one of a single-sequence context) alongside any others and reports each token through a
 * thread-safe function. This file turns those events into tokens, text, stop reasons and stats:
 * UTF-8-safe text, stop strings, abort.
 */
import type { NativeContext, NativeSampler, NativeSequenceEvent, NativeSequenceListener } from "./binding-types.js";
import type { MediaPrompt } from "./projector.js";
import type { GeneratedToken, GenerationHost, GenerationStats, StopReason } from "./generation.js";
import { callNative, disposedError, fromNativeError, isErrorCode } from "./errors.js";
import { StopStringFilter } from "./stop-strings.js";

/** What the sequence loop needs of its Generation's plan. */
export interface SequencePlan {
  prompt: string | undefined;
  tokens: Int32Array | undefined;
  media: MediaPrompt | undefined;
  addSpecial: boolean;
  maxTokens: number;
  stop: string[];
  signal: AbortSignal | undefined;
  reusePrefix: boolean;
  contextShift: boolean;
  deliverEvery: number;
}

/** Where the loop writes its outcome (the Generation's fields). */
export interface SequenceOutcome {
  readonly stats: GenerationStats;
  stop(reason: StopReason): void;
  /** Called once the request is submitted, with what ends it (for a reader that goes away unfinished). */
  submitted(cancel: () => void): void;
  /** Called once when the loop ends, however it ends; `completed`: it did not throw. */
  ended(completed: boolean): void;
}

/**
 * Tokens a request may run ahead of its reader before its sequence pauses: enough that the
 * reader's per-token work overlaps the next batches, few enough that a reader that stops reading
 * does not leave its sequence generating to maxTokens.
 */
export const READ_AHEAD = 16;

/**
 * Events of one request, in arrival order, awaited one at a time. Each token event taken is
 * reported to the scheduler (`onToken`), which pauses the request while its reader is
 * READ_AHEAD tokens behind.
 */
class EventQueue {
  readonly #events: NativeSequenceEvent[] = [];
  #head = 0;
  #tokens = 0;
  #wake: (() => void) | undefined;
  onToken: ((taken: number) => void) | undefined;
  /** The request's listener: each event into the queue (named parameters: no array made per token). */
  readonly listener: NativeSequenceListener = (first, piece, eog, passes, forced, drafted, accepted, dropped) =>
    this.push(sequenceEventOf(first, piece, eog, passes, forced, drafted, accepted, dropped));
  /** Token events taken so far. */
  get taken(): number {
    return this.#tokens;
  }
  push(event: NativeSequenceEvent): void {
    this.#events.push(event);
    this.#wake?.();
    this.#wake = undefined;
  }
  async next(): Promise<NativeSequenceEvent> {
    while (this.#head === this.#events.length) await new Promise<void>((resolve) => (this.#wake = resolve));
    const event = this.#events[this.#head++]!;
    if (this.#head === this.#events.length) {
      this.#events.length = 0;
      this.#head = 0;
    }
    if (event.type === "token") this.onToken?.(++this.#tokens);
    return event;
  }
}

/**
 * The event a {@link NativeSequenceListener} was called with: the start or end object as it is, a token's
 * fields as its object (made here, one shape for every token).
 *
 * @example
 * ctx.submit(sampler, tokens, {}, (...args) => events.push(sequenceEventOf(...args)));
 */
export function sequenceEventOf(
  first: NativeSequenceEvent | number,
  piece: string | Uint8Array = "",
  eog = false,
  passes = 0,
  forced = false,
  drafted = 0,
  accepted = 0,
  droppedForced = 0,
): NativeSequenceEvent {
  if (typeof first !== "number") return first;
  return { type: "token", token: first, piece, eog, passes, forced, drafted, accepted, droppedForced };
}

/** A submitted request: its context, id and events. */
interface Submitted {
  ctx: NativeContext;
  id: number;
  queue: EventQueue;
}

/** Checks and tokenizes the prompt and submits the request (undefined: aborted before it was submitted). */
async function submitRequest(
  host: GenerationHost,
  plan: SequencePlan,
  sampler: NativeSampler,
  out: SequenceOutcome,
): Promise<Submitted | undefined> {
  const ctx = host.native();
  if (plan.signal?.aborted) return undefined;
  const prompt = plan.tokens ?? (await host.tokenizePrompt(plan.prompt ?? "", plan.addSpecial));
  if (prompt.length === 0) throw new RangeError("generate: the prompt is empty (no tokens)");
  if (prompt.length > host.contextSize) {
    throw new RangeError(
      `generate: the prompt has ${prompt.length} tokens, more than the context size ${host.contextSize}`,
    );
  }
  if (ctx.disposed) throw disposedError("Context is disposed");
  out.stats.promptTokens = prompt.length;
  const queue = new EventQueue();
  const options = {
    maxTokens: Number.isFinite(plan.maxTokens) ? plan.maxTokens : -1,
    reusePrefix: plan.reusePrefix,
    shift: plan.contextShift,
    readAhead: READ_AHEAD,
    ...(plan.deliverEvery > 1 ? { groupTokens: plan.deliverEvery } : {}),
    ...(plan.media ? { media: plan.media.native } : {}),
  };
  const id = callNative(() => ctx.submit(sampler, prompt, options, queue.listener));
  queue.onToken = (taken) => ctx.consumed(id, taken);
  out.submitted(() => ctx.cancelRequest(id));
  return { ctx, id, queue };
}

/** The error a failed end event stands for, mapped like a thrown one (its code kept). */
function failure(ctx: NativeContext, event: { code?: string; message?: string }): unknown {
  if (ctx.disposed) return disposedError("Context.generate: the context was disposed during the generation");
  const code = event.code !== undefined && isErrorCode(event.code) ? event.code : "TOOLWRIGHT_INTERNAL";
  return fromNativeError(Object.assign(new Error(`generate: ${event.message ?? "the sequence failed"}`), { code }));
}

/** A token event's counts into the stats. */
function countToken(stats: GenerationStats, event: NativeSequenceEvent & { type: "token" }): void {
  stats.tokensGenerated++;
  if (event.forced) stats.forcedTokens++;
  stats.draftedTokens = event.drafted;
  stats.acceptedDraftTokens = event.accepted;
  stats.droppedForcedTokens = event.droppedForced;
  stats.forwardPasses = event.passes;
}

/**
 * Ended early (stop string, break, error): ends the request and waits until it has left its sequence, so the
 * stats and the slot are settled when the loop returns. Tokens drained here were never taken by the reader: the
 * cache keeps only those it took.
 */
async function endEarly({ ctx, id, queue }: Submitted): Promise<void> {
  queue.onToken = undefined;
  const taken = queue.taken;
  ctx.cancelRequest(id);
  let end: NativeSequenceEvent;
  do end = await queue.next();
  while (end.type !== "end");
  // It had ended on its own before the cancel came (its reader was behind to the end): cut the same way.
  if (end.reason !== undefined && end.reason !== "abort" && !ctx.disposed) ctx.trimUntaken(id, taken);
}

/**
 * Runs one generation on a free sequence of the context; yields like Generation does. `samplerOf` is called
 * first (it takes the context, see GenerationHost.acquire); the sampler is disposed at the end, then
 * `out.ended` runs (`completed` unless it threw). The Generation's iterator is this generator itself: no
 * generator delegates to it per token.
 */
export async function* runOnSequence(
  host: GenerationHost,
  plan: SequencePlan,
  samplerOf: () => NativeSampler,
  out: SequenceOutcome,
): AsyncGenerator<GeneratedToken, void, undefined> {
  let sampler: NativeSampler | undefined;
  let threw = false;
  try {
    sampler = samplerOf();
    const request = await submitRequest(host, plan, sampler, out);
    if (request === undefined) return out.stop("abort");
    const { ctx, queue } = request;
    let ended = false;
    const onAbort = () => ctx.cancelRequest(request.id);
    plan.signal?.addEventListener("abort", onAbort, { once: true });
    if (plan.signal?.aborted) onAbort(); // aborted while the prompt was tokenized
    const decoder = new TextDecoder("utf-8");
    const stops = new StopStringFilter(plan.stop);
    let lastToken = -1;
    try {
      for (;;) {
        const event = await queue.next();
        if (event.type === "start") {
          out.stats.sequence = event.sequence;
          out.stats.promptTokensReused = event.reused;
          out.stats.promptTokensShifted = event.shifted;
          out.stats.promptTokensEvaluated = event.evaluated;
          continue;
        }
        if (event.type === "end") {
          ended = true;
          if (event.reason === undefined) {
            if (event.code === "ABORT_ERR" && !ctx.disposed) return out.stop("abort");
            throw failure(ctx, event);
          }
          if (event.reason === "eog") return out.stop("eog");
          // maxTokens, contextFull or abort after the last token: what was held back is released.
          const rest = decoder.decode() + stops.flush();
          out.stop(event.reason);
          if (rest && event.reason !== "abort") yield { token: lastToken, text: rest };
          return;
        }
        // Tokens generated ahead of the reader before an abort or a dispose are not handed out.
        if (plan.signal?.aborted) return out.stop("abort");
        if (ctx.disposed) throw disposedError("Context.generate: the context was disposed during the generation");
        countToken(out.stats, event);
        lastToken = event.token;
        if (event.eog) {
          const rest = decoder.decode() + stops.flush();
          if (rest) yield { token: event.token, text: rest };
          continue; // the end event follows
        }
        const last = out.stats.tokensGenerated >= plan.maxTokens;
        const piece = event.piece;
        // A text piece follows no bytes the decoder holds (see NativeSequenceEvent): it is the text as it is.
        const decoded = typeof piece === "string" ? piece : decoder.decode(piece, { stream: !last });
        const { text, stopped } = stops.push(decoded);
        if (stopped) {
          out.stop("stop");
          yield { token: event.token, text };
          return;
        }
        yield { token: event.token, text: last ? text + stops.flush() : text };
      }
    } finally {
      plan.signal?.removeEventListener("abort", onAbort);
      if (!ended && !ctx.disposed) await endEarly(request);
    }
  } catch (e) {
    threw = true;
    throw e;
  } finally {
    sampler?.dispose();
    out.ended(!threw);
  }
}
