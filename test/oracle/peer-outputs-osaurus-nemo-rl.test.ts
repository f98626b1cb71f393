// Real model outputs from Osaurus's parser libraries (vmlx-swift, vmlx-swift-lm, Osaurus's own tests) and NeMo RL's
// Nemotron JSON tool-parser tests (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family,
// through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("osaurus-nemo-rl", "Osaurus's and NeMo RL's parser tests", { count: 48, read: 36 });
