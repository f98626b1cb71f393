// Real model outputs from the parser tests a second marker sweep found (mlxcel, tt-metal, llamadart's Muse Glimmer
// tests, two forks' own Solar Open and Ministral tests, omlish; test/fixtures/peer-outputs/README.md), each mapped to a
// chat template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("sweep-more", "a second marker sweep's parser tests", { count: 115, read: 87 });
