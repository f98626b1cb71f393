// The reasoning budget's state machine, without a model: the output is fed token by token.
import { describe, expect, it } from "vitest";
import { ReasoningBudget, type ReasoningMarkers } from "../../src/session/reasoning-budget.js";

const FORCED: ReasoningMarkers = { opener: null, end: "</think>", forcedOpen: true };
const OPENED: ReasoningMarkers = { opener: "<think>", end: "</think>", forcedOpen: false };

/** Feeds `tokens`; returns the index of the token that used up the budget (or -1) and the final state. */
function run(budget: number | undefined, markers: ReasoningMarkers, tokens: string[], closeBy?: number) {
  const b = new ReasoningBudget(budget, markers, closeBy === undefined ? {} : { closeBy });
  let text = "";
  let exhaustedAt = -1;
  tokens.forEach((t, i) => {
    const before = text;
    text += t;
    if (b.step(before, text)) exhaustedAt = i;
  });
  // settled: the state can no longer change (the session stops reading the output for it).
  expect(b.settled).toBe(b.state === "done" || b.state === "exhausted");
  return { exhaustedAt, state: b.state, spent: b.spent };
}

const CASES = [
  {
    label: "forced open: runs out on the budget's last token",
    budget: 3,
    markers: FORCED,
    tokens: ["a", "b", "c", "d"],
    want: { exhaustedAt: 2, state: "exhausted", spent: 3 },
  },
  {
    label: "forced open: closed in time",
    budget: 5,
    markers: FORCED,
    tokens: ["a", "</think>", "x", "y", "z", "w"],
    want: { exhaustedAt: -1, state: "done", spent: 1 },
  },
  {
    label: "model-opened: counting starts after the opener",
    budget: 2,
    markers: OPENED,
    tokens: ["<th", "ink>", "a", "b", "c"],
    want: { exhaustedAt: 3, state: "exhausted", spent: 2 },
  },
  {
    label: "model-opened: an answer without reasoning settles at once",
    budget: 1,
    markers: OPENED,
    tokens: ["Hello", " there", "<think>"],
    want: { exhaustedAt: -1, state: "done", spent: 0 },
  },
  {
    label: "leading whitespace before the opener is fine",
    budget: 1,
    markers: OPENED,
    tokens: ["\n", "<think>", "a", "b"],
    want: { exhaustedAt: 2, state: "exhausted", spent: 1 },
  },
  {
    label: "no budget: never runs out",
    budget: undefined,
    markers: FORCED,
    tokens: ["a", "b", "c"],
    want: { exhaustedAt: -1, state: "done", spent: 0 },
  },
  {
    label: "no end marker: no budget applies",
    budget: 1,
    markers: { opener: "<think>", end: null, forcedOpen: false },
    tokens: ["<think>", "a"],
    want: { exhaustedAt: -1, state: "done", spent: 0 },
  },
  {
    label: "no opener and not forced: no budget applies",
    budget: 1,
    markers: { opener: null, end: "</think>", forcedOpen: false },
    tokens: ["a", "b"],
    want: { exhaustedAt: -1, state: "done", spent: 0 },
  },
] as const;

// closeBy: reasoning still open when the whole output reaches that many tokens closes (a required call follows).
const CLOSE_BY_CASES = [
  {
    label: "forced open, no budget: closes on the output's closeBy-th token",
    budget: undefined,
    closeBy: 3,
    markers: FORCED,
    tokens: ["a", "b", "c", "d"],
    want: { exhaustedAt: 2, state: "exhausted", spent: 3 },
  },
  {
    label: "model-opened: the opener's tokens count toward closeBy",
    budget: undefined,
    closeBy: 4,
    markers: OPENED,
    tokens: ["\n", "<think>", "a", "b", "c"],
    want: { exhaustedAt: 3, state: "exhausted", spent: 2 },
  },
  {
    label: "model-opened: closeBy reached by the opener itself closes at the opener",
    budget: undefined,
    closeBy: 1,
    markers: OPENED,
    tokens: ["<th", "ink>", "a"],
    want: { exhaustedAt: 1, state: "exhausted", spent: 0 },
  },
  {
    label: "the budget, when smaller, still runs out first",
    budget: 2,
    closeBy: 10,
    markers: FORCED,
    tokens: ["a", "b", "c"],
    want: { exhaustedAt: 1, state: "exhausted", spent: 2 },
  },
  {
    label: "closeBy, when sooner, comes before the budget",
    budget: 10,
    closeBy: 2,
    markers: FORCED,
    tokens: ["a", "b", "c"],
    want: { exhaustedAt: 1, state: "exhausted", spent: 2 },
  },
  {
    label: "reasoning closed by the model in time: nothing to do",
    budget: undefined,
    closeBy: 3,
    markers: FORCED,
    tokens: ["a", "</think>", "x", "y"],
    want: { exhaustedAt: -1, state: "done", spent: 1 },
  },
  {
    label: "an answer without reasoning is never cut",
    budget: undefined,
    closeBy: 1,
    markers: OPENED,
    tokens: ["<tool_call>", "x", "y"],
    want: { exhaustedAt: -1, state: "done", spent: 0 },
  },
] as const;

describe("ReasoningBudget", () => {
  it.each(CLOSE_BY_CASES)("$label", ({ budget, closeBy, markers, tokens, want }) => {
    expect(run(budget, markers, [...tokens], closeBy)).toEqual(want);
  });

  it("closes forced-open reasoning at once when no token of it fits", () => {
    expect(new ReasoningBudget(undefined, FORCED, { closeBy: 0 }).closesAtOnce).toBe(true);
    expect(new ReasoningBudget(0, FORCED).closesAtOnce).toBe(true);
    expect(new ReasoningBudget(undefined, FORCED, { closeBy: 1 }).closesAtOnce).toBe(false);
    // The model may open reasoning or not: nothing to close yet.
    expect(new ReasoningBudget(undefined, OPENED, { closeBy: 0 }).closesAtOnce).toBe(false);
  });

  it.each(CASES)("$label", ({ budget, markers, tokens, want }) => {
    expect(run(budget, markers, [...tokens])).toEqual(want);
  });

  it("is settled at once without a limit, and after it ran out", () => {
    expect(new ReasoningBudget(undefined, FORCED).settled).toBe(true);
    const b = new ReasoningBudget(1, FORCED);
    expect(b.settled).toBe(false);
    expect(b.step("", "a")).toBe(true);
    expect(b.settled).toBe(true);
  });

  it("does nothing after it ran out", () => {
    const b = new ReasoningBudget(1, FORCED);
    expect(b.step("", "a")).toBe(true);
    expect(b.step("a", "ab")).toBe(false);
    expect(b.spent).toBe(1);
  });

  it("reports the budget only where it applies", () => {
    expect(new ReasoningBudget(4, FORCED).budget).toBe(4);
    expect(new ReasoningBudget(4, { opener: null, end: null, forcedOpen: true }).budget).toBeUndefined();
  });
});
