// Real model outputs from the model vendors' own parsers (llama-models, llama-stack, mistral-common, granite-io)
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet(
  "vendors",
  "the model vendors' own parsers (llama-models, llama-stack, mistral-common, granite-io)",
  {
    count: 41,
    read: 36,
  },
);
