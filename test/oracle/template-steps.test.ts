// The render budget (src/template/limits.ts) against real templates: every llama.cpp test
// template and every templates-dev template, rendered with every golden scenario, strict and
// lenient, must use a small fraction of MAX_RENDER_STEPS and nest far less than MAX_NESTING_DEPTH,
// so that the budget only ever stops hostile templates. A long conversation (the scenarios
// repeated 50 times, long contents) must fit too. The measurements are printed.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Evaluator } from "../../src/template/evaluator.js";
import { makeGlobals } from "../../src/template/globals.js";
import { hasFilter } from "../../src/template/jinja-filters.js";
import { JINJA_TESTS } from "../../src/template/jinja-tests.js";
import { MAX_NESTING_DEPTH, MAX_RENDER_STEPS } from "../../src/template/limits.js";
import { astDepth } from "../../src/template/nesting.js";
import { fromJs, type PyDict } from "../../src/template/py-values.js";
import { compileSource } from "../../src/template/syntax.js";
import { loadGoldens } from "../helpers/template-parity.js";
import { sharedData } from "../helpers/shared-data.js";

const FIXTURES = join(import.meta.dirname, "../fixtures");
const LLAMA = join(import.meta.dirname, "../../deps/llama.cpp/models/templates");
const sets = [
  { label: "llama.cpp", goldens: join(FIXTURES, "template-goldens"), dir: existsSync(LLAMA) ? LLAMA : null },
  { label: "templates-dev", goldens: join(FIXTURES, "template-goldens-dev"), dir: sharedData("templates-dev") },
];

/** Steps one render takes, whether it renders or raises (some scenarios raise by design). */
function stepsOf(source: string, context: Record<string, unknown>, lenient: boolean, now: () => Date): number {
  const program = compileSource(source, { hasFilter, hasTest: (n) => JINJA_TESTS.has(n) });
  const evaluator = new Evaluator(program, makeGlobals(now), undefined, { lenient, mutable: lenient });
  try {
    evaluator.render(fromJs({ bos_token: "<s>", eos_token: "</s>", ...context }) as PyDict);
  } catch {
    // The steps taken until the raise still count.
  }
  return evaluator.steps;
}

/** A long conversation: every message of `context` repeated `times` times, each content `pad` characters longer. */
function longConversation(context: Record<string, unknown>, times: number, pad: number): Record<string, unknown> {
  const messages = (context.messages as Record<string, unknown>[]) ?? [];
  const padded = messages.map((m) =>
    typeof m.content === "string" ? { ...m, content: m.content + " lorem ipsum".repeat(pad / 12) } : m,
  );
  return { ...context, messages: Array.from({ length: times }, () => padded).flat() };
}

describe("the render budget leaves real templates far inside it", () => {
  for (const set of sets) {
    it.skipIf(set.dir === null)(`${set.label}: every scenario under 1% of the steps, nesting under 1/4`, () => {
      const goldens = loadGoldens(set.goldens);
      let maxSteps = { steps: 0, where: "" };
      let maxLong = { steps: 0, where: "", chars: 0 };
      let maxDepth = { depth: 0, where: "" };
      for (const file of goldens.files) {
        const golden = JSON.parse(readFileSync(join(set.goldens, file), "utf8")) as {
          template: string;
          cases: Record<string, unknown>;
        };
        const source = readFileSync(join(set.dir!, golden.template), "utf8");
        let program: ReturnType<typeof compileSource>;
        try {
          program = compileSource(source, { hasFilter, hasTest: (n) => JINJA_TESTS.has(n) });
        } catch {
          continue; // a golden that fails to compile under Python Jinja2 too
        }
        const depth = astDepth(program);
        if (depth > maxDepth.depth) maxDepth = { depth, where: golden.template };
        for (const scenario of Object.keys(golden.cases)) {
          const context = goldens.scenarios[scenario]!;
          for (const lenient of [false, true]) {
            const steps = stepsOf(source, context, lenient, goldens.fixedNow);
            if (steps > maxSteps.steps) maxSteps = { steps, where: `${golden.template} / ${scenario}` };
          }
          const long = longConversation(context, 50, 2000);
          const steps = stepsOf(source, long, true, goldens.fixedNow);
          if (steps > maxLong.steps) {
            maxLong = { steps, where: `${golden.template} / ${scenario}`, chars: JSON.stringify(long).length };
          }
        }
      }
      console.log(
        `render budget (${set.label}): max ${maxSteps.steps} steps of ${MAX_RENDER_STEPS} (${maxSteps.where}); ` +
          `long conversations max ${maxLong.steps} steps for ${maxLong.chars} input characters (${maxLong.where}); ` +
          `max nesting ${maxDepth.depth} of ${MAX_NESTING_DEPTH} (${maxDepth.where})`,
      );
      expect(maxSteps.steps).toBeLessThan(MAX_RENDER_STEPS / 100);
      // Reka-Edge reads its growing output once per tool call (quadratic in V8 too): ~35% for ~1 MB.
      expect(maxLong.steps).toBeLessThan(MAX_RENDER_STEPS / 2);
      expect(maxDepth.depth).toBeLessThan(MAX_NESTING_DEPTH / 4);
    });
  }
});
