// Real model outputs quoted in issue and pull-request threads whose right reading a maintainer or a fix states
// (test/fixtures/peer-outputs/README.md), each mapped to a chat template of its family, through toolwright's own
// params and parser: a ratchet (see describePeerRatchet).
import { describePeerRatchet } from "../helpers/peer-cases.js";

describePeerRatchet("issue-outputs", "outputs quoted in issue threads", { count: 28, read: 25 });
