// Real model outputs from TensorRT-LLM's and LightLLM's tool-parser tests (test/fixtures/peer-outputs/README.md),
// each mapped to a chat template of its family, through toolwright's own params and parser: a ratchet (see
// describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("tensorrt-llm", "TensorRT-LLM's and LightLLM's tool-parser tests", { count: 153, read: 131 });
