// llama.cpp's chat-parser test suite (tests/test-chat.cpp) as an oracle: every case's request goes
// through toolwright's own generateChatParams, its raw model output through toolwright's parser,
// whole and streamed in random chunks, and the message must equal llama.cpp's expectation exactly,
// unless the case is in IMPROVEMENTS, where toolwright reads the output differently on purpose.
import { describe, expect, it } from "vitest";
import {
  caseLabel,
  judge,
  loadLlamaCases,
  paramsOf,
  randomCuts,
  replay,
  type LlamaCase,
  type Verdict,
} from "../helpers/llama-cases.js";
import { sharedData } from "../helpers/shared-data.js";

type Kind = Exclude<Verdict["kind"], "exact">;

/**
 * Cases toolwright reads differently from llama.cpp, by case id, with the kind of difference
 * (a "whitespace" entry excuses only whitespace at the ends of content or reasoning) and why
 * toolwright's reading is the one it keeps. Each entry must still differ: a stale one fails.
 */
const TRIMMED =
  "content and reasoning come back trimmed (toolwright's TextField), llama.cpp keeps the newline before a " +
  "call or an end marker";
const COMPACT_PARTIAL =
  "a partial call's arguments stream as compact JSON (`{\"arg1\":`); llama.cpp keeps the model's space after the colon";
const BUILT_IN_RECIPIENT =
  "a GPT-OSS message to a built-in recipient (python, container.*) is no call: toolwright keeps its text as " +
  "content (nothing the model wrote is lost); llama.cpp drops it";
export const IMPROVEMENTS: Record<number, { kind: Kind; reason: string }> = {
  14: { kind: "whitespace", reason: `${TRIMMED} (a second <think> the model writes inside prompt-opened reasoning)` },
  17: { kind: "whitespace", reason: TRIMMED },
  18: { kind: "whitespace", reason: TRIMMED },
  19: { kind: "whitespace", reason: TRIMMED },
  23: { kind: "whitespace", reason: TRIMMED },
  120: { kind: "whitespace", reason: TRIMMED },
  145: { kind: "whitespace", reason: TRIMMED },
  188: { kind: "whitespace", reason: TRIMMED },
  189: { kind: "whitespace", reason: TRIMMED },
  190: { kind: "whitespace", reason: `${TRIMMED} (text after the call)` },
  192: { kind: "whitespace", reason: TRIMMED },
  193: {
    kind: "differs",
    reason:
      "reasoningFormat none keeps a reasoning block inline with its opener, also the prompt's `<think>` when " +
      "a call ends the block; llama.cpp drops the opener only in that case",
  },
  237: {
    kind: "differs",
    reason:
      "continuing reasoning on Kimi K2 Instruct: its template renders no reasoning, so the analysis finds no " +
      "reasoning markers to continue between; llama.cpp's hand-written Kimi handler " +
      "assumes <think>",
  },
  238: {
    kind: "differs",
    reason:
      "continuing reasoning on Kimi K2 Instruct: its template renders no reasoning, so the analysis finds no " +
      "reasoning markers to continue between; llama.cpp's hand-written Kimi handler " +
      "assumes <think>",
  },
  226: { kind: "differs", reason: COMPACT_PARTIAL },
  253: { kind: "differs", reason: COMPACT_PARTIAL },
  307: {
    kind: "differs",
    reason:
      "Apertus's reasoning markers are read (a workaround row: its models write <|inner_prefix|>…<|inner_suffix|>), " +
      "so the continued message's reasoning is written into the prompt, and reasoningFormat none keeps it inline " +
      "as for every reasoning template; llama.cpp finds no reasoning in the template and drops it",
  },
  269: { kind: "differs", reason: COMPACT_PARTIAL },
  285: { kind: "differs", reason: COMPACT_PARTIAL },
  300: { kind: "differs", reason: COMPACT_PARTIAL },
  331: {
    kind: "differs",
    reason:
      "`label` is oneOf [string, {text}] and the model wrote it as a nested <text> element: toolwright reads " +
      "the object branch the element matches; llama.cpp keeps the element markup as a " +
      "string",
  },
  426: { kind: "differs", reason: BUILT_IN_RECIPIENT },
  427: { kind: "differs", reason: BUILT_IN_RECIPIENT },
  390: {
    kind: "differs",
    reason:
      "the reasoning holds what the model wrote; llama.cpp also counts the prompt's fixed preamble (\"Here " +
      "are my reasoning steps:\") as the model's reasoning",
  },
  391: {
    kind: "differs",
    reason:
      "the reasoning holds what the model wrote; llama.cpp also counts the prompt's fixed preamble (\"Here " +
      "are my reasoning steps:\") as the model's reasoning",
  },
};

const path = sharedData("llama-test-chat/cases.jsonl");
const cases: LlamaCase[] = path === null ? [] : loadLlamaCases(path);

interface Outcome {
  whole: Verdict;
  streamed: Verdict[];
}

function run(c: LlamaCase): Outcome {
  const params = paramsOf(c);
  return {
    whole: judge(c, replay(c, params)),
    streamed: [1, 2].map((seed) => judge(c, replay(c, params, randomCuts(c.input.length, c.id * 7 + seed)))),
  };
}

describe.skipIf(path === null)("llama.cpp's test-chat cases through toolwright's params and parser", () => {
  it("reads all 461 cases", () => {
    expect(cases).toHaveLength(461);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
  });

  it.each(cases.map((c) => ({ label: caseLabel(c), c })))("$label", ({ c }) => {
    const { whole, streamed } = run(c);
    const excused = IMPROVEMENTS[c.id];
    if (excused === undefined) expect(whole).toEqual({ kind: "exact" });
    else expect(whole.kind, `stale or wrong improvement entry: ${JSON.stringify(whole)}`).toBe(excused.kind);
    // Chunking never changes the message.
    for (const v of streamed) expect(v).toEqual(whole);
  });

  it("every improvement names a case and gives a reason", () => {
    for (const [id, entry] of Object.entries(IMPROVEMENTS)) {
      expect(
        cases.some((c) => c.id === Number(id)),
        `case ${id}`,
      ).toBe(true);
      expect(entry.reason.length).toBeGreaterThan(20);
    }
  });
});
