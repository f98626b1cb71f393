/**
 * What a chat does when its prompt does not fit the context: by default a
 * {@link ContextOverflowError} naming both sizes and what to change; with
 * `contextOverflow: "truncate-oldest"` the oldest turns are dropped (as node-llama-cpp's context
 * shift and llama-server's `--context-shift` do) until the prompt fits with room to answer.
 *
 * A turn is a user message and everything up to the next user message (the assistant's answers,
 * its tool calls and their results), so a tool call is never separated from its results. The
 * leading system (and developer) messages and the tools always stay, and so does the latest turn.
 *
 * The prompt with turns left out is the previous prompt with one span removed (the templates render
 * it so: test/unit/session-truncation-shape.test.ts), so the step asks the scheduler to keep the turns
 * after that span in the KV cache by a context shift (`generate({ contextShift })`).
 */
import { ContextOverflowError } from "../runtime/errors.js";
import type { ChatMessage } from "../types.js";

/** What to do when the prompt does not fit: see the file comment. */
export type ContextOverflow = "error" | "truncate-oldest";

/** The prompt that fits, as the step renders and tokenizes it. */
export interface FittedPrompt<P> {
  params: P;
  tokens: Int32Array;
  /** Messages left out of the prompt (0 when everything fit). */
  droppedMessages: number;
}

/** Splits the messages into the kept head (leading system/developer messages) and the turns after it. */
export function splitTurns(messages: readonly ChatMessage[]): { head: ChatMessage[]; turns: ChatMessage[][] } {
  let start = 0;
  while (start < messages.length && (messages[start]!.role === "system" || messages[start]!.role === "developer"))
    start++;
  const turns: ChatMessage[][] = [];
  for (let i = start; i < messages.length; i++) {
    const m = messages[i]!;
    if (turns.length === 0 || m.role === "user") turns.push([m]);
    else turns[turns.length - 1]!.push(m);
  }
  return { head: messages.slice(0, start), turns };
}

/**
 * Renders and tokenizes `messages`; when the prompt leaves less than one token of room, fails or
 * drops the oldest turns (binary search on how many) until it leaves `reserve` tokens of room.
 *
 * @example
 * const fitted = await fitPrompt(messages, render, {
 *   contextSize: 4096, reserve: 512, overflow: "truncate-oldest", where: "chat", trainContextSize: 32768,
 * });
 */
export async function fitPrompt<P>(
  messages: readonly ChatMessage[],
  render: (messages: ChatMessage[]) => Promise<{ params: P; tokens: Int32Array }>,
  limits: { contextSize: number; reserve: number; overflow: ContextOverflow; where: string; trainContextSize: number },
): Promise<FittedPrompt<P>> {
  const { contextSize, where } = limits;
  const whole = await render([...messages]);
  if (whole.tokens.length < contextSize) return { ...whole, droppedMessages: 0 };
  const { head, turns } = splitTurns(messages);
  const larger = limits.trainContextSize > contextSize ? ` (the model was trained for ${limits.trainContextSize})` : "";
  if (limits.overflow === "error" || turns.length <= 1) {
    const remedy =
      limits.overflow === "error"
        ? `pass a larger contextSize${larger}, send fewer or shorter messages, or pass contextOverflow: ` +
          `"truncate-oldest" to drop the oldest turns`
        : `the system prompt, the tools and the latest turn alone do not fit; pass a larger ` +
          `contextSize${larger} or shorten them`;
    throw new ContextOverflowError(
      `${where}: the prompt needs ${whole.tokens.length + 1} tokens (with one to generate) but the context ` +
        `holds ${contextSize} (contextSize); ${remedy}`,
      whole.tokens.length + 1,
      contextSize,
    );
  }
  // Room for at least one generated token.
  const target = contextSize - Math.max(1, limits.reserve);
  const keep = (dropped: number) => [...head, ...turns.slice(dropped).flat()];
  // The fewest oldest turns to drop so the prompt leaves `reserve` tokens; failing that, the most
  // that still fit at all (keeping at least the latest turn).
  let lo = 1;
  let hi = turns.length - 1;
  let best: { params: P; tokens: Int32Array; dropped: number } | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const attempt = await render(keep(mid));
    if (attempt.tokens.length <= target) {
      best = { ...attempt, dropped: mid };
      hi = mid - 1;
    } else lo = mid + 1;
  }
  if (!best) {
    const last = await render(keep(turns.length - 1));
    if (last.tokens.length >= contextSize) {
      throw new ContextOverflowError(
        `${where}: even with every older turn dropped, the prompt needs ${last.tokens.length + 1} tokens (with ` +
          `one to generate) but the context holds ${contextSize} (contextSize); the system ` +
          `prompt, the tools and the latest turn alone do not fit: pass a larger ` +
          `contextSize${larger} or shorten them`,
        last.tokens.length + 1,
        contextSize,
      );
    }
    best = { ...last, dropped: turns.length - 1 };
  }
  const droppedMessages = turns.slice(0, best.dropped).reduce((n, t) => n + t.length, 0);
  return { params: best.params, tokens: best.tokens, droppedMessages };
}
