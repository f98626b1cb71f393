// Real model outputs from transformers' response-parsing tests (test/fixtures/peer-outputs/README.md), each mapped to
// a chat template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("transformers", "transformers' response-parsing tests", { count: 28, read: 28 });
