// Real model outputs from the parser tests of agent clients (ds4go, OpenClaw, OpenFoundationModels' Ollama and MLX
// backends, nanobot; test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through
// toolwright's own params and parser: a ratchet (see describePeerRatchet). ds4go keeps a whole DSML block as text when
// text follows it or a value breaks its type, and reads misspelled DSML markers; OpenClaw cleans visible text only.
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("agent-clients", "agent clients' parser tests", { count: 78, read: 59 });
