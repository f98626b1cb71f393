// Real model outputs from vllm-mlx's tool and reasoning parser tests (test/fixtures/peer-outputs/README.md), each
// mapped to a chat template of its family, through toolwright's own params and parser: a ratchet (see
// describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("vllm-mlx", "vllm-mlx's tool and reasoning parser tests", { count: 155, read: 150 });
