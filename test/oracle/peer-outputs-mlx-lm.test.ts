// Real model outputs from mlx-lm's tool-parser tests (test/fixtures/peer-outputs/README.md), each mapped to a chat
// template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("mlx-lm", "mlx-lm's tool-parser tests", { count: 78, read: 63 });
