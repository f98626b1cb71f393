// Real model outputs from smaller projects' parser tests (olmlx, minimax-m2-proxy, gLLM, strands-sglang, tunacode,
// tokin, Towel; test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through
// toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("small-projects", "smaller projects' parser tests", { count: 110, read: 97 });
