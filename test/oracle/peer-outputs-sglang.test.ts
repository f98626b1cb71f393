// Real model outputs from SGLang's other parser tests (test/fixtures/peer-outputs/README.md), each mapped to a chat
// template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
// 725: a reasoning block opened after content is reasoning (reasoning-in-content.ts), also the literal markers
// sglang2-deepseek_v4-108 explains in its text (SGLang's opt-in strict mode keeps them); a Muse Glimmer call block
// without its message header is a call, as OpenVINO Model Server's and mlx-engine's tests read it
// (sglang2-muse_glimmer-14 expects content). 729: Gemma 4 strings whose opening delimiter is left out. 739, then 737:
// a DSML parameter without its `string` flag is read (avalan, agent-tool-parser and SGLang's default mode read it),
// which sglang2-deepseek_v4-15 and sglang2-deepseek_v32-13 refuse (SGLang's opt-in strict DSML mode). 738: an untyped
// parameter's value that reads whole as JSON is that JSON.
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("sglang", "SGLang's other parser tests", { count: 834, read: 738 });
