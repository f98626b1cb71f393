/**
 * The reasoning budget of one model turn as a small state machine: it reads the output after
 * each token and says when reasoning has used up its tokens. Reasoning counts where it is open:
 * forced open by the prompt, or opened by the model with the format's opener.
 *
 *   undecided ──(output opens reasoning)──▶ reasoning ──(budget tokens)──▶ exhausted
 *       │                                       │
 *       └──(output starts with anything else)───┴──(end marker)──▶ done
 */

/** Where the budget stands. */
export type ReasoningBudgetState = "undecided" | "reasoning" | "done" | "exhausted";

/** The markers the budget watches. */
export interface ReasoningMarkers {
  /** The marker with which the model opens reasoning itself, or null. */
  opener: string | null;
  /** The marker that ends reasoning, or null (no budget can apply). */
  end: string | null;
  /** The prompt opened reasoning: the output starts inside it. */
  forcedOpen: boolean;
}

/**
 * Counts reasoning tokens against a budget.
 *
 * @example
 * const b = new ReasoningBudget(2, { opener: null, end: "</think>", forcedOpen: true });
 * b.step("", "a");   // false: 1 token of reasoning
 * b.step("a", "ab"); // true: the budget ran out; the caller closes reasoning
 */
export class ReasoningBudget {
  readonly #budget: number | undefined;
  readonly #markers: ReasoningMarkers;
  #state: ReasoningBudgetState;
  #spent = 0;

  /** `budget` undefined: no limit (the state is "done" at once). */
  constructor(budget: number | undefined, markers: ReasoningMarkers) {
    this.#markers = markers;
    const applies = markers.end !== null && (markers.forcedOpen || markers.opener !== null);
    this.#budget = applies ? budget : undefined;
    this.#state = this.#budget === undefined ? "done" : markers.forcedOpen ? "reasoning" : "undecided";
  }

  /** The budget in tokens where it applies, else undefined. */
  get budget(): number | undefined {
    return this.#budget;
  }

  get state(): ReasoningBudgetState {
    return this.#state;
  }

  /** Reasoning tokens counted so far. */
  get spent(): number {
    return this.#spent;
  }

  /**
   * One token was generated: `before` and `after` are the whole output before and after it.
   * Returns true when this token used up the budget (the state is then "exhausted").
   */
  step(before: string, after: string): boolean {
    if (this.#state === "done" || this.#state === "exhausted") return false;
    if (!this.#inside(before) || !this.#inside(after)) return false;
    if (++this.#spent < this.#budget!) return false;
    this.#state = "exhausted";
    return true;
  }

  /** Whether `text` (the output so far) is inside reasoning; moves to "reasoning" or "done" once that is clear. */
  #inside(text: string): boolean {
    if (this.#state !== "undecided" && this.#state !== "reasoning") return false;
    const { opener, end, forcedOpen } = this.#markers;
    if (end === null) return this.#settle(false);
    if (forcedOpen) return this.#settle(!text.includes(end));
    const lead = text.trimStart();
    if (opener === null) return this.#settle(false);
    // Not yet known: the output so far may still become the opener.
    if (lead.length < opener.length && opener.startsWith(lead)) return false;
    return this.#settle(lead.startsWith(opener) && !lead.includes(end, opener.length));
  }

  #settle(open: boolean): boolean {
    this.#state = open ? "reasoning" : "done";
    return open;
  }
}
