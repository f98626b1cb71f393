/**
 * Where a lazy grammar takes over in a generation's output (src/session/trigger-watch.ts), found as the
 * runtime finds it: calls stream from there on as they are written (`streamCalls`).
 */
import { describe, expect, it } from "vitest";
import { TriggerWatch } from "../../src/session/trigger-watch.js";

/** Feeds (token, text) pairs; returns what each push answered. */
function pushes(watch: TriggerWatch, steps: [number, string][]): (number | null)[] {
  return steps.map(([token, text]) => watch.push(token, text));
}

describe("TriggerWatch", () => {
  it.each([
    {
      name: "a pattern's first group: the grammar starts at the group, once",
      lazy: { patterns: ["^[\\s\\S]*?(<tool_call>)[\\s\\S]*"] },
      steps: [
        [1, "Sure. <tool"],
        [2, "_call>\n{"],
        [3, '"name"'],
        [4, "<tool_call>"],
      ] as [number, string][],
      want: [null, 6, null, null],
    },
    {
      name: "a pattern without a group: from the start of its match",
      lazy: { patterns: ["\\[TOOL_CALLS\\]"] },
      steps: [
        [1, "ok "],
        [2, "[TOOL_CALLS]"],
      ] as [number, string][],
      want: [null, 3],
    },
    {
      name: "a trigger token: from the start of its text",
      lazy: { tokens: [7] },
      steps: [
        [1, "Hm, "],
        [7, "<|python_tag|>"],
        [7, "<|python_tag|>"],
      ] as [number, string][],
      want: [null, 4, null],
    },
    {
      name: "the earliest of several patterns",
      lazy: { patterns: ["^[\\s\\S]*?(<b>)[\\s\\S]*", "^[\\s\\S]*?(<a>)[\\s\\S]*"] },
      steps: [[1, "x<a>y<b>"]] as [number, string][],
      want: [1],
    },
    {
      name: "a pattern JS cannot read is never matched",
      lazy: { patterns: ["(unclosed"] },
      steps: [[1, "(unclosed"]] as [number, string][],
      want: [null],
    },
  ])("$name", ({ lazy, steps, want }) => {
    expect(pushes(new TriggerWatch(lazy), steps)).toEqual(want);
  });
});
