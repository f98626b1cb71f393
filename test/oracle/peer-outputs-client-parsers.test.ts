// Real model outputs from the parser tests of client-side projects (canitoolcall's conformance fixtures, Kilo Code,
// Qwen Code, agent-tool-parser; test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family,
// through toolwright's own params and parser: a ratchet (see describePeerRatchet). Kilo Code's eight cases write Kimi
// K2 call ids without their `:index` and keep the id as the name, which vLLM's, exo's, Dynamo's and lmdeploy's tests
// refuse (see app-runtimes' lld-kimi-4).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("client-parsers", "client projects' parser tests", { count: 68, read: 64 });
