// Real model outputs from another serving project's tool-parser tests (../shared/peer-parsers-dev),
// each mapped to a chat template of its family, through toolwright's own params and parser, whole
// and in random chunks. Every case passes, or is in DIFFERENCES with the reason; a stale entry fails.
// Whatever the verdict, every chunking gives the same message, and the deltas add up to it.
import { describe, expect, it } from "vitest";
import {
  type PeerCase,
  loadPeerCases,
  peerChunks,
  peerParams,
  peerProblems,
  peerReplay,
} from "../helpers/peer-cases.js";
import { sharedData } from "../helpers/shared-data.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

const BY_DESIGN = "by design";
const NOT_YET = "not read yet";

/**
 * Cases read differently from the peer's test, by id. `by design`: toolwright's documented rule
 * differs (README, "Unfinished and malformed calls"); `not read yet`: an output shape the parser
 * does not read yet (work left on the issue "Read what models write").
 */
export const DIFFERENCES: Record<string, { kind: typeof BY_DESIGN | typeof NOT_YET; reason: string }> = {
  "sglang-minicpm5-454-7fa67c": {
    kind: BY_DESIGN,
    reason:
      "an undeclared argument (`City` for `city`) is kept and reported by the argument checks; the peer drops the call",
  },
  "sglang-mistral-477-bbb59a": {
    kind: BY_DESIGN,
    reason: "output that is no call stays content as written; the peer drops `[TOOL_CALLS] [not valid json]`",
  },
  "sglang-gemma4-416-a574c4": {
    kind: BY_DESIGN,
    reason: "a call to a tool the request does not declare is content, never a call; the peer returns it",
  },
  "sglang-gemma4-413-96c72c": {
    kind: BY_DESIGN,
    reason: "both calls are read; the text between the call blocks stays content, the peer drops ` more text `",
  },
};

const path = sharedData("peer-parsers-dev/cases.jsonl");
const cases: PeerCase[] = path === null ? [] : loadPeerCases(path);

describe.skipIf(path === null)("peer parsers' real outputs through toolwright's params and parser", () => {
  it("reads all 160 cases", () => {
    expect(cases).toHaveLength(160);
  });

  it.each(cases.map((c) => ({ label: `${c.id} (${c.family})`, c })))("$label", ({ c }) => {
    const params = peerParams(c, TEMPLATES_DIR);
    const whole = peerReplay(params, [c.input]);
    const problems = peerProblems(c, whole.message);
    const excused = DIFFERENCES[c.id];
    if (excused === undefined) expect(problems).toEqual([]);
    else expect(problems.length, `stale difference entry: ${c.id} now passes`).toBeGreaterThan(0);
    expect(whole.sum).toEqual(whole.message);
    for (const [seed, max] of [
      [7, 3],
      [11, 8],
      [13, 24],
    ] as const) {
      const streamed = peerReplay(params, peerChunks(c.input, seed, max));
      expect(streamed.message, `chunks (seed ${seed})`).toEqual(whole.message);
      expect(streamed.sum, `deltas (seed ${seed})`).toEqual(whole.message);
    }
  });

  it("every difference names a case and gives a reason", () => {
    for (const [id, entry] of Object.entries(DIFFERENCES)) {
      expect(
        cases.some((c) => c.id === id),
        id,
      ).toBe(true);
      expect(entry.reason.length).toBeGreaterThan(20);
    }
  });
});
