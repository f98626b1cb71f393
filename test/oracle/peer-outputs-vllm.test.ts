// Real model outputs from vLLM's tool-parser tests (test/fixtures/peer-outputs/README.md), each mapped to a
// chat template of its family, through toolwright's own params and parser (test/helpers/peer-cases.ts). Every
// case passes, or is in DIFFERENCES with the reason.
import { fileURLToPath } from "node:url";
import { describePeerCases, loadPeerCases, peerDifferences, type PeerDifference } from "../helpers/peer-cases.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

const BY_DESIGN = "by design";
const NOT_YET = "not read yet";

const entries = peerDifferences;

/**
 * Cases read differently from vLLM's test, by id. `by design`: toolwright's documented rule differs
 * (docs/reading-output.md); `not read yet`: an output shape the parser does not read yet.
 */
export const DIFFERENCES: Record<string, PeerDifference> = {
  ...entries(
    ["vllm-deepseek_v4-2"],
    BY_DESIGN,
    "a call whose section opener is missing or another version's is read from its own opener; the other text " +
      "stays content (the peer reads none)",
  ),
  ...entries(
    [
      "vllm-llama3_json-1",
      "vllm-mistral-9",
      "vllm-deepseek_v31-2",
      "vllm-minicpm5-2-9dc001",
      "vllm-minicpm5-12-10eeec",
      "vllm-glm45-9",
    ],
    BY_DESIGN,
    "the text around the calls stays content; the peer drops it",
  ),
  ...entries(
    [
      "vllm-nemotron_nano_v2-8",
      "vllm-seed_oss-3-6a1e1e",
      "vllm-seed_oss-4-adb701",
      "vllm-seed_oss-5-968be7",
      "vllm-glm45-7",
    ],
    BY_DESIGN,
    "reasoning goes to reasoning_content; the peer's tool parser alone leaves the block in content",
  ),
  ...entries(
    [
      "vllm-mistral-15",
      "vllm-apertus-7",
      "vllm-kimi_k2-28",
      "vllm-hy_v3-11",
      "vllm-hy_v3-12",
      "vllm-hy_v3-13",
      "vllm-hy_v3-14",
      "vllm-hy_v3-15",
      "vllm-hy_v3-16",
    ],
    BY_DESIGN,
    "a call the output ends inside is not a call (its text is content); the peer returns it",
  ),
  ...entries(
    [
      "vllm-mistral-11",
      "vllm-mistral-17",
      "vllm-kimi_k2-9",
      "vllm-kimi_k2-15",
      "vllm-minimax_m3-6",
      "vllm-lfm2-26",
      "vllm-gpt_oss-4",
    ],
    BY_DESIGN,
    "a malformed call is content as written, markers included; the peer returns it or drops it",
  ),
  ...entries(
    [
      "vllm-minicpm5-16-be6215",
      "vllm-minicpm5-21-2dad23",
      "vllm-minicpm5-22-7e680a",
      "vllm-minicpm5-23-d65977",
      "vllm-minicpm5-24-5e6aaf",
    ],
    BY_DESIGN,
    "an undeclared argument is kept and reported by the argument check; the peer drops it or the call",
  ),
  ...entries(
    ["vllm-minicpm5-25-5dfde9", "vllm-minicpm5-26-aff4b0", "vllm-minicpm5-27-31b07b"],
    BY_DESIGN,
    "a call to a tool the request does not declare is content; the peer maps the name to a declared tool",
  ),
  ...entries(
    [
      "vllm-cohere_command-2",
      "vllm-cohere_command-6",
      "vllm-minicpm5-18-d63e2e",
      "vllm-minimax_m2-15",
      "vllm-minimax_m2-16",
    ],
    BY_DESIGN,
    "text and values stay as the model wrote them; the peer rewrites them",
  ),
  ...entries(
    ["vllm-minimax_m1-10"],
    BY_DESIGN,
    "a valid call written over several lines is read; the peer's parser misses it",
  ),
  ...entries(["vllm-gemma4-32"], NOT_YET, "a call opener the template never writes (`<call>` for `<|tool_call>call:`)"),
};

const cases = loadPeerCases(fileURLToPath(new URL("../fixtures/peer-outputs/vllm.jsonl", import.meta.url)));

describePeerCases(
  "vLLM's parser tests: real outputs through toolwright's params and parser",
  cases,
  505,
  DIFFERENCES,
  TEMPLATES_DIR,
);
