// Real model outputs from Python frameworks' parser tests (strands-sglang, EasyDeL, inspect_ai, langchain-ibm;
// test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("python-frameworks", "Python frameworks' parser tests", { count: 67, read: 58 });
