/**
 * The reasoning budget of one model turn as a small state machine: it reads the output after
 * each token and says when reasoning has used up its tokens. Reasoning counts where it is open:
 * forced open by the prompt, or opened by the model with the format's opener.
 *
 *   undecided ──(output opens reasoning)──▶ reasoning ──(budget tokens, or closeBy)──▶ exhausted
 *       │                                       │
 *       └──(output starts with anything else)───┴──(end marker)──▶ done
 *
 * `closeBy` is a second limit, on the whole output: reasoning still open once the output has that
 * many tokens is closed, so what must follow it (a required call) still fits in maxTokens.
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

/** Limits besides the budget. */
export interface ReasoningLimits {
  /** Reasoning still open when the output (reasoning opener included) reaches this many tokens is closed. */
  closeBy?: number;
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
  readonly #closeBy: number;
  readonly #markers: ReasoningMarkers;
  #state: ReasoningBudgetState;
  #spent = 0;
  #tokens = 0;

  /** `budget` undefined: no limit on reasoning itself (with no `closeBy` either, the state is "done" at once). */
  constructor(budget: number | undefined, markers: ReasoningMarkers, limits: ReasoningLimits = {}) {
    this.#markers = markers;
    const applies = markers.end !== null && (markers.forcedOpen || markers.opener !== null);
    this.#budget = applies ? budget : undefined;
    this.#closeBy = applies ? (limits.closeBy ?? Infinity) : Infinity;
    const limited = this.#budget !== undefined || this.#closeBy !== Infinity;
    this.#state = !limited ? "done" : markers.forcedOpen ? "reasoning" : "undecided";
  }

  /** The budget in tokens where it applies, else undefined. */
  get budget(): number | undefined {
    return this.#budget;
  }

  /** The prompt opened reasoning and no token of it fits: the caller closes it before generating. */
  get closesAtOnce(): boolean {
    return this.#markers.forcedOpen && this.#state === "reasoning" && (this.#budget === 0 || this.#closeBy <= 0);
  }

  get state(): ReasoningBudgetState {
    return this.#state;
  }

  /** Further tokens change nothing ("done" or "exhausted"): {@link step} need not be called. */
  get settled(): boolean {
    return this.#state === "done" || this.#state === "exhausted";
  }

  /** Reasoning tokens counted so far. */
  get spent(): number {
    return this.#spent;
  }

  /**
   * One token was generated: `before` and `after` are the whole output before and after it.
   * Returns true when this token used up the budget, or brought reasoning to `closeBy` (the
   * state is then "exhausted").
   */
  step(before: string, after: string): boolean {
    if (this.settled) return false;
    this.#tokens++;
    const wasInside = this.#inside(before);
    if (!this.#inside(after)) return false;
    // The token that completes the opener is not reasoning, but the output may already be at closeBy.
    if (wasInside) this.#spent++;
    const spentAll = wasInside && this.#budget !== undefined && this.#spent >= this.#budget;
    if (!spentAll && this.#tokens < this.#closeBy) return false;
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
