// Real model outputs from LLaMA-Factory's, ms-swift's and Qwen-Agent's tool-extraction tests
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("agent-frameworks", "LLaMA-Factory's, ms-swift's and Qwen-Agent's tool-extraction tests", {
  count: 43,
  read: 41,
});
