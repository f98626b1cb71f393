// Real model outputs from coding agents' reasoning-tag tests (Continue, aider, Cline, Roo Code;
// test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("editor-agents", "coding agents' reasoning-tag tests", { count: 30, read: 28 });
