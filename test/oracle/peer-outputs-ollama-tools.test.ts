// Real model outputs from Ollama's older generic tool parser tests (`tools/`) (test/fixtures/peer-outputs/README.md),
// each mapped to a chat template of its family, through toolwright's own params and parser: a ratchet (see
// describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("ollama-tools", "Ollama's older generic tool parser tests (`tools/`)", { count: 57, read: 33 });
