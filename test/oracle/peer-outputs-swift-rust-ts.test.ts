// Real model outputs from MLXFoundationModel, zeroclaw, smg, AnyLanguageModel, LocalLLMClient and llxprt-code
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family,
// through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("swift-rust-ts", "Swift, Rust and TypeScript projects' parser tests", { count: 78, read: 72 });
