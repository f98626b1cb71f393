// Real model outputs from the model vendors' own parsers (Meta's llama-models and llama-stack, mistral-common)
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser. Not classified case by case: every case parses the same whole and in chunks, and the count read
// as the peer's tests assert may only go up (raise READ).
import { fileURLToPath } from "node:url";
import { describePeerRatchet, loadPeerCases } from "../helpers/peer-cases.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

const READ = 30;

const cases = loadPeerCases(fileURLToPath(new URL("../fixtures/peer-outputs/vendors.jsonl", import.meta.url)));

describePeerRatchet(
  "the model vendors' own parsers (llama-models, llama-stack, mistral-common): real outputs through toolwright",
  cases,
  32,
  READ,
  TEMPLATES_DIR,
);
