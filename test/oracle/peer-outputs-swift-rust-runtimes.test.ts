// Real model outputs from mlx-swift-lm's and candle-vllm's tool-parser tests (test/fixtures/peer-outputs/README.md),
// each mapped to a chat template of its family, through toolwright's own params and parser: a ratchet (see
// describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("swift-rust-runtimes", "mlx-swift-lm's and candle-vllm's tool-parser tests", {
  count: 73,
  read: 72,
});
