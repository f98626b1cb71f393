// Real model outputs from agent libraries' tool-call and reasoning parsing tests: smolagents, Haystack and its
// integrations, pydantic-ai (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family,
// through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("agent-libraries", "smolagents', Haystack's and pydantic-ai's parsing tests", {
  count: 24,
  read: 19,
});
