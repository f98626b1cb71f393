// Real model outputs from local runtimes' parser tests (Nexa SDK, Lemonade, lemon-mlx-engine, WebLLM, cortex.cpp,
// ik_llama.cpp) and chat-ui's (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family,
// through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("local-runtimes", "local runtimes' and chat-ui's parser tests", { count: 85, read: 82 });
