// Real model outputs from OpenVINO Model Server's output-parser tests (test/fixtures/peer-outputs/README.md), each
// mapped to a chat template of its family, through toolwright's own params and parser: a ratchet (see
// describePeerRatchet).
// 253: a Gemma 4 call without its argument braces right before its closer (`call:broken_tool<tool_call|>`) is a call
// with no arguments, as LiteRT-LM's tests read it (Google's runtime for Gemma); ovm-gemma4-19 expects no call.
// 252: LFM2 calls between the wrapper's markers without the list's brackets
// (`<|tool_call_start|>f(a=1)<|tool_call_end|>`) are read, as mlx-swift-lm's tests read them; ovm-lfm2-26 expects
// no call.
// 254: quotes inside a string that no string's follower follows are its text (`'it's the wonderful day'`).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("openvino-model-server", "OpenVINO Model Server's output-parser tests", { count: 302, read: 258 });
