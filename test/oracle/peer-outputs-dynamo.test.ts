// Real model outputs from NVIDIA Dynamo's tool-parser tests (test/fixtures/peer-outputs/README.md), each mapped to a
// chat template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("dynamo", "NVIDIA Dynamo's tool-parser tests", { count: 250, read: 223 });
