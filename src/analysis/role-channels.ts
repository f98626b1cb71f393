/**
 * Channels switched by role name: templates that write each part of an assistant turn as its
 * own message under a suffixed role (HyperCLOVA X: `<|im_start|>assistant/think\n` reasoning
 * `<|im_end|>\n<|im_start|>assistant\n` content, `<|im_start|>assistant -> tool/function_call\n`
 * calls). The generation prompt ends with the bare role header, so the model's first words pick
 * the channel: the reasoning opener is the suffix before the reasoning, and reasoning ends where
 * the role header is written again. The ordinary reasoning phase sees no marker-shaped opener
 * there and takes the whole turn up to the first end-of-message for reasoning. Content is a
 * channel too: it ends with the channel's end-of-message, and a call channel may follow it
 * under a re-written role header (the parser allows the assistant start there).
 *
 * @example
 * roleChannels(renderer)?.reasoning;
 * // { mode: "TAG_BASED", start: "/think\n", end: "<|im_end|>\n<|im_start|>assistant" }
 * roleChannels(renderer)?.channelEnd; // "<|im_end|>": content ends there, calls may follow under the header
 */
import { trimWhitespace } from "./bytes.js";
import { ASSISTANT_MSG, THINKING_CONTENT, USER_TURN } from "./probes.js";
import type { VariantRenderer } from "./render.js";
import type { ReasoningAnalysis } from "./types.js";

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Reasoning as a channel, and what closes a channel (the content's end, e.g. `<|im_end|>`). */
export interface RoleChannels {
  reasoning: ReasoningAnalysis;
  /** The end of a channel's message, before the role header is written again. */
  channelEnd: string;
}

/**
 * The channels of a template whose reasoning is a channel of its own (see above), or null when
 * the template does not switch channels by re-rendering the role header (then the ordinary
 * analysis stands).
 */
export function roleChannels(renderer: VariantRenderer): RoleChannels | null {
  const bare = renderer.render({ messages: [USER_TURN] });
  const prompt = renderer.render({ messages: [USER_TURN], addGenerationPrompt: true });
  const turn = renderer.render({
    messages: [USER_TURN, { role: "assistant", content: ASSISTANT_MSG, reasoning_content: THINKING_CONTENT }],
  });
  if (bare === null || prompt === null || turn === null || !turn.startsWith(prompt)) return null;
  // The role header the generation prompt opens, which the turn writes again to switch channels.
  const header = trimWhitespace(prompt.slice(commonPrefix(bare, prompt)));
  if (header === "") return null;
  const generated = turn.slice(prompt.length);
  const r = generated.indexOf(THINKING_CONTENT);
  const c = generated.indexOf(ASSISTANT_MSG);
  if (r < 0 || c < r) return null;
  const between = generated.slice(r + THINKING_CONTENT.length, c);
  const at = between.indexOf(header);
  const start = generated.slice(0, r);
  if (at < 0 || trimWhitespace(start) === "") return null;
  const channelEnd = trimWhitespace(between.slice(0, at));
  if (channelEnd === "") return null;
  return { reasoning: { mode: "TAG_BASED", start, end: between.slice(0, at + header.length) }, channelEnd };
}
