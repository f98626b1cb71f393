// Parity with Python Jinja2 over a folder of goldens written by scripts/render-goldens.py: one
// definition of "same outcome" and of the strict / lenient / auto checks, shared by the suites
// over llama.cpp's templates and over the templates-dev set.
import { afterAll, describe, expect, test } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ChatTemplate, TemplateError, TemplateRuntimeError, TemplateSyntaxError } from "../../src/template/index.js";

/** A rendering's outcome: its text, or the Python exception it raised. */
export type Outcome = { output: string } | { error: { type: string; message: string } };

interface Golden {
  template: string;
  cases: Record<string, Outcome>;
}

/** The goldens of one folder: the shared contexts, the clock they used, and one file per template. */
export interface GoldenSet {
  dir: string;
  scenarios: Record<string, Record<string, unknown>>;
  /** The goldens' naive local clock, rebuilt in local time. */
  fixedNow: () => Date;
  files: string[];
}

export function loadGoldens(dir: string): GoldenSet {
  const { now, scenarios } = JSON.parse(readFileSync(join(dir, "_scenarios.json"), "utf8")) as {
    now: string;
    scenarios: Record<string, Record<string, unknown>>;
  };
  const [d, t] = now.split("T") as [string, string];
  const [y, mo, da] = d.split("-").map(Number) as [number, number, number];
  const [h, mi, s] = t.split(":").map(Number) as [number, number, number];
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json") && !f.startsWith("_"))
    .sort();
  return { dir, scenarios, fixedNow: () => new Date(y, mo - 1, da, h, mi, s), files };
}

export function renderCase(tpl: ChatTemplate | Error, context: Record<string, unknown>): Outcome {
  try {
    if (tpl instanceof Error) throw tpl;
    return { output: tpl.renderRaw(structuredClone(context)) };
  } catch (e) {
    const type =
      e instanceof TemplateError
        ? "TemplateError"
        : e instanceof TemplateRuntimeError
          ? e.pythonType
          : e instanceof TemplateSyntaxError
            ? e.pythonType
            : `JS:${(e as Error).name}`;
    return { error: { type, message: (e as Error).message } };
  }
}

/** Same output, or the same raise: same Python exception type and the same message. */
export function matches(golden: Outcome, ours: Outcome): boolean {
  if ("output" in golden) return "output" in ours && ours.output === golden.output;
  return "error" in ours && ours.error.type === golden.error.type && ours.error.message === golden.error.message;
}

/**
 * Byte-for-byte parity with the goldens in `set` for the templates in `templatesDir`, strict; then
 * lenient mode (src/template/compat.ts) only relaxes operations that raise strictly: on every
 * golden that renders under Python Jinja2 it must render byte-identically, and "auto" must give
 * exactly the golden outcome except where strict raised a relaxable error and lenient renders.
 * `label` names the set in the summary lines; the suites skip when `templatesDir` is null.
 * `lenientDiffers` names templates whose lenient rendering is known to differ where strict
 * renders, and why: they are checked to still differ (so the entry goes stale once fixed).
 */
export function paritySuites(
  label: string,
  set: GoldenSet,
  templatesDir: string | null,
  lenientDiffers: Readonly<Record<string, string>> = {},
): void {
  const read = (file: string) => {
    const golden = JSON.parse(readFileSync(join(set.dir, file), "utf8")) as Golden;
    return { golden, source: readFileSync(join(templatesDir!, golden.template), "utf8") };
  };
  let total = 0;
  let identical = 0;
  const failures: string[] = [];

  describe.skipIf(templatesDir === null)(`template parity with Python Jinja2 (${label})`, () => {
    afterAll(() => {
      console.log(`template parity (${label}): ${identical}/${total} cases identical`);
      if (failures.length) console.log(failures.join("\n"));
    });

    test.each(set.files)("%s", (file) => {
      const { golden, source } = read(file);
      let tpl: ChatTemplate | Error;
      try {
        tpl = new ChatTemplate(source, { now: set.fixedNow });
      } catch (e) {
        tpl = e as Error;
      }
      const mismatched: string[] = [];
      for (const [scenario, expected] of Object.entries(golden.cases)) {
        const ours = renderCase(tpl, set.scenarios[scenario]!);
        total++;
        if (matches(expected, ours)) identical++;
        else {
          mismatched.push(scenario);
          failures.push(`  ${golden.template} / ${scenario}: ${JSON.stringify(ours).slice(0, 300)}`);
        }
      }
      expect(mismatched).toEqual([]);
    });
  });

  let strictRenders = 0;
  let lenientSame = 0;
  let strictRaises = 0;
  let rescued = 0;

  describe.skipIf(templatesDir === null)(`lenient and auto modes keep every strict rendering (${label})`, () => {
    afterAll(() => {
      console.log(`lenient mode (${label}): ${lenientSame}/${strictRenders} strict renderings identical`);
      console.log(`auto mode (${label}): ${rescued}/${strictRaises} strict errors rendered leniently`);
    });

    test.each(set.files)("%s", (file) => {
      const { golden, source } = read(file);
      let lenient: ChatTemplate | Error;
      let auto: ChatTemplate | Error;
      try {
        lenient = new ChatTemplate(source, { now: set.fixedNow, compat: "lenient" });
        auto = new ChatTemplate(source, { now: set.fixedNow, compat: "auto" });
      } catch (e) {
        lenient = auto = e as Error;
      }
      const bad: string[] = [];
      for (const [scenario, expected] of Object.entries(golden.cases)) {
        const context = set.scenarios[scenario]!;
        const viaAuto = renderCase(auto, context);
        if ("output" in expected) {
          strictRenders++;
          if (matches(expected, renderCase(lenient, context))) lenientSame++;
          else bad.push(`lenient ${scenario}`);
          if (!matches(expected, viaAuto)) bad.push(`auto ${scenario}`);
          continue;
        }
        strictRaises++;
        const relaxable = ["SecurityError", "UndefinedError", "TypeError"].includes(expected.error.type);
        if ("output" in viaAuto) {
          if (relaxable && matches(viaAuto, renderCase(lenient, context))) rescued++;
          else bad.push(`auto rendered ${scenario} (strict: ${expected.error.type})`);
        } else if (!matches(expected, viaAuto) && !(relaxable && viaAuto.error.type === "TemplateError")) {
          bad.push(`auto ${scenario}: ${JSON.stringify(viaAuto).slice(0, 200)}`);
        }
      }
      if (golden.template in lenientDiffers) {
        expect(
          bad.some((b) => b.startsWith("lenient ")),
          `lenient renders like strict now: drop ${golden.template} from lenientDiffers`,
        ).toBe(true);
        expect(bad.filter((b) => !b.startsWith("lenient "))).toEqual([]);
      } else expect(bad).toEqual([]);
    });
  });
}
