// Real model outputs from vLLM's other tool-parser tests (tests/tool_use/, tests/entrypoints/openai/tool_parsers/)
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser. Not classified case by case: every case parses the same whole and in chunks, and the count read
// as the peer's tests assert may only go up (raise READ).
import { fileURLToPath } from "node:url";
import { describePeerRatchet, loadPeerCases } from "../helpers/peer-cases.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

const READ = 128;

const cases = loadPeerCases(fileURLToPath(new URL("../fixtures/peer-outputs/vllm-more.jsonl", import.meta.url)));

describePeerRatchet(
  "vLLM's other tool-parser tests: real outputs through toolwright's params and parser",
  cases,
  165,
  READ,
  TEMPLATES_DIR,
);
