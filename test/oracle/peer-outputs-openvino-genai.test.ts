// Real model outputs from OpenVINO GenAI's output-parser tests (test/fixtures/peer-outputs/README.md), each mapped to
// a chat template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("openvino-genai", "OpenVINO GenAI's output-parser tests", { count: 20, read: 17 });
