// Real model outputs from the model vendors' own parsers (llama-models, llama-stack, mistral-common)
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("vendors", "the model vendors' own parsers (llama-models, llama-stack, mistral-common)", {
  count: 32,
  read: 30,
});
