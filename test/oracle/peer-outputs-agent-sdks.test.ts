// Real model outputs from agent SDKs' parsers of calls a model writes in text (Google's ADK, NVIDIA NeMo Gym, the
// OpenHands SDK, SWE-agent; test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family,
// through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("agent-sdks", "agent SDKs' parser tests", { count: 43, read: 33 });
