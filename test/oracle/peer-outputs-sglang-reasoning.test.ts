// Real model outputs from SGLang's reasoning-parser tests (test/fixtures/peer-outputs/README.md), each mapped to a
// chat template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("sglang-reasoning", "SGLang's reasoning-parser tests", { count: 188, read: 175 });
