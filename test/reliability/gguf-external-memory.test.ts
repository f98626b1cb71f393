// Contexts dropped without dispose() are freed by their finalizers, but only when V8 collects
// them, and V8 only learns how much native memory they hold if the addon tells it
// (AdjustExternalMemory). Without that, 1,000 undisposed contexts on a tiny model grew RSS by
// about 300 MiB even with a gc() every 100 contexts; with it, by well under half that.
import { describe, expect, it } from "vitest";
import { isolated } from "../helpers/isolated.js";
import { ensureTestModel } from "../helpers/test-models.js";

/** RSS growth over 1,000 undisposed contexts allowed (MiB); it was ~300 before the fix, ~70 after. */
const GROWTH_BOUND_MIB = 180;

describe("native memory reported to V8", () => {
  it("1,000 contexts dropped without dispose(): RSS stays bounded", async () => {
    const model = await ensureTestModel({ vocab: "llama-spm" });
    const r = await isolated(
      `const v8 = await import("node:v8");
      const vm = await import("node:vm");
      v8.setFlagsFromString("--expose-gc");
      const gc = vm.runInNewContext("gc");
      const m = await lib.loadModel(${JSON.stringify(model)});
      await m.createContext({ contextSize: 256, threads: 1 });
      gc();
      await new Promise((r) => setImmediate(r));
      const start = process.memoryUsage().rss;
      for (let i = 0; i < 1000; i++) {
        await m.createContext({ contextSize: 256, threads: 1 });
        if (i % 100 === 99) {
          gc();
          await new Promise((r) => setImmediate(r));
        }
      }
      return { growthMiB: (process.memoryUsage().rss - start) / 2 ** 20 };`,
      { timeoutMs: 300_000 },
    );
    expect(r.kind, r.stderr).toBe("returned");
    expect((r.value as { growthMiB: number }).growthMiB).toBeLessThan(GROWTH_BOUND_MIB);
  }, 400_000);
});
