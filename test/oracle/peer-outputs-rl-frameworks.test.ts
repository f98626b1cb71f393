// Real model outputs from reinforcement-learning frameworks' tool-parser tests: verl, rLLM, AReaL, ROLL, verifiers
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("rl-frameworks", "verl's, rLLM's, AReaL's, ROLL's and verifiers' tool-parser tests", {
  count: 50,
  read: 48,
});
