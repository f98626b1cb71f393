/**
 * Where a lazy grammar starts in a generation's output, found as the runtime finds it: the first
 * trigger token generated, or the first match of a trigger pattern (from its first capture group
 * on, where it has one). The session streams the calls from there on as they are written
 * (`streamCalls`): the grammar makes the model finish each of them.
 */
import type { GrammarOptions } from "../runtime/sampling.js";

/** Watches a generation's tokens for the point its lazy grammar takes over. */
export class TriggerWatch {
  private readonly patterns: RegExp[];
  private readonly tokens: ReadonlySet<number>;
  private text = "";
  private found = false;

  /** `lazy`: the grammar's triggers (patterns the runtime accepts; one JS does not read is never matched). */
  constructor(lazy: NonNullable<GrammarOptions["lazy"]>) {
    this.patterns = (lazy.patterns ?? []).flatMap((p) => {
      try {
        return [new RegExp(p, "d")];
      } catch {
        return [];
      }
    });
    this.tokens = new Set(lazy.tokens ?? []);
  }

  /**
   * Takes the next token and its text; returns the offset in the output so far (this token's text
   * included) where the grammar starts, the first time it does, else null.
   */
  push(token: number, text: string): number | null {
    if (this.found) return null;
    const before = this.text.length;
    this.text += text;
    if (this.tokens.has(token)) return this.fire(before);
    let at = Number.POSITIVE_INFINITY;
    for (const p of this.patterns) {
      const m = p.exec(this.text);
      if (m?.indices) at = Math.min(at, (m.indices[1] ?? m.indices[0])![0]);
    }
    return at === Number.POSITIVE_INFINITY ? null : this.fire(at);
  }

  private fire(at: number): number {
    this.found = true;
    return at;
  }
}
