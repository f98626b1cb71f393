// Real model outputs from rtp-llm's tool-parser and renderer tests (test/fixtures/peer-outputs/README.md), each mapped
// to a chat template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("rtp-llm", "rtp-llm's tool-parser and renderer tests", { count: 166, read: 154 });
