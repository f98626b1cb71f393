// Real model outputs from vLLM's reasoning-parser tests (test/fixtures/peer-outputs/README.md), each mapped to a chat
// template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("vllm-reasoning", "vLLM's reasoning-parser tests", { count: 163, read: 135 });
