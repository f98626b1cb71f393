// Real model outputs from Tinker Cookbook's renderer parsing tests (test/fixtures/peer-outputs/README.md), each mapped
// to a chat template of its family, through toolwright's own params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("tinker-cookbook", "Tinker Cookbook's renderer parsing tests", { count: 27, read: 22 });
