// Real model outputs from the model vendors' own parsers (llama-models, llama-stack, mistral-common, granite-io,
// NousResearch's hermes-agent, MeetKai's functionary) (test/fixtures/peer-outputs/README.md), each mapped to a chat
// template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet(
  "vendors",
  "the model vendors' own parsers (llama-models, llama-stack, mistral-common, granite-io, hermes-agent, functionary)",
  {
    count: 94,
    read: 87,
  },
);
