// The child-process harness the reliability suite runs its cases in: it tells a value, an
// error, a crash and a hang apart.
import { describe, expect, it } from "vitest";
import { isolated } from "../helpers/isolated.js";

describe("isolated()", () => {
  it("returns what the body returns", async () => {
    const r = await isolated(`return typeof lib.loadModel;`);
    expect(r).toMatchObject({ kind: "returned", value: "function" });
  });

  it("reports a thrown error with its class and code", async () => {
    const r = await isolated(`await lib.readGgufMetadata("/nonexistent/model.gguf");`);
    expect(r.kind).toBe("threw");
    expect(r.error).toMatchObject({ name: "GgufError", code: "NOT_FOUND" });
  });

  it("tells a crash from an error", async () => {
    const r = await isolated(`process.kill(process.pid, "SIGSEGV");`);
    expect(r.kind).toBe("crashed");
    expect(r.signal).toBe("SIGSEGV");
  });

  it("tells a hang from a slow answer", async () => {
    const r = await isolated(`for (;;) {}`, { timeoutMs: 2_000 });
    expect(r.kind).toBe("hung");
  });
});
