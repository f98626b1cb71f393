// Real model outputs from vLLM Ascend's tests of its own parsers (Kimi K3, MiniMax M2 and M3, GLM 4.7, DeepSeek V4)
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("vllm-ascend", "vLLM Ascend's parser tests", { count: 86, read: 77 });
