// Real model outputs quoted in issue and pull-request threads of llama.cpp, LM Studio, vLLM, SGLang, Ollama, oMLX and
// mlx-lm whose right reading the thread states (test/fixtures/peer-outputs/README.md), each mapped to a chat template
// of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("issue-threads", "more outputs quoted in issue threads", { count: 19, read: 19 });
