/**
 * End-of-sequence text at the very end of an output. Some models write their end token as plain
 * text (`</s>`, `<|endoftext|>`); it ends the output and is not content. Only a trailing one is
 * dropped: the same text anywhere else (an HTML `</s>` tag in prose) is the model's content.
 */
import { partialEnd } from "../runtime/stop-strings.js";

/**
 * End-of-sequence texts of the common tokenizer conventions, read wherever the model's own is
 * unknown (a parser made from a template alone).
 */
export const CONVENTIONAL_END_TEXTS: readonly string[] = [
  "</s>",
  "<|endoftext|>",
  "<|end_of_text|>",
  "<|im_end|>",
  "<|eot_id|>",
  "<|end|>",
  "<end_of_turn>",
  "<eos>",
];

/**
 * Holds back the tail of a stream that may be an end-of-sequence text (whitespace around it
 * included) until more text shows it is not, or the stream ends and it is dropped.
 *
 * @example
 * const f = new TrailingEndFilter(["</s>"]);
 * f.push("Done.</"); // "Done."
 * f.push("s>"); // ""
 * f.finish(); // "" (the end text is dropped)
 */
export class TrailingEndFilter {
  readonly #ends: readonly string[];
  #held = "";

  constructor(ends: readonly string[]) {
    this.#ends = ends.filter((e) => e.trim() !== "").map((e) => e.trim());
  }

  /** Feeds text; returns what can no longer be part of a trailing end text. */
  push(chunk: string): string {
    const buffer = this.#held + chunk;
    const keep = this.#ends.length === 0 ? 0 : this.#candidateLength(buffer);
    this.#held = buffer.slice(buffer.length - keep);
    return buffer.slice(0, buffer.length - keep);
  }

  /** Ends the stream: the held text, or "" when it is an end text (and whitespace). */
  finish(): string {
    const held = this.#held;
    this.#held = "";
    return this.#ends.includes(held.trim()) ? "" : held;
  }

  /** Length of the longest tail: whitespace, then a start of an end text (or a whole one, then whitespace). */
  #candidateLength(buffer: string): number {
    let trimmed = buffer.length;
    while (trimmed > 0 && isSpace(buffer.charCodeAt(trimmed - 1))) trimmed--;
    let best = 0;
    for (const text of this.#ends) {
      let at = -1;
      if (buffer.endsWith(text, trimmed)) at = trimmed - text.length;
      else {
        const n = partialEnd(buffer, text);
        if (n > 0) at = buffer.length - n;
      }
      if (at < 0) continue;
      while (at > 0 && isSpace(buffer.charCodeAt(at - 1))) at--;
      best = Math.max(best, buffer.length - at);
    }
    return best;
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}
