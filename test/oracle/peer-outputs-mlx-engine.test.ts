// Real model outputs from LM Studio's mlx-engine tool-call tests (test/fixtures/peer-outputs/README.md), each mapped
// to a chat template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("mlx-engine", "LM Studio's mlx-engine tool-call tests", { count: 34, read: 29 });
