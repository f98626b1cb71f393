// Real model outputs from local runtimes' parser tests (Nexa SDK, Lemonade, lemon-mlx-engine, WebLLM, cortex.cpp;
// test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("local-runtimes", "local runtimes' tool-call parser tests", { count: 54, read: 53 });
