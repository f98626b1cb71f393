/**
 * The Vercel AI SDK's call options (LanguageModelV3) → `model.chat()` options: the prompt
 * becomes OpenAI-shaped messages, tools and tool choice map one to one, JSON output becomes a
 * response format. Settings toolwright cannot honour come back as warnings, as the SDK expects.
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
  SharedV3Warning,
} from "@ai-sdk/provider";
import type { ChatOptions, ChatTool } from "../session/index.js";
import type { SamplingOptions } from "../runtime/index.js";
import type { AssistantMessage, ChatMessage, ImagePart, ImageUrlPart, ToolChoice, UserMessage } from "../types.js";
import { ChatCompletionError } from "../openai/index.js";

/** Options of the provider's own, under `providerOptions.toolwright`. */
export interface ToolwrightProviderOptions {
  /** Sets the template's `enable_thinking` (or the variable that does the same, see ChatRequest). */
  enableThinking?: boolean;
  /** Most tokens of reasoning (see `ChatOptions.reasoningBudget`). */
  reasoningBudget?: number;
}

const unsupportedFile = (where: string, what: string) =>
  new ChatCompletionError(
    `toolwright/ai-sdk: ${where} has a file part (${what}): toolwright reads images in user messages only`,
    {
      openaiCode: "unsupported_parameter",
    },
  );

type UserPart = LanguageModelV3Prompt[number] & { role: "user" } extends { content: (infer P)[] } ? P : never;

/** A user message's file part as an image part: bytes, base64 data or a URL (a file: URL or a data URL). */
function imagePartOf(p: UserPart & { type: "file" }, where: string): ImagePart | ImageUrlPart {
  if (!p.mediaType.startsWith("image/")) throw unsupportedFile(where, p.mediaType);
  if (p.data instanceof Uint8Array) return { type: "image", image: p.data };
  if (p.data instanceof URL) return { type: "image_url", image_url: { url: p.originalUrl ?? p.data.href } };
  const mediaType = p.mediaType === "image/*" ? "image/png" : p.mediaType;
  return { type: "image_url", image_url: { url: `data:${mediaType};base64,${p.data}` } };
}

/** A user message's content: its text, or text and image parts when it has files. */
function userContentOf(parts: readonly UserPart[], where: string): UserMessage["content"] {
  if (!parts.some((p) => p.type === "file")) return parts.map((p) => (p.type === "text" ? p.text : "")).join("");
  return parts.map((p) => (p.type === "file" ? imagePartOf(p, where) : { type: "text" as const, text: p.text }));
}

function toolOutputText(output: LanguageModelV3ToolResultOutput): string {
  switch (output.type) {
    case "text":
    case "error-text":
      return output.value;
    case "json":
    case "error-json":
      return JSON.stringify(output.value);
    case "execution-denied":
      return `Execution denied${output.reason ? `: ${output.reason}` : ""}`;
    case "content":
      return output.value.map((p) => (p.type === "text" ? p.text : "")).join("");
  }
}

/** The AI SDK prompt as OpenAI-shaped chat messages. */
export function messagesOf(prompt: LanguageModelV3Prompt): ChatMessage[] {
  const out: ChatMessage[] = [];
  prompt.forEach((m, i) => {
    switch (m.role) {
      case "system":
        out.push({ role: "system", content: m.content });
        return;
      case "user":
        out.push({ role: "user", content: userContentOf(m.content, `prompt[${i}]`) });
        return;
      case "assistant": {
        const message: AssistantMessage = { role: "assistant", content: "" };
        let text = "";
        let reasoning = "";
        for (const p of m.content) {
          if (p.type === "text") text += p.text;
          else if (p.type === "reasoning") reasoning += p.text;
          else if (p.type === "tool-call") {
            (message.tool_calls ??= []).push({
              id: p.toolCallId,
              type: "function",
              function: {
                name: p.toolName,
                arguments: typeof p.input === "string" ? p.input : JSON.stringify(p.input),
              },
            });
          } else if (p.type === "file") throw unsupportedFile(`prompt[${i}]`, `${p.mediaType} in an assistant message`);
        }
        message.content = text === "" && message.tool_calls ? null : text;
        if (reasoning !== "") message.reasoning_content = reasoning;
        out.push(message);
        return;
      }
      case "tool":
        for (const p of m.content) {
          if (p.type === "tool-result")
            out.push({ role: "tool", tool_call_id: p.toolCallId, name: p.toolName, content: toolOutputText(p.output) });
        }
        return;
    }
  });
  return out;
}

/** Call options → chat options, and the warnings for what was left out. */
export function chatOptionsOf(options: LanguageModelV3CallOptions): { chat: ChatOptions; warnings: SharedV3Warning[] } {
  const warnings: SharedV3Warning[] = [];
  const tools: ChatTool[] = [];
  for (const t of options.tools ?? []) {
    if (t.type !== "function") {
      warnings.push({
        type: "unsupported",
        feature: `provider tool ${t.id}`,
        details: "toolwright runs function tools only",
      });
      continue;
    }
    tools.push({
      type: "function",
      function: {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        parameters: t.inputSchema as Record<string, unknown>,
        ...(t.strict !== undefined ? { strict: t.strict } : {}),
      },
    });
  }
  let toolChoice: ToolChoice | undefined;
  const choice = options.toolChoice;
  if (choice?.type === "tool") toolChoice = { type: "function", function: { name: choice.toolName } };
  else if (choice) toolChoice = choice.type;

  const sampling: SamplingOptions = {};
  if (options.temperature !== undefined) sampling.temperature = options.temperature;
  if (options.topP !== undefined) sampling.topP = options.topP;
  if (options.topK !== undefined) sampling.topK = options.topK;
  if (options.presencePenalty !== undefined) sampling.presencePenalty = options.presencePenalty;
  if (options.frequencyPenalty !== undefined) sampling.frequencyPenalty = options.frequencyPenalty;
  if (options.seed !== undefined) sampling.seed = ((options.seed % 0xffffffff) + 0xffffffff) % 0xffffffff;

  const format = options.responseFormat;
  const own = (options.providerOptions?.toolwright ?? {}) as ToolwrightProviderOptions;
  const chat: ChatOptions = {
    messages: messagesOf(options.prompt),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice !== undefined && tools.length > 0 ? { toolChoice } : {}),
    ...(format?.type === "json"
      ? {
          responseFormat: format.schema
            ? {
                type: "json_schema",
                json_schema: {
                  ...(format.name ? { name: format.name } : {}),
                  schema: format.schema as Record<string, unknown>,
                },
              }
            : { type: "json_object" },
        }
      : {}),
    ...(Object.keys(sampling).length > 0 ? { sampling } : {}),
    ...(options.maxOutputTokens !== undefined ? { maxTokens: options.maxOutputTokens } : {}),
    ...(options.stopSequences?.length ? { stop: options.stopSequences } : {}),
    ...(options.abortSignal ? { signal: options.abortSignal } : {}),
    ...(own.enableThinking !== undefined ? { enableThinking: own.enableThinking } : {}),
    ...(own.reasoningBudget !== undefined ? { reasoningBudget: own.reasoningBudget } : {}),
  };
  return { chat, warnings };
}
