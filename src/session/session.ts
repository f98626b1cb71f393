/**
 * `ChatSession`: chat requests on one model, through one context, so consecutive turns of a
 * conversation reuse the KV cache (only the new suffix of the prompt is evaluated). Requests on
 * a session run one after another, or at once when its context has several sequences
 * (`context: { sequences: N }`): up to N decode together, each reusing the prefix of the sequence
 * it lands on.
 */
import type { Context } from "../runtime/context.js";
import type { Model } from "../runtime/model.js";
import type { SavedStateInfo, StateOptions } from "../runtime/saved-state.js";
import type { AssistantMessage, ChatMessage, ToolCall, ToolMessage } from "../types.js";
import { checkSessionOptions, planChat, type PlannedChat } from "./options.js";
import { checkResponseFormat } from "./response-format.js";
import { runStep, type StepOutcome } from "./step.js";
import { preparedTemplate } from "./template-cache.js";
import { canExecuteAll, checkToolArguments, executeToolCalls } from "./tools.js";
import type {
  ChatChunk,
  ChatOptions,
  ChatResult,
  ChatSessionOptions,
  ChatStep,
  ChatTool,
  ChatUsage,
  ToolCallError,
} from "./types.js";

/** A streamed request: iterate it for chunks; `result` settles when it ends. */
export interface ChatStream extends AsyncIterable<ChatChunk> {
  /** The same result `chat()` would have returned. */
  readonly result: Promise<ChatResult>;
}

type Event = { type: "delta"; step: number; chunk: ChatChunk };

/**
 * Chat requests on a model through one KV cache.
 *
 * @example
 * const session = new ChatSession(model);
 * const r1 = await session.chat({ messages: [{ role: "user", content: "Hi" }] });
 * const r2 = await session.chat({
 *   messages: [{ role: "user", content: "Hi" }, r1.message, { role: "user", content: "More" }],
 * });
 * r2.usage.cachedPromptTokens; // most of the first prompt
 *
 * const parallel = new ChatSession(model, { context: { sequences: 4 } });
 * const answers = await Promise.all(questions.map((q) => parallel.chat({ messages: [{ role: "user", content: q }] })));
 */
export class ChatSession {
  readonly model: Model;
  readonly #options: ChatSessionOptions;
  #context: Promise<Context> | undefined;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(model: Model, options: ChatSessionOptions = {}) {
    if (model === null || typeof model !== "object" || typeof model.createContext !== "function") {
      throw new TypeError("ChatSession: model must be a Model (from loadModel)");
    }
    checkSessionOptions(options);
    this.model = model;
    this.#options = options;
  }

  /**
   * Runs a chat request to the end (and the tool runner, when tools have `execute`).
   *
   * @example
   * const { message, finishReason, usage } = await session.chat({
   *   messages: [{ role: "user", content: "Weather in Paris?" }],
   *   tools: [{
   *     type: "function",
   *     function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
   *     execute: async ({ city }) => ({ city, temperature: 21 }),
   *   }],
   * });
   */
  async chat(options: ChatOptions): Promise<ChatResult> {
    const plan = planChat(options, "chat");
    return this.#turn(async () => {
      const it = this.#run(plan);
      for (;;) {
        const next = await it.next();
        if (next.done) return next.value;
      }
    });
  }

  /**
   * Runs a chat request and streams it as OpenAI-style chunks.
   *
   * @example
   * const stream = session.streamChat({ messages });
   * for await (const chunk of stream) process.stdout.write(chunk.choices[0].delta.content ?? "");
   * const { usage } = await stream.result;
   */
  streamChat(options: ChatOptions): ChatStream {
    const plan = planChat(options, "streamChat", true);
    let settle!: { resolve: (r: ChatResult) => void; reject: (e: unknown) => void };
    const result = new Promise<ChatResult>((resolve, reject) => (settle = { resolve, reject }));
    result.catch(() => undefined); // the iterator rethrows; an unread result must not be unhandled
    const self = this;
    let started = false;
    return {
      result,
      [Symbol.asyncIterator]() {
        if (started) throw new Error("streamChat: a stream can be iterated only once");
        started = true;
        return (async function* () {
          let release!: () => void;
          const turn = new Promise<void>((r) => (release = r));
          if (!self.#parallel) {
            const previous = self.#tail;
            self.#tail = previous.then(() => turn);
            await previous.catch(() => undefined);
          }
          const it = self.#run(plan);
          try {
            for (;;) {
              const next = await it.next();
              if (next.done) {
                settle.resolve(next.value);
                return;
              }
              yield next.value.chunk;
            }
          } catch (e) {
            settle.reject(e);
            throw e;
          } finally {
            // The consumer may stop early (break): end the generation so the context is free.
            await it.return(undefined as never).catch(() => undefined);
            settle.reject(new Error("streamChat: the stream was not read to the end"));
            release();
          }
        })();
      },
    };
  }

  /**
   * Writes the session's cache (the conversation of its latest request: prompt and answer) to `path`, after
   * the requests before it. A later session restores it with {@link ChatSession.restore} and its next request
   * whose prompt starts the same way (the same system prompt, the same earlier turns) evaluates only what is new.
   * Throws a TOOLWRIGHT_CONTEXT_BUSY error while a request of a parallel session runs on that sequence.
   * `options.sequence` picks the sequence of a parallel session (default: that of its latest request).
   *
   * @example
   * import { ChatSession, loadModel } from "toolwright";
   * const model = await loadModel("model.gguf");
   * const session = new ChatSession(model);
   * await session.chat({ messages: [{ role: "system", content: longInstructions }, { role: "user", content: "Hi" }] });
   * await session.save("assistant.state");
   */
  async save(path: string, options: StateOptions = {}): Promise<SavedStateInfo> {
    return this.#turn(async () => {
      const context = await this.#context?.catch(() => undefined);
      if (!context || context.disposed)
        throw new RangeError("ChatSession.save: nothing to save: no request has run on this session yet");
      return context.saveState(path, options);
    });
  }

  /**
   * Restores a cache {@link ChatSession.save} wrote (from a session of the same model, LoRA adapters and
   * `context.sequences`) into this session's context, after the requests before it: the next request whose
   * prompt starts with the saved conversation reuses it instead of evaluating it. Throws a
   * {@link SavedStateError} naming the path and what is wrong (another model, a truncated or corrupt file).
   * `options.sequence` picks the sequence of a parallel session (default: the free one least recently used).
   *
   * @example
   * import { ChatSession, loadModel } from "toolwright";
   * const model = await loadModel("model.gguf");
   * const session = new ChatSession(model);
   * await session.restore("assistant.state");
   * const system = { role: "system", content: longInstructions } as const;
   * const r = await session.chat({ messages: [system, { role: "user", content: "Hi" }] });
   * r.usage.cachedPromptTokens; // the whole saved prompt
   */
  async restore(path: string, options: StateOptions = {}): Promise<SavedStateInfo> {
    return this.#turn(async () => {
      const context = await this.#contextFor({ contextSize: undefined, allowBeyondTraining: false });
      return context.loadState(path, options);
    });
  }

  /**
   * Creates the session's context now, after the requests before it: the first request then does not wait for
   * it, and a context that does not fit (memory, `contextSize`) fails here rather than in a request, with the
   * same error. Optional: the first request creates the context otherwise. `toolwright serve` calls it before it
   * listens.
   *
   * @example
   * import { ChatSession, loadModel } from "toolwright";
   * const model = await loadModel("model.gguf");
   * const session = new ChatSession(model, { context: { sequences: 4 } });
   * await session.prepare();
   */
  async prepare(): Promise<void> {
    await this.#turn(() => this.#contextFor({ contextSize: undefined, allowBeyondTraining: false }));
  }

  /** Frees the session's context (the model stays loaded). */
  dispose(): void {
    const context = this.#context;
    this.#context = undefined;
    void context?.then((c) => c.dispose()).catch(() => undefined);
  }

  /** Its context runs several sequences: requests run at once instead of one after another. */
  get #parallel(): boolean {
    return (this.#options.context?.sequences ?? 1) > 1;
  }

  /** Runs `work` after the requests before it, or at once on a parallel context. */
  #turn<T>(work: () => Promise<T>): Promise<T> {
    return this.#parallel ? work() : this.#exclusive(work);
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#tail.catch(() => undefined).then(work);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /**
   * The session's context: kept while a request asks for no size (or "auto") or for the size it
   * has; a request asking for another size gets a new context (and an empty cache).
   */
  async #contextFor(plan: Pick<PlannedChat, "contextSize" | "allowBeyondTraining">): Promise<Context> {
    const asked = plan.contextSize;
    if (this.#context) {
      const c = await this.#context.catch(() => undefined);
      const sameSize = asked === undefined || asked === "auto" || c?.contextSize === Math.ceil(asked / 256) * 256;
      if (c && !c.disposed && sameSize) return c;
      c?.dispose();
    }
    const options = {
      ...this.#options.context,
      ...(asked !== undefined ? { contextSize: asked } : {}),
      ...(plan.allowBeyondTraining ? { allowBeyondTraining: true } : {}),
    };
    this.#context = this.model.createContext(options);
    return this.#context;
  }

  async *#run(plan: PlannedChat): AsyncGenerator<Event, ChatResult, undefined> {
    const startedAt = performance.now();
    const model = this.model;
    const source = plan.options.template ?? model.chatTemplate;
    if (source === null) throw new RangeError("chat: the model has no chat template; pass options.template");
    const tokenText = (id: number) => (id >= 0 ? model.detokenize([id]) : "");
    const prepared = preparedTemplate(source, tokenText(model.specialTokens.bos), tokenText(model.specialTokens.eos));
    const context = await this.#contextFor(plan);
    const messages: ChatMessage[] = [...plan.options.messages];
    const added: (AssistantMessage | ToolMessage)[] = [];
    const steps: ChatStep[] = [];
    for (let index = 0; ; index++) {
      const stepPlan = {
        ...plan,
        grammarEngine: plan.grammarEngine ?? this.#options.grammarEngine,
        contextOverflow: plan.contextOverflow ?? this.#options.contextOverflow,
      };
      const it = runStep(
        context,
        stepPlan,
        prepared,
        messages,
        index === 0 ? startedAt : performance.now(),
        index === 0,
      );
      let outcome: StepOutcome;
      let first = true;
      try {
        for (;;) {
          const next = await it.next();
          if (next.done) {
            outcome = next.value;
            break;
          }
          if (!plan.streaming) continue;
          const delta = first ? { role: "assistant" as const, ...next.value } : next.value;
          first = false;
          yield {
            type: "delta",
            step: index,
            chunk: { choices: [{ index: 0, delta, finish_reason: null }], step: index },
          };
        }
      } finally {
        await it.return(undefined as never).catch(() => undefined);
      }
      const message = outcome.message;
      // A continued message replaces the caller's final message it continues.
      if (outcome.params.continuesFinalMessage) messages[messages.length - 1] = message;
      else messages.push(message);
      added.push(message);
      const step: ChatStep = {
        message,
        finishReason: outcome.finishReason,
        usage: outcome.usage,
        timings: outcome.timings,
        toolMessages: [],
        toolErrors: [],
        droppedMessages: outcome.droppedMessages,
      };
      steps.push(step);
      const calls = message.tool_calls ?? [];
      const runTools =
        outcome.finishReason === "tool_calls" && index + 1 < plan.maxSteps && canExecuteAll(calls, plan.tools);
      if (runTools) {
        const run = await executeToolCalls(calls, plan.tools, plan.signal);
        step.toolMessages = run.messages;
        step.toolErrors = run.errors;
      } else step.toolErrors = cutOffCalls(calls, plan.tools);
      yield {
        type: "delta",
        step: index,
        chunk: {
          choices: [{ index: 0, delta: {}, finish_reason: outcome.finishReason }],
          step: index,
          usage: outcome.usage,
          timings: outcome.timings,
          ...(runTools ? { toolMessages: step.toolMessages } : {}),
          ...(step.toolErrors.length > 0 ? { toolErrors: step.toolErrors } : {}),
        },
      };
      if (!runTools || plan.signal?.aborted) {
        const finishReason = plan.signal?.aborted ? "abort" : outcome.finishReason;
        const responseFormatError = checkResponseFormat(message, plan.options.responseFormat);
        return {
          message,
          finishReason,
          usage: sumUsage(steps),
          timings: outcome.timings,
          steps,
          messages: added,
          toolErrors: steps.flatMap((s) => s.toolErrors),
          droppedMessages: Math.max(...steps.map((s) => s.droppedMessages)),
          ...(responseFormatError ? { responseFormatError } : {}),
        };
      }
      messages.push(...step.toolMessages);
      added.push(...step.toolMessages);
    }
  }
}

/** Calls cut off by maxTokens to tools the runner would have executed: reported, never run. */
function cutOffCalls(calls: readonly ToolCall[], tools: readonly ChatTool[]): ToolCallError[] {
  const errors: ToolCallError[] = [];
  calls.forEach((call, index) => {
    const tool = tools.find((t) => t.function.name === call.function.name);
    if (!call.incomplete || !tool?.execute) return;
    const checked = checkToolArguments(call, tool);
    if (!checked.ok)
      errors.push({ index, toolCallId: call.id, name: call.function.name, kind: "incomplete", error: checked.error });
  });
  return errors;
}

function sumUsage(steps: readonly ChatStep[]): ChatUsage {
  const u: ChatUsage = {
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    cachedPromptTokens: 0,
    evaluatedPromptTokens: 0,
    shiftedPromptTokens: 0,
    forcedTokens: 0,
    draftedTokens: 0,
    acceptedDraftTokens: 0,
    droppedForcedTokens: 0,
  };
  for (const s of steps) {
    u.promptTokens += s.usage.promptTokens;
    u.completionTokens += s.usage.completionTokens;
    u.totalTokens += s.usage.totalTokens;
    u.cachedPromptTokens += s.usage.cachedPromptTokens;
    u.evaluatedPromptTokens += s.usage.evaluatedPromptTokens;
    u.shiftedPromptTokens += s.usage.shiftedPromptTokens;
    u.forcedTokens += s.usage.forcedTokens;
    u.draftedTokens += s.usage.draftedTokens;
    u.acceptedDraftTokens += s.usage.acceptedDraftTokens;
    u.droppedForcedTokens += s.usage.droppedForcedTokens;
  }
  return u;
}
