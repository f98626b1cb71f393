// Real model outputs from SGLang's gateway (Rust) tool-parser tests (test/fixtures/peer-outputs/README.md), each
// mapped to a chat template of its family, through toolwright's own params and parser: a ratchet (see
// describePeerRatchet).
// 192: a JSON call written as a Python dict is read as the call (xinference's tests expect it), where
// sgrs-llama3_json-24 expects the text.
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("sglang-gateway", "SGLang's gateway (Rust) tool-parser tests", { count: 210, read: 192 });
