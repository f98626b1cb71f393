/**
 * A Vercel AI SDK language model (the `LanguageModelV3` interface of `@ai-sdk/provider`, an
 * optional peer dependency used for types only) over a loaded model's `chat()` and
 * `streamChat()`: text, reasoning, tool calls, tool choice and JSON output, streamed or not.
 */
import { basename } from "node:path";
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import type { ChatBackend } from "../openai/index.js";
import { AbortError } from "../runtime/index.js";
import type { ChatResult, ChatUsage, FinishReason } from "../session/index.js";
import { chatOptionsOf } from "./prompt.js";

/** Options of {@link toolwright}. */
export interface ToolwrightModelSettings {
  /** The model id the SDK reports. Default: the file's base name without ".gguf". */
  modelId?: string;
}

/** Only reasons of a call that ended: an aborted one throws ({@link abortedCall}), as a provider over fetch does. */
function finishOf(reason: Exclude<FinishReason, "abort">): LanguageModelV3FinishReason {
  return { unified: reason === "tool_calls" ? "tool-calls" : reason, raw: reason };
}

/**
 * What an aborted call throws: an AbortError (its `name` is "AbortError"), so the AI SDK and apps see
 * the abort as they see a fetch's, not as a finished answer.
 */
function abortedCall(signal: AbortSignal | undefined): AbortError {
  return new AbortError("toolwright: the call was aborted", { cause: signal?.reason });
}

function usageOf(u: ChatUsage): LanguageModelV3Usage {
  return {
    inputTokens: {
      total: u.promptTokens,
      noCache: u.promptTokens - u.cachedPromptTokens,
      cacheRead: u.cachedPromptTokens,
      cacheWrite: undefined,
    },
    outputTokens: { total: u.completionTokens, text: undefined, reasoning: undefined },
  };
}

function contentOf(result: ChatResult): LanguageModelV3Content[] {
  const m = result.message;
  const content: LanguageModelV3Content[] = [];
  if (m.reasoning_content) content.push({ type: "reasoning", text: m.reasoning_content });
  const text = typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text).join("");
  if (text !== "") content.push({ type: "text", text });
  for (const call of m.tool_calls ?? [])
    content.push({
      type: "tool-call",
      toolCallId: call.id,
      toolName: call.function.name,
      input: call.function.arguments,
    });
  return content;
}

/** The model object; use {@link toolwright} to make one. */
class ToolwrightLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = "v3" as const;
  readonly provider = "toolwright";
  readonly modelId: string;
  /** Images in files are read here (the SDK downloads web URLs itself and passes the bytes). */
  readonly supportedUrls: Record<string, RegExp[]> = { "image/*": [/^file:/i, /^data:/i] };
  readonly #model: ChatBackend;

  constructor(model: ChatBackend, settings: ToolwrightModelSettings) {
    this.#model = model;
    this.modelId = settings.modelId ?? (model.path ? basename(model.path).replace(/\.gguf$/i, "") : "toolwright");
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { chat, warnings } = chatOptionsOf(options);
    const result = await this.#model.chat(chat);
    if (result.finishReason === "abort") throw abortedCall(options.abortSignal);
    return {
      content: contentOf(result),
      finishReason: finishOf(result.finishReason),
      usage: usageOf(result.usage),
      warnings,
      response: { modelId: this.modelId, timestamp: new Date() },
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const { chat, warnings } = chatOptionsOf(options);
    const source = this.#model.streamChat(chat);
    const modelId = this.modelId;
    const iterator = source[Symbol.asyncIterator]();
    const calls = new Map<number, { id: string; name: string }>();
    let open: "text" | "reasoning" | null = null;
    let part = 0;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        controller.enqueue({ type: "stream-start", warnings });
        controller.enqueue({ type: "response-metadata", modelId, timestamp: new Date() });
      },
      // Reads source chunks until one gives the SDK a part: a pull that enqueues nothing is not
      // called again (a chunk with an empty delta, as an abort's last one, would stall the stream).
      async pull(controller) {
        let emitted = false;
        const emit = (streamPart: LanguageModelV3StreamPart) => {
          emitted = true;
          controller.enqueue(streamPart);
        };
        const close = () => {
          if (open) emit({ type: open === "text" ? "text-end" : "reasoning-end", id: `${open}-${part}` });
          open = null;
        };
        const switchTo = (kind: "text" | "reasoning") => {
          if (open === kind) return;
          close();
          open = kind;
          part++;
          emit({ type: kind === "text" ? "text-start" : "reasoning-start", id: `${kind}-${part}` });
        };
        try {
          while (!emitted) {
            const next = await iterator.next();
            if (next.done) {
              close();
              const result = await source.result;
              if (result.finishReason === "abort") {
                controller.error(abortedCall(options.abortSignal));
                return;
              }
              for (const [index, c] of calls) {
                emit({ type: "tool-input-end", id: c.id });
                const call = result.message.tool_calls?.[index];
                emit({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: call?.function.arguments ?? "" });
              }
              emit({ type: "finish", finishReason: finishOf(result.finishReason), usage: usageOf(result.usage) });
              controller.close();
              return;
            }
            const delta = next.value.choices[0].delta;
            if (delta.reasoning_content) {
              switchTo("reasoning");
              emit({ type: "reasoning-delta", id: `reasoning-${part}`, delta: delta.reasoning_content });
            }
            if (delta.content) {
              switchTo("text");
              emit({ type: "text-delta", id: `text-${part}`, delta: delta.content });
            }
            for (const t of delta.tool_calls ?? []) {
              let call = calls.get(t.index);
              if (!call && t.id !== undefined) {
                close();
                call = { id: t.id, name: t.function.name ?? "" };
                calls.set(t.index, call);
                emit({ type: "tool-input-start", id: call.id, toolName: call.name });
              }
              if (call && t.function.arguments)
                emit({ type: "tool-input-delta", id: call.id, delta: t.function.arguments });
            }
          }
        } catch (e) {
          controller.enqueue({ type: "error", error: e });
          controller.close();
        }
      },
      async cancel() {
        await iterator.return?.(undefined);
      },
    });
    return { stream };
  }
}

/**
 * A Vercel AI SDK model over a loaded toolwright model, for `generateText`, `streamText`,
 * `generateObject` and the rest: tools (with tool choice) and JSON output are held to their
 * schemas by toolwright's grammars; reasoning comes back as reasoning parts.
 *
 * @example
 * import { loadModel } from "toolwright";
 * import { toolwright } from "toolwright/ai-sdk";
 * // generateText from the "ai" package
 * const { text } = await generateText({ model: toolwright(await loadModel("model.gguf")), prompt: "Hi" });
 */
export function toolwright(model: ChatBackend, settings: ToolwrightModelSettings = {}): LanguageModelV3 {
  if (
    model === null ||
    typeof model !== "object" ||
    typeof model.chat !== "function" ||
    typeof model.streamChat !== "function"
  ) {
    throw new TypeError("toolwright: model must be a ChatModel (from loadModel) or a ChatSession");
  }
  if (settings.modelId !== undefined && (typeof settings.modelId !== "string" || settings.modelId === "")) {
    throw new TypeError(
      `toolwright: settings.modelId must be a non-empty string, got ${JSON.stringify(settings.modelId)}`,
    );
  }
  return new ToolwrightLanguageModel(model, settings);
}
