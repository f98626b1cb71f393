// A hostile template costs one render budget across all the renders of a capability detection or
// an analysis, not one budget per probe: the work is counted by an outer budget (steps, no clock).
import { describe, expect, it } from "vitest";
import { analyzeTemplate } from "../../src/analysis/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import { MAX_RENDER_STEPS, RenderBudget, withBudget } from "../../src/template/limits.js";

const HOSTILE = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}x";

/** The steps every render inside `fn` took together, and what `fn` threw. */
function stepsOf(fn: () => unknown): { steps: number; error: unknown } {
  const outer = new RenderBudget(Number.MAX_SAFE_INTEGER / 16);
  let error: unknown;
  withBudget(outer, () => {
    try {
      fn();
    } catch (e) {
      error = e;
    }
  });
  return { steps: outer.steps, error };
}

describe("one render budget for the renders of one job", () => {
  it.each([
    ["capability detection", () => new ChatTemplate(HOSTILE).caps],
    ["an analysis", () => analyzeTemplate(HOSTILE)],
  ])("%s of a hostile template takes at most one budget of steps", (_name, job) => {
    const { steps } = stepsOf(job);
    expect(steps).toBeGreaterThan(MAX_RENDER_STEPS / 2);
    expect(steps).toBeLessThanOrEqual(MAX_RENDER_STEPS + 1_000);
  });

  it("a render after the detection gets a budget of its own (it fails with the budget's error)", () => {
    const t = new ChatTemplate(HOSTILE);
    const { steps, error } = stepsOf(() => t.render({ messages: [{ role: "user", content: "hi" }] }));
    expect((error as Error).name).toBe("TemplateRuntimeError");
    expect((error as Error).message).toMatch(/render budget/);
    expect(steps).toBeLessThanOrEqual(2 * MAX_RENDER_STEPS + 2_000);
  });
});
