// Real model outputs from app runtimes' parser tests (llamadart and flutter_gemma in Dart, Rapid-MLX, AbstractCore;
// test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("app-runtimes", "llamadart's, flutter_gemma's, Rapid-MLX's and AbstractCore's parser tests", {
  count: 203,
  read: 176,
});
