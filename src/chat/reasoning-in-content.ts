/**
 * Reasoning a model opens after it has written content (`Let me see. <think>…</think> It is 4.`), as models
 * that interleave thinking with their answer and calls write it (MiniMax M2, GLM, Qwen3). The parser reads a
 * reasoning block only before the content; this splits the content text it reads at the format's reasoning
 * markers, as it streams: text inside a block is reasoning, a block the output leaves open reasoning to the end,
 * the markers themselves neither. A marker split across chunks is held back until it is whole or cannot be, so
 * every chunking splits alike. Where the format wraps its content (Solar Open's `<|content|>`), the content
 * opener right after a block's end is a marker too. A start marker quoted as inline code (`` `<think>` ``, a model
 * explaining the format) is text.
 */

/** A piece of content text: its field, its text, and its input offset. */
export interface SplitPiece {
  field: "content" | "reasoning";
  text: string;
  start: number;
}

/** The markers' longest proper prefix that `text` ends with (0: none). */
function partialMarkerAtEnd(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(marker.slice(0, n))) return n;
  }
  return 0;
}

/**
 * Splits content text into content and reasoning at a start and an end marker.
 *
 * @example
 * const s = new ReasoningInContent("<think>", "</think>");
 * s.feed("Hi <thi", 0);          // [{ field: "content", text: "Hi ", start: 0 }]
 * s.feed("nk>hm</think> ok", 7); // [{ field: "reasoning", text: "hm", … }, { field: "content", text: " ok", … }]
 */
export class ReasoningInContent {
  private inReasoning = false;
  /** A block just ended: the content opener (`resume`) may follow. */
  private afterBlock = false;
  private held = "";
  private heldStart = -1;
  /** The last character placed, and the input offset after it: what comes before text that follows on. */
  private lastChar = "";
  private lastEnd = -1;

  /** `resume`: the format's content opener, skipped where it follows a block's end ("" for none). */
  constructor(
    private readonly start: string,
    private readonly end: string,
    private readonly resume = "",
  ) {}

  /** The pieces of `text` (at input offset `start`) that can be placed now. */
  feed(text: string, start: number): SplitPiece[] {
    const out: SplitPiece[] = [];
    // Held text continues only where the new text follows it in the input.
    if (this.held !== "" && this.heldStart + this.held.length !== start) out.push(...this.flush());
    const buf = this.held + text;
    const bufStart = this.held !== "" ? this.heldStart : start;
    this.held = "";
    let pos = 0;
    for (;;) {
      if (this.afterBlock) {
        const rest = buf.slice(pos);
        if (rest.startsWith(this.resume)) {
          pos += this.resume.length;
          this.afterBlock = false;
        } else if (this.resume.startsWith(rest)) {
          this.hold(buf, pos, bufStart);
          return out;
        } else {
          this.afterBlock = false;
        }
      }
      const marker = this.inReasoning ? this.end : this.start;
      const at = buf.indexOf(marker, pos);
      if (at < 0) break;
      const quoted = this.inReasoning ? false : this.quotedAt(buf, at, bufStart);
      if (quoted === null) {
        // A backtick before the start marker: the character after it says whether it is inline code.
        this.piece(out, buf.slice(pos, at), bufStart + pos);
        this.hold(buf, at, bufStart);
        return out;
      }
      this.piece(out, buf.slice(pos, quoted ? at + marker.length : at), bufStart + pos);
      pos = at + marker.length;
      if (quoted) continue;
      this.inReasoning = !this.inReasoning;
      this.afterBlock = !this.inReasoning && this.resume !== "";
    }
    const marker = this.inReasoning ? this.end : this.start;
    const keep = partialMarkerAtEnd(buf.slice(pos), marker);
    this.piece(out, buf.slice(pos, buf.length - keep), bufStart + pos);
    this.hold(buf, buf.length - keep, bufStart);
    return out;
  }

  /** Whether the start marker at `at` is quoted as inline code (between backticks); null: not known yet. */
  private quotedAt(buf: string, at: number, bufStart: number): boolean | null {
    const before = at > 0 ? buf[at - 1] : this.lastEnd === bufStart ? this.lastChar : "";
    if (before !== "`") return false;
    const after = at + this.start.length;
    return after < buf.length ? buf[after] === "`" : null;
  }

  /** Holds `buf` from `from` on (nothing where it ends there) until the next text says what it is. */
  private hold(buf: string, from: number, bufStart: number): void {
    if (from >= buf.length) return;
    this.held = buf.slice(from);
    this.heldStart = bufStart + from;
  }

  /** Whether the text read last is inside a reasoning block. */
  get reasoning(): boolean {
    return this.inReasoning;
  }

  /** Places the held text (a marker's start that did not go on): something other than content follows. */
  flush(): SplitPiece[] {
    const out: SplitPiece[] = [];
    this.piece(out, this.held, this.heldStart);
    this.held = "";
    this.afterBlock = false;
    return out;
  }

  private piece(out: SplitPiece[], text: string, start: number): void {
    if (text === "") return;
    out.push({ field: this.inReasoning ? "reasoning" : "content", text, start });
    this.lastChar = text[text.length - 1] ?? "";
    this.lastEnd = start + text.length;
  }
}
