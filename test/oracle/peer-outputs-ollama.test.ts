// Real model outputs from Ollama's tool-parser tests (test/fixtures/peer-outputs/README.md), each mapped to a
// chat template of its family, through toolwright's own params and parser (test/helpers/peer-cases.ts). Every
// case passes, or is in DIFFERENCES with the reason.
import { fileURLToPath } from "node:url";
import { describePeerCases, loadPeerCases, peerDifferences, type PeerDifference } from "../helpers/peer-cases.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

const BY_DESIGN = "by design";
const NOT_YET = "not read yet";
const entries = peerDifferences;

/**
 * Cases read differently from Ollama's test, by id. `by design`: toolwright's documented rule differs
 * (docs/reading-output.md); `not read yet`: an output shape the parser does not read yet.
 */
export const DIFFERENCES: Record<string, PeerDifference> = {
  ...entries(
    [
      "ollama-qwen3coder-16",
      "ollama-qwen3coder-17",
      "ollama-qwen3coder-18",
      "ollama-qwen3coder-19",
      "ollama-qwen35-12",
      "ollama-qwen35-13",
      "ollama-qwen3-11",
      "ollama-qwen3-12",
      "ollama-qwen3-13",
      "ollama-qwen3-14",
      "ollama-qwen3-15",
      "ollama-glm46-49",
      "ollama-glm46-50",
      "ollama-glimmer-29",
    ],
    BY_DESIGN,
    "the text of a malformed or unfinished call is content with its markers; the peer strips them",
  ),
  ...entries(
    ["ollama-qwen3vl-2", "ollama-qwen3vl-5"],
    BY_DESIGN,
    "a reasoning block the model writes though the prompt turned thinking off is reasoning (SGLang's reasoning " +
      "parsers read it so); the peer's non-thinking parser leaves it in content",
  ),
  ...entries(
    ["ollama-qwen3vl-28"],
    BY_DESIGN,
    "a reasoning end written again at once closes the block once and is not content (SGLang's and rtp-llm's " +
      "tests read it so); the peer keeps the second in content",
  ),
  ...entries(
    ["ollama-qwen35-19", "ollama-deepseek3-45", "ollama-deepseek3-46", "ollama-deepseek3-52"],
    BY_DESIGN,
    "a malformed or unfinished call's text and the text around it stay content; the peer drops them",
  ),
  ...entries(
    ["ollama-minimax_m2-11"],
    BY_DESIGN,
    "text on either side of a call joins with the whitespace written around it; the peer drops that whitespace",
  ),
  ...entries(
    [
      "ollama-deepseek3-7",
      "ollama-deepseek3-12",
      "ollama-deepseek3-19",
      "ollama-deepseek3-20",
      "ollama-deepseek3-24",
      "ollama-deepseek3-27",
      "ollama-deepseek3-51",
      "ollama-cogito-7",
    ],
    BY_DESIGN,
    "tool-output markers the model writes in its answer stay content as written; the peer strips them",
  ),
  ...entries(
    ["ollama-deepseek3-41", "ollama-deepseek3-42", "ollama-ministral-22"],
    BY_DESIGN,
    "reasoning is read where the template puts it (before the answer, up to the first end marker) and as a " +
      "block opened after content; a nested block, or text the peer reads around such a block otherwise, stays content",
  ),
  ...entries(
    ["ollama-minimax_m2-14", "ollama-minimax_m2-27"],
    BY_DESIGN,
    "a reasoning block after content is reasoning, the content around it joined as written; the peer collapses " +
      "the two spaces around the block into one",
  ),
  ...entries(
    ["ollama-gemma4-34", "ollama-gemma4-35", "ollama-gemma4-37"],
    BY_DESIGN,
    "a closing or turn marker the model repeats after its calls stays content as written",
  ),
  ...entries(
    [
      "ollama-cogito-22",
      "ollama-cogito-23",
      "ollama-cogito-24",
      "ollama-cogito-26",
      "ollama-intellect3-17",
      "ollama-glm46-51",
    ],
    BY_DESIGN,
    "a finished call to a declared tool is read (an extra field, an argument name with no value, a call or " +
      "section closer or the arguments' fence left out); the peer rejects it",
  ),
  ...entries(
    ["ollama-deepseek3-40"],
    BY_DESIGN,
    "JSON arguments left out of a call to a tool that requires none are `{}`, as LMDeploy's and FastDeploy's " +
      "tests read them; the peer drops the call",
  ),
  ...entries(
    ["ollama-apertus-13"],
    BY_DESIGN,
    "arguments written as a string that holds no object make a call with that text (the argument check reports it)",
  ),
  ...entries(
    ["ollama-glm46-41"],
    BY_DESIGN,
    "an argument written twice makes the call malformed (its text is content); the peer keeps the last value",
  ),
  ...entries(
    ["ollama-laguna-7"],
    BY_DESIGN,
    "a call to a tool the request does not declare is content; the peer maps the name to a declared tool",
  ),
  ...entries(
    ["ollama-minimax_m2-6", "ollama-minimax_m2-7", "ollama-minimax_m2-15", "ollama-minimax_m2-23"],
    BY_DESIGN,
    "a string parameter's value is the text as written (JSON in it, whitespace around it); the peer decodes or " +
      "trims it",
  ),
  ...entries(
    ["ollama-glimmer-20"],
    BY_DESIGN,
    "a message to the user is content whatever it holds (its header names no tool, as the call trigger says)",
  ),
  ...entries(
    ["ollama-laguna-10", "ollama-laguna-11", "ollama-laguna-12", "ollama-laguna-13"],
    NOT_YET,
    "a call in another wrapper (`<user>` for `<tool_call>`) in a tagged format",
  ),
  ...entries(
    ["ollama-laguna-45"],
    BY_DESIGN,
    "a JSON object without the format's markers is a call only where its first field names a declared tool",
  ),
  ...entries(
    ["ollama-qwen3vl-19", "ollama-glimmer-8", "ollama-glimmer-9", "ollama-glimmer-10", "ollama-glimmer-11"],
    NOT_YET,
    "a name or key the format's reader does not take: escaped quotes, spaces, `&`, stray markers inside it",
  ),
  ...entries(
    ["ollama-minicpm5-7", "ollama-cohere-10"],
    NOT_YET,
    "a shape of another version of the format: an `<arguments>` wrapper, reasoning or " +
      "answer markers the template does not write",
  ),
};

const cases = loadPeerCases(fileURLToPath(new URL("../fixtures/peer-outputs/ollama.jsonl", import.meta.url)));

describePeerCases(
  "Ollama's parser tests: real outputs through toolwright's params and parser",
  cases,
  631,
  DIFFERENCES,
  TEMPLATES_DIR,
);
