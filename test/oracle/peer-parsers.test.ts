// Real model outputs from another serving project's tool-parser tests (../shared/peer-parsers-dev),
// each mapped to a chat template of its family, through toolwright's own params and parser, whole
// and in random chunks (test/helpers/peer-cases.ts). Every case passes, or is in DIFFERENCES with the reason.
import { describe } from "vitest";
import { type PeerCase, type PeerDifference, describePeerCases, loadPeerCases } from "../helpers/peer-cases.js";
import { sharedData } from "../helpers/shared-data.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

const BY_DESIGN = "by design";

/**
 * Cases read differently from the peer's test, by id. `by design`: toolwright's documented rule
 * differs (README, "Unfinished and malformed calls"); `not read yet`: an output shape the parser
 * does not read yet (work left on the issue "Read what models write").
 */
export const DIFFERENCES: Record<string, PeerDifference> = {
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
  "sglang-gigachat3-400-249840": {
    kind: BY_DESIGN,
    reason:
      "a finished call whose arguments are a string holding no object is a call with that text as its arguments " +
      "(the argument check reports it); this peer drops it, vLLM's parsers and SGLang's generic one return it",
  },
  "sglang-gigachat3-404-156699": {
    kind: BY_DESIGN,
    reason:
      "a JSON call without its arguments, between the format's markers, to a tool that requires none is a call " +
      "with `{}`; this peer rejects it, SGLang's Qwen 2.5 parser and Ollama's return it",
  },
  "sglang-gemma4-413-96c72c": {
    kind: BY_DESIGN,
    reason: "both calls are read; the text between the call blocks stays content, the peer drops ` more text `",
  },
};

const path = sharedData("peer-parsers-dev/cases.jsonl");
const cases: PeerCase[] = path === null ? [] : loadPeerCases(path);

describe.skipIf(path === null)("SGLang's parser tests", () => {
  describePeerCases(
    "peer parsers' real outputs through toolwright's params and parser",
    cases,
    160,
    DIFFERENCES,
    TEMPLATES_DIR,
  );
});
