/**
 * Reasoning a model opens after it has written content (`Let me see. <think>…</think> It is 4.`), as models
 * that interleave thinking with their answer and calls write it (MiniMax M2, GLM, Qwen3). The parser reads a
 * reasoning block only before the content; this splits the content text it reads at the format's reasoning
 * markers, as it streams: text inside a block is reasoning, a block the output leaves open reasoning to the end,
 * the markers themselves neither. A marker split across chunks is held back until it is whole or cannot be, so
 * every chunking splits alike.
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
  private held = "";
  private heldStart = -1;

  constructor(
    private readonly start: string,
    private readonly end: string,
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
      const marker = this.inReasoning ? this.end : this.start;
      const at = buf.indexOf(marker, pos);
      if (at < 0) break;
      this.piece(out, buf.slice(pos, at), bufStart + pos);
      pos = at + marker.length;
      this.inReasoning = !this.inReasoning;
    }
    const marker = this.inReasoning ? this.end : this.start;
    const keep = partialMarkerAtEnd(buf.slice(pos), marker);
    this.piece(out, buf.slice(pos, buf.length - keep), bufStart + pos);
    if (keep > 0) {
      this.held = buf.slice(buf.length - keep);
      this.heldStart = bufStart + buf.length - keep;
    }
    return out;
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
    return out;
  }

  private piece(out: SplitPiece[], text: string, start: number): void {
    if (text !== "") out.push({ field: this.inReasoning ? "reasoning" : "content", text, start });
  }
}
