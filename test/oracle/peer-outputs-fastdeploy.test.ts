// Real model outputs from FastDeploy's tool- and reasoning-parser tests (test/fixtures/peer-outputs/README.md), each
// mapped to a chat template of its family, through toolwright's own params and parser: a ratchet (see
// describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("fastdeploy", "FastDeploy's parser tests", { count: 49, read: 36 });
