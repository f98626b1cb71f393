/**
 * Rendering the prompt of a chat request, and finding what of it the model's output continues.
 */
import type { ReasoningAnalysis } from "../analysis/index.js";
import type { ChatTemplate } from "../template/index.js";
import type { ChatMessage, ToolDefinition } from "../types.js";
import { textOf } from "./request.js";
import type { ChatRequest } from "./types.js";

/** The rendered prompt and its generation prompt. */
export interface RenderedPrompt {
  prompt: string;
  /** What `add_generation_prompt` appends (the text the output directly continues). */
  generationPrompt: string;
}

/**
 * Renders the request with the generation prompt, and once without to tell the generation
 * prompt apart (the templates append it at the very end).
 *
 * @example
 * renderPrompt(template, request).generationPrompt; // "<|im_start|>assistant\n<think>\n"
 */
export function renderPrompt(
  template: ChatTemplate,
  request: ChatRequest,
  messages: ChatMessage[] = request.messages,
  addGenerationPrompt = true,
): RenderedPrompt {
  const input = {
    messages,
    tools: request.tools && request.tools.length > 0 ? request.tools.map(describedTool) : undefined,
    enableThinking: request.enableThinking,
    extraContext: request.extraContext,
  };
  const without = template.render({ ...input, addGenerationPrompt: false });
  if (!addGenerationPrompt) return { prompt: without, generationPrompt: "" };
  const prompt = template.render({ ...input, addGenerationPrompt: true });
  let i = 0;
  const n = Math.min(prompt.length, without.length);
  while (i < n && prompt.charCodeAt(i) === without.charCodeAt(i)) i++;
  return { prompt, generationPrompt: prompt.slice(i) };
}

/**
 * The tool as templates get it: a description the request leaves out is "", as llama.cpp's server passes tools
 * (templates that write `description | tojson` fail on an undefined one, as Python's Jinja2 does).
 */
function describedTool(tool: ToolDefinition): ToolDefinition {
  const fn = tool.function;
  return fn.description === undefined ? { ...tool, function: { ...fn, description: "" } } : tool;
}

/** Where the prompt leaves reasoning: not started by it, opened (forced open), or opened and closed. */
export type ReasoningPrefixState = "none" | "open" | "closed";

/**
 * The end of the generation prompt from the reasoning opener on (e.g. "<think>\n"), which the
 * parser reads before the output so that forced-open (or pre-closed) reasoning parses like
 * reasoning the model opened itself.
 *
 * @example
 * reasoningPrefix("<|im_start|>assistant\n<think>\n", { mode: "TAG_BASED", start: "<think>\n", end: "</think>" });
 * // { prefix: "<think>\n", state: "open" }
 */
export function reasoningPrefix(
  generationPrompt: string,
  reasoning: ReasoningAnalysis,
): { prefix: string; state: ReasoningPrefixState } {
  const start = reasoning.start.trim();
  const end = reasoning.end.trim();
  if (reasoning.mode === "NONE" || end === "") return { prefix: "", state: "none" };
  if (start === "") {
    // Delimiter-style reasoning (no opener): a prompt ending with the delimiter has closed it.
    const at = generationPrompt.lastIndexOf(end);
    return at >= 0 && generationPrompt.slice(at + end.length).trim() === ""
      ? { prefix: generationPrompt.slice(at), state: "closed" }
      : { prefix: "", state: "none" };
  }
  const at = generationPrompt.lastIndexOf(start);
  if (at < 0) return { prefix: "", state: "none" };
  const prefix = generationPrompt.slice(at);
  return { prefix, state: prefix.includes(end, start.length) ? "closed" : "open" };
}

/** The prompt of a request that continues its final message, and the continued text. */
export interface ContinuedPrompt extends RenderedPrompt {
  /** The generation prompt of the conversation before the continued message. */
  baseGenerationPrompt: string;
  /** Where in `baseGenerationPrompt` the continued text starts (its length when after it). */
  continuedFrom: number;
  /**
   * The end of the prompt that belongs to the continued message (from the reasoning opener on,
   * or its content): the parser reads it before the output, and the message keeps it.
   */
  continued: string;
  /** Where the continued text leaves reasoning. */
  state: ReasoningPrefixState;
}

/**
 * Renders a request that continues its final assistant message (prefill): the conversation
 * before it with the generation prompt, then the message's reasoning (between the format's
 * reasoning markers, closed when the content is continued) and its content, so that the prompt
 * ends exactly where the model is to go on writing.
 *
 * @example
 * renderContinuation(template, request, messages, "reasoning", analysis.reasoning).prompt;
 * // "...<|im_start|>assistant\n<think>\nI'm"
 */
export function renderContinuation(
  template: ChatTemplate,
  request: ChatRequest,
  messages: ChatMessage[],
  continuation: "content" | "reasoning",
  reasoning: Pick<ReasoningAnalysis, "start" | "end"> & { mode?: ReasoningAnalysis["mode"] },
  contentStart = "",
): ContinuedPrompt {
  const final = request.messages[request.messages.length - 1] as { content?: unknown; reasoning_content?: unknown };
  const before = renderPrompt(template, request, messages.slice(0, -1));
  const head = before.prompt.slice(0, before.prompt.length - before.generationPrompt.length);
  const thought = textOf(final.reasoning_content);
  const opener = reasoning.start.trim();
  let generation = before.generationPrompt;
  let continuedFrom = generation.length;
  let reasoningWritten = false;
  if (reasoning.mode !== "NONE" && opener !== "" && reasoning.end.trim() !== "") {
    const at = generation.indexOf(opener);
    // The reasoning is written out when there is some, or when the prompt opens it anyway.
    if (at >= 0 || thought !== "" || continuation === "reasoning") {
      generation =
        (at >= 0 ? generation.slice(0, at) : generation) +
        reasoning.start +
        thought +
        (continuation === "content" ? reasoning.end : "");
      continuedFrom = at >= 0 ? at : before.generationPrompt.length;
      reasoningWritten = true;
    }
  }
  // The content opener, unless the reasoning's closer wrote it already (GPT-OSS's ends in the answer's header).
  const opens = contentStart !== "" && !generation.endsWith(contentStart) ? contentStart : "";
  if (continuation === "content") generation += opens + textOf(final.content);
  const continued = generation.slice(continuedFrom);
  const state: ReasoningPrefixState = !reasoningWritten ? "none" : continuation === "reasoning" ? "open" : "closed";
  return {
    prompt: head + generation,
    generationPrompt: generation,
    baseGenerationPrompt: before.generationPrompt,
    continuedFrom,
    continued,
    state,
  };
}

/**
 * The parser prefix of a continuation: the part of `basePrefix` (a tail of the base generation
 * prompt, e.g. a format's turn header) before the continued text, then the continued text.
 *
 * @example
 * continuationPrefix("<|start|>assistant", {
 *   baseGenerationPrompt: "<|start|>assistant", continuedFrom: 18, continued: "Hi",
 * } as ContinuedPrompt);
 * // "<|start|>assistantHi"
 */
export function continuationPrefix(basePrefix: string, c: ContinuedPrompt): string {
  const baseStart = c.baseGenerationPrompt.length - basePrefix.length;
  return basePrefix.slice(0, Math.max(0, c.continuedFrom - baseStart)) + c.continued;
}
