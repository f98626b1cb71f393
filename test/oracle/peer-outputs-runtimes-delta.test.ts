// Real model outputs from serving runtimes' parser tests added since their first sets were mined (lmdeploy's newer
// files, xLLM's detector tests, Dynamo's reasoning parser tests, FastDeploy's ERNIE reasoning tests;
// test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own params
// and parser: a ratchet (see describePeerRatchet). xLLM drops a malformed, unfinished or undeclared call's text and the
// text after calls; lmdeploy reads calls inside a closed `<think>` block, which Dynamo's parser keeps as reasoning.
// 94 at first, then 93: d2-fd-ernie45_vl-2 keeps `<tool_call>` markup after reasoning never closed as reasoning,
// where TensorRT-LLM's and SGLang's reasoning tests end reasoning at it (toolwright now does, tools or not).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("runtimes-delta", "serving runtimes' newer parser tests", { count: 122, read: 93 });
