// Real model outputs from LMDeploy's parser tests (test/fixtures/peer-outputs/README.md), each mapped to a chat
// template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("lmdeploy", "LMDeploy's parser tests", { count: 105, read: 85 });
