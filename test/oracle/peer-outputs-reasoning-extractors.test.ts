// Real model outputs from reasoning extractors (AI SDK middleware, LocalAI) (test/fixtures/peer-outputs/README.md),
// each mapped to a chat template of its family, through toolwright's own params and parser: a ratchet (see
// describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("reasoning-extractors", "reasoning extractors (AI SDK middleware, LocalAI)", {
  count: 26,
  read: 25,
});
