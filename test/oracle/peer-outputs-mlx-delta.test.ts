// Real model outputs from MLX servers' parser tests added since their first sets were mined (mlx-lm's harmony tests,
// vllm-mlx's GPT-OSS tool parsing, mlx-engine's newer tool-call tests; test/fixtures/peer-outputs/README.md), each
// mapped to a chat template of its family, through toolwright's own params and parser: a ratchet (see
// describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("mlx-delta", "MLX servers' newer parser tests", { count: 11, read: 11 });
