/**
 * Rendering the prompt of a chat request, and finding what of it the model's output continues.
 */
import type { ReasoningAnalysis } from "../analysis/index.js";
import type { ChatTemplate } from "../template/index.js";
import type { ChatMessage } from "../types.js";
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
export function renderPrompt(template: ChatTemplate, request: ChatRequest, messages: ChatMessage[] = request.messages): RenderedPrompt {
  const input = {
    messages,
    tools: request.tools && request.tools.length > 0 ? request.tools : undefined,
    enableThinking: request.enableThinking,
    extraContext: request.extraContext,
  };
  const prompt = template.render({ ...input, addGenerationPrompt: true });
  const without = template.render({ ...input, addGenerationPrompt: false });
  let i = 0;
  const n = Math.min(prompt.length, without.length);
  while (i < n && prompt.charCodeAt(i) === without.charCodeAt(i)) i++;
  return { prompt, generationPrompt: prompt.slice(i) };
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
export function reasoningPrefix(generationPrompt: string, reasoning: ReasoningAnalysis): { prefix: string; state: ReasoningPrefixState } {
  const start = reasoning.start.trim();
  const end = reasoning.end.trim();
  if (reasoning.mode === "NONE" || end === "") return { prefix: "", state: "none" };
  if (start === "") {
    // Delimiter-style reasoning (no opener): a prompt ending with the delimiter has closed it.
    const at = generationPrompt.lastIndexOf(end);
    return at >= 0 && generationPrompt.slice(at + end.length).trim() === "" ? { prefix: generationPrompt.slice(at), state: "closed" } : { prefix: "", state: "none" };
  }
  const at = generationPrompt.lastIndexOf(start);
  if (at < 0) return { prefix: "", state: "none" };
  const prefix = generationPrompt.slice(at);
  return { prefix, state: prefix.includes(end, start.length) ? "closed" : "open" };
}
