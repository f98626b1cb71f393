// Real model outputs from LiteRT-LM's tool-call parser tests (test/fixtures/peer-outputs/README.md), each mapped to a
// chat template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("litert-lm", "LiteRT-LM's tool-call parser tests", { count: 61, read: 56 });
