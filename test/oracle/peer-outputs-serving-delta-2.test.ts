// Real model outputs from vLLM's, SGLang's (also its gateway's) and Osaurus's vmlx-swift parser tests added since
// their earlier sets were mined (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family,
// through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("serving-delta-2", "vLLM's, SGLang's and vmlx-swift's newer parser tests", {
  count: 74,
  read: 71,
});
