/**
 * Streaming a model's output through a ChatStreamParser in random chunks, as tokens arrive.
 */
import { ChatStreamParser, type ChatDelta, type ChatParams } from "../../src/chat/index.js";
import { xorshiftRandom } from "./seeded-random.js";

/** Call ids the tests can predict: call0, call1, ... */
export const CALL_IDS = { generateCallId: (i: number) => `call${i}` };

/**
 * Feeds `output` to a new parser (with {@link CALL_IDS}) in chunks of 1 to `maxChunk` characters,
 * their sizes drawn from `seed`; returns the deltas (the finish's included) and the parser.
 */
export function streamInChunks(
  params: ChatParams,
  output: string,
  seed: number,
  maxChunk: number,
): { deltas: ChatDelta[]; parser: ChatStreamParser } {
  const next = xorshiftRandom(seed);
  const parser = new ChatStreamParser(params, CALL_IDS);
  const deltas: ChatDelta[] = [];
  for (let i = 0; i < output.length; ) {
    const k = 1 + Math.floor(next() * maxChunk);
    deltas.push(...parser.feed(output.slice(i, i + k)));
    i += k;
  }
  deltas.push(...parser.finish());
  return { deltas, parser };
}
