// Real model outputs from vllm-rust, avalan, Lynkr, prompt-prix and four issue threads
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family,
// through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("vllm-rust-avalan", "vllm-rust's, avalan's and others' parser tests", { count: 254, read: 236 });
