// Real model outputs from agent apps' parsers of calls written in text: goose, Letta, AnythingLLM, LangChain4j, Spring
// AI (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("agent-apps", "agent apps' parser tests", { count: 62, read: 57 });
