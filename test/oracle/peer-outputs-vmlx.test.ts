// Real model outputs from vMLX, NanoEngine, lqh (test/fixtures/peer-outputs/README.md), each mapped to a chat template
// of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("vmlx", "vMLX's, NanoEngine's and lqh's parser tests", { count: 161, read: 126 });
