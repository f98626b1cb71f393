// Real model outputs from xLLM's GLM-4.7 detector tests (test/fixtures/peer-outputs/README.md), each mapped to a chat
// template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("xllm", "xLLM's GLM-4.7 detector tests", { count: 28, read: 24 });
