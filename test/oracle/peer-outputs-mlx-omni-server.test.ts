// Real model outputs from mlx-omni-server's tool- and reasoning-parser tests (test/fixtures/peer-outputs/README.md),
// each mapped to a chat template of its family, through toolwright's own params and parser: a ratchet (see
// describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("mlx-omni-server", "mlx-omni-server's tool- and reasoning-parser tests", { count: 117, read: 77 });
