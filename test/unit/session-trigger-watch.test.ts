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
      name: "of several patterns matching in one token, the first given (as the runtime)",
      lazy: { patterns: ["^[\\s\\S]*?(<b>)[\\s\\S]*", "^[\\s\\S]*?(<a>)[\\s\\S]*"] },
      steps: [[1, "x<a>y<b>"]] as [number, string][],
      want: [5],
    },
    {
      name: "of several patterns, the one that matches first in the output",
      lazy: { patterns: ["^[\\s\\S]*?(<b>)[\\s\\S]*", "^[\\s\\S]*?(<a>)[\\s\\S]*"] },
      steps: [
        [1, "x<a>"],
        [2, "y<b>"],
      ] as [number, string][],
      want: [1, null],
    },
    {
      name: "a literal trigger split across three tokens",
      lazy: { patterns: ["^[\\s\\S]*?(<tool_call>)[\\s\\S]*$"] },
      steps: [
        [1, "a <to"],
        [2, "ol_c"],
        [3, "all> {"],
      ] as [number, string][],
      want: [null, null, 2],
    },
    {
      name: "a guard, then the group after it (not an earlier one)",
      lazy: { patterns: ["^[\\s\\S]*?</think>[\\s\\S]*?(<call>)[\\s\\S]*"] },
      steps: [
        [1, "<call> in thought </th"],
        [2, "ink> then "],
        [3, "<call>"],
      ] as [number, string][],
      want: [null, null, 32],
    },
    {
      // The chat layer escapes "/" (src/session/grammar.ts): the guard is still one literal, found however far back.
      name: "a guard escaped as the chat layer writes it, the call 5,000 characters after it",
      lazy: { patterns: ["^[\\s\\S]*?<\\/think>[\\s\\S]*?(<call>)[\\s\\S]*"] },
      steps: [
        [1, "<call> in thought </think>"],
        [2, "x".repeat(5000)],
        [3, "<call>"],
      ] as [number, string][],
      want: [null, null, 5026],
    },
    {
      name: "a regex core: from its first group that matched something",
      lazy: { patterns: ['^[\\s\\S]*?(\\{\\s*"name")[\\s\\S]*'] },
      steps: [
        [1, "text {"],
        [2, ' "na'],
        [3, 'me": 1'],
      ] as [number, string][],
      want: [null, null, 5],
    },
    {
      name: "an empty first group: from the start of the whole match",
      lazy: { patterns: ["^[\\s\\S]*?()\\[CALL\\][\\s\\S]*"] },
      steps: [[1, "ok [CALL]"]] as [number, string][],
      want: [3],
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

  // The whole pattern run over all the output at every token (the runtime's rule, which the watch
  // answers without rescanning): the same offsets, on many random splits of texts with near misses.
  it("answers as the whole pattern over all the output would, on random token splits", () => {
    const patterns = [
      "^[\\s\\S]*?(<tool_call>)[\\s\\S]*",
      "^[\\s\\S]*?(\\[TOOL_CALLS\\]|<function=)[\\s\\S]*",
      "^[\\s\\S]*?<\\|channel\\|>[\\s\\S]*?(to=functions\\.\\w+)[\\s\\S]*",
    ];
    const pieces = [
      "<tool",
      "_call>",
      "<tool_c",
      "[TOOL",
      "_CALLS]",
      "<func",
      "tion=",
      "<|channel|>",
      "to=func",
      "tions.get",
      " text",
      "\n",
      "<",
      ">",
      "=",
      "tions.",
    ];
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let run = 0; run < 300; run++) {
      const steps: [number, string][] = [];
      for (let i = 0, n = 1 + rand(14); i < n; i++) steps.push([i, pieces[rand(pieces.length)]!]);
      for (const pattern of patterns) {
        const got = pushes(new TriggerWatch({ patterns: [pattern] }), steps);
        expect(got, `${pattern} on ${JSON.stringify(steps.map((s) => s[1]))}`).toEqual(wholePattern(pattern, steps));
      }
    }
  });
});

/** The offsets a whole-pattern search over all the output so far gives at each push. */
function wholePattern(pattern: string, steps: [number, string][]): (number | null)[] {
  const regex = new RegExp(pattern, "d");
  let text = "";
  let fired = false;
  return steps.map(([, piece]) => {
    text += piece;
    if (fired) return null;
    const m = regex.exec(text);
    if (m?.indices === undefined) return null;
    fired = true;
    for (let i = 1; i < m.length; i++) {
      const span = m.indices[i];
      if (span !== undefined && span[1] > span[0]) return span[0];
    }
    return m.indices[0]![0];
  });
}
