// Real model outputs from the tool-parser tests of runtimes outside Python (mlx-swift-lm, candle-vllm, vllm.rs,
// swift-transformers; test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through
// toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet(
  "swift-rust-runtimes",
  "mlx-swift-lm's, candle-vllm's, vllm.rs's and swift-transformers' tool-parser tests",
  { count: 92, read: 90 },
);
