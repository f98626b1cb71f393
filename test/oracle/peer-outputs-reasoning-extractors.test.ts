// Real model outputs from the AI SDK's reasoning middleware and LocalAI's reasoning extractor tests
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser. Not classified case by case: every case parses the same whole and in chunks, and the count read
// as the peer's tests assert may only go up (raise READ).
import { fileURLToPath } from "node:url";
import { describePeerRatchet, loadPeerCases } from "../helpers/peer-cases.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

const READ = 24;

const cases = loadPeerCases(
  fileURLToPath(new URL("../fixtures/peer-outputs/reasoning-extractors.jsonl", import.meta.url)),
);

describePeerRatchet(
  "reasoning extractors (AI SDK middleware, LocalAI): real outputs through toolwright's parser",
  cases,
  26,
  READ,
  TEMPLATES_DIR,
);
