// Real model outputs quoted in the issue threads of client projects and a model's repository (pi, hermes-agent,
// MiniMax-M2.5, mlx-openai-server, iFlow CLI, Command Code, Qwen Code, mlx-vlm) whose right reading the thread states
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family: a ratchet (see
// describePeerRatchet). p3-dsv4-1's DSML markers are degraded past what any template writes.
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("thread-outputs", "outputs quoted in client projects' threads", { count: 8, read: 7 });
