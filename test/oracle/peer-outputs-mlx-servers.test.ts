// Real model outputs from mlx-openai-server's and mlx-vlm's parser tests (test/fixtures/peer-outputs/README.md), each
// mapped to a chat template of its family, through toolwright's own params and parser: a ratchet (see
// describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("mlx-servers", "mlx-openai-server's and mlx-vlm's parser tests", { count: 148, read: 120 });
