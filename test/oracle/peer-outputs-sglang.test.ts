// More real model outputs from SGLang's parser tests than ../shared/peer-parsers-dev holds
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's
// own params and parser. Not yet classified case by case: every case parses the same whole and in chunks,
// and the count read as SGLang's tests assert may only go up (raise READ when it does).
import { fileURLToPath } from "node:url";
import { describePeerRatchet, loadPeerCases } from "../helpers/peer-cases.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

// 725: a reasoning block opened after content is reasoning (reasoning-in-content.ts), also the literal markers
// sglang2-deepseek_v4-108 explains in its text (SGLang's opt-in strict mode keeps them); a Muse Glimmer call block
// without its message header is a call, as OpenVINO Model Server's and mlx-engine's tests read it
// (sglang2-muse_glimmer-14 expects content).
const READ = 725;

const cases = loadPeerCases(fileURLToPath(new URL("../fixtures/peer-outputs/sglang.jsonl", import.meta.url)));

describePeerRatchet(
  "SGLang's other parser tests: real outputs through toolwright's params and parser",
  cases,
  834,
  READ,
  TEMPLATES_DIR,
);
