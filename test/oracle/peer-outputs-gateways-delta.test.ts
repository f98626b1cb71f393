// Real model outputs from the parser tests of SGLang's router (written inside its parser files), smg (the gateway's
// standalone successor), LocalAI's chat endpoint and vLLM's and lmdeploy's newer files (test/fixtures/peer-outputs/
// README.md), each mapped to a chat template of its family, through toolwright's own params and parser: a ratchet
// (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("gateways-delta", "SGLang's router's, smg's and other runtimes' newer parser tests", {
  count: 130,
  read: 119,
});
