// Real model outputs from SGLang-JAX's own function-call and reasoning-parser tests (test/fixtures/peer-
// outputs/README.md), each mapped to a chat template of its family, through toolwright's own params and parser: a
// ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("sglang-jax", "SGLang-JAX's parser tests", { count: 47, read: 45 });
