// Real model outputs from vLLM's, SGLang's and TensorRT-LLM's parser tests added since their first sets were mined
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own params
// and parser: a ratchet (see describePeerRatchet). SGLang's harmony tests chain call messages with a stray
// `commentary` after `<|call|>`, and its pythonic detector reads a positional argument as no argument.
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("serving-delta", "vLLM's, SGLang's and TensorRT-LLM's newer parser tests", {
  count: 129,
  read: 119,
});
