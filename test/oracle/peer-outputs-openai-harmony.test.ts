// Real model outputs from openai/harmony's parsing tests (test/fixtures/peer-outputs/README.md), each mapped to a
// chat template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("openai-harmony", "openai/harmony's parsing tests", { count: 8, read: 8 });
