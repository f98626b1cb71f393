// Real model outputs from the tests of the AI SDK tool-call middleware (minpeter/ai-sdk-tool-call-middleware) and of
// oMLX (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("middleware-omlx", "the AI SDK tool-call middleware's and oMLX's tests", { count: 70, read: 58 });
