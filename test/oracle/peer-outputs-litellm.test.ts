// Real model outputs from LiteLLM's reasoning-splitter and tool-call-in-content tests
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("litellm", "LiteLLM's reasoning and tool-call-in-content tests", { count: 14, read: 13 });
