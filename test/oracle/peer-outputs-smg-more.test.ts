// Real model outputs from more of smg's parser tests (the SGLang gateway's standalone successor: undeclared names,
// streams flushed at their end, additionalProperties, Cohere and GLM in-file tests; test/fixtures/peer-outputs/
// README.md), each mapped to a chat template of its family, through toolwright's own params and parser: a ratchet
// (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("smg-more", "more of smg's parser tests", { count: 64, read: 56 });
