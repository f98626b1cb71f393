// Real model outputs from SGLang's gateway (Rust) tool-parser tests (test/fixtures/peer-outputs/README.md),
// each mapped to a chat template of its family, through toolwright's own params and parser. Not classified case
// by case: every case parses the same whole and in chunks, and the count read as the peer's tests assert may only
// go up (raise READ).
import { fileURLToPath } from "node:url";
import { describePeerRatchet, loadPeerCases } from "../helpers/peer-cases.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

// 192: a JSON call written as a Python dict is read as the call (xinference's tests expect it), where
// sgrs-llama3_json-24 expects the text.
const READ = 192;

const cases = loadPeerCases(fileURLToPath(new URL("../fixtures/peer-outputs/sglang-gateway.jsonl", import.meta.url)));

describePeerRatchet(
  "SGLang's gateway (Rust) tool-parser tests: real outputs through toolwright's params and parser",
  cases,
  210,
  READ,
  TEMPLATES_DIR,
);
