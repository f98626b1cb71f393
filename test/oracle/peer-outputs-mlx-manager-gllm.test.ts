// Real model outputs from mlx-manager, gLLM, Aster and LLM-jp-4's parsers in LLM-jp's vLLM, SGLang and Ollama forks
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family,
// through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("mlx-manager-gllm", "mlx-manager's, gLLM's, Aster's and LLM-jp's parser tests", {
  count: 258,
  read: 201,
});
