/**
 * Stop strings over streamed text: emits text as soon as it cannot be the start of a stop
 * string, holds back a suffix that might be, and cuts the stream before the first stop string,
 * also when it spans several tokens.
 */

/**
 * Cuts a text stream before the first stop string.
 *
 * @example
 * const filter = new StopStringFilter(["</answer>"]);
 * filter.push("42</ans"); // { text: "42", stopped: false }
 * filter.push("wer>!");   // { text: "", stopped: true }
 */
export class StopStringFilter {
  readonly #stops: readonly string[];
  #held = "";

  constructor(stops: readonly string[]) {
    this.#stops = stops.filter((s) => s.length > 0);
  }

  /**
   * Feeds text. `text` is what may be emitted now; `stopped` means a stop string was reached
   * (and `text` ends right before it).
   *
   * @example
   * const { text, stopped } = filter.push(chunk);
   */
  push(chunk: string): { text: string; stopped: boolean } {
    const buffer = this.#held + chunk;
    if (this.#stops.length === 0) return { text: buffer, stopped: false };
    let cut = -1;
    for (const stop of this.#stops) {
      const at = buffer.indexOf(stop);
      if (at !== -1 && (cut === -1 || at < cut)) cut = at;
    }
    if (cut !== -1) {
      this.#held = "";
      return { text: buffer.slice(0, cut), stopped: true };
    }
    const keep = this.#partialMatchLength(buffer);
    this.#held = buffer.slice(buffer.length - keep);
    return { text: buffer.slice(0, buffer.length - keep), stopped: false };
  }

  /**
   * Releases the held-back text (at the end of the stream).
   *
   * @example
   * const rest = filter.flush();
   */
  flush(): string {
    const held = this.#held;
    this.#held = "";
    return held;
  }

  /** Length of the longest suffix of `buffer` that is a proper prefix of a stop string. */
  #partialMatchLength(buffer: string): number {
    let best = 0;
    for (const stop of this.#stops) best = Math.max(best, partialEnd(buffer, stop));
    return best;
  }
}

/**
 * Length of the longest proper start of `text` that ends `buffer` (0: none): what a stream must hold back
 * while `text` may still follow.
 *
 * @example
 * partialEnd("Done.</", "</s>"); // 2
 */
export function partialEnd(buffer: string, text: string): number {
  const last = buffer.charCodeAt(buffer.length - 1);
  for (let n = Math.min(text.length - 1, buffer.length); n > 0; n--) {
    // Checked first: most starts of `text` end in another character (no substring made per token).
    if (text.charCodeAt(n - 1) === last && buffer.endsWith(text.slice(0, n))) return n;
  }
  return 0;
}
