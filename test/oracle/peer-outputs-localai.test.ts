// Real model outputs from LocalAI's function-call and reasoning parser tests (test/fixtures/peer-outputs/README.md),
// each mapped to a chat template of its family, through toolwright's own params and parser: a ratchet (see
// describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("localai", "LocalAI's function-call and reasoning parser tests", { count: 106, read: 104 });
