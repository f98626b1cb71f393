// Real model outputs from agent libraries' tool-call and reasoning parsing tests: smolagents, Haystack and its
// integrations, pydantic-ai, OpenHands, AutoGen (test/fixtures/peer-outputs/README.md), each mapped to a chat
// template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("agent-libraries", "smolagents', Haystack's, pydantic-ai's, OpenHands' and AutoGen's tests", {
  count: 33,
  read: 28,
});
