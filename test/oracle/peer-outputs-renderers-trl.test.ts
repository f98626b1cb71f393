// Real model outputs from the parsing tests of PrimeIntellect's renderers and of TRL (test/fixtures/peer-outputs/
// README.md), each mapped to a chat template of its family, through toolwright's own params and parser: a ratchet
// (see describePeerRatchet).
// 186, then 185: reasoning that runs into a call opener and never closes ends there without tools too (TensorRT-LLM's
// Nemotron 3 tests, SGLang's reasoning tests), which pir-deepseek_r1-2 keeps as reasoning.
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("renderers-trl", "PrimeIntellect renderers' and TRL's parsing tests", { count: 234, read: 185 });
