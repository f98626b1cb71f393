// Real model outputs from more of the serving runtimes' newer parser tests (SGLang's gateway JSON, registry,
// streaming and wrapper-token tests; xLLM's GLM 4.5, Kimi K2 and Qwen3 Coder detectors; Dynamo's Gemma 4, harmony,
// Kimi K2.5, MiniMax and GPT-OSS reasoning tests; test/fixtures/peer-outputs/README.md), each mapped to a chat template
// of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("runtimes-delta-more", "more of the serving runtimes' newer parser tests", {
  count: 122,
  read: 99,
});
