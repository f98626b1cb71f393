// Real model outputs from vLLM's other tool-parser tests (test/fixtures/peer-outputs/README.md), each mapped to a
// chat template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("vllm-more", "vLLM's other tool-parser tests", { count: 165, read: 137 });
