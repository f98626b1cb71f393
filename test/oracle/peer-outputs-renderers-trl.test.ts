// Real model outputs from the parsing tests of PrimeIntellect's renderers and of TRL (test/fixtures/peer-outputs/
// README.md), each mapped to a chat template of its family, through toolwright's own params and parser: a ratchet
// (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("renderers-trl", "PrimeIntellect renderers' and TRL's parsing tests", { count: 234, read: 186 });
