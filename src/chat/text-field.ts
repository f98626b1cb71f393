/**
 * A streamed text field (content or reasoning) that comes out trimmed: leading whitespace is
 * dropped, trailing whitespace is held back until more text follows it, so the concatenated
 * deltas equal the trimmed field no matter where chunks split.
 *
 * @example
 * const f = new TextField();
 * f.push("\n Hello ", 0); // "Hello"
 * f.push("world\n", 8);   // " world"
 * f.finish();             // ""   (the final "\n" is dropped)
 */
export class TextField {
  private started = false;
  private held = "";
  /** End offset of the last piece pushed (-1 before the first). */
  private lastEnd = -1;

  /** True once any non-whitespace text was emitted. */
  get hasText(): boolean {
    return this.started;
  }

  /** Input offset after the last piece pushed (-1 before the first). */
  get end(): number {
    return this.lastEnd;
  }

  /**
   * Adds text that starts at input offset `start`; returns what can be emitted now. A gap
   * since the previous piece (separate blocks, e.g. two reasoning channels) becomes a newline, or
   * `gap` where given, unless `joined` says the piece continues the previous one (text after inline reasoning).
   */
  push(text: string, start: number, joined = false, gap = "\n"): string {
    if (this.lastEnd >= 0 && start > this.lastEnd && this.started && !joined) this.held += gap;
    this.lastEnd = start + text.length;
    if (text === "") return "";
    let end = text.length;
    while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
    let from = 0;
    if (!this.started) while (from < end && isSpace(text.charCodeAt(from))) from++;
    if (from >= end) {
      if (this.started) this.held += text.slice(from);
      return "";
    }
    const out = this.held + text.slice(from, end);
    this.held = text.slice(end);
    this.started = true;
    return out;
  }

  /** Ends the field: trailing whitespace is dropped. */
  finish(): string {
    this.held = "";
    return "";
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
