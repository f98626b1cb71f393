// Real model outputs from OpenVINO Model Server's output-parser tests (test/fixtures/peer-outputs/README.md), each
// mapped to a chat template of its family, through toolwright's own params and parser: a ratchet (see
// describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("openvino-model-server", "OpenVINO Model Server's output-parser tests", { count: 302, read: 254 });
