/**
 * Byte-for-byte parity with Python Jinja2 (set up as transformers sets it up) on every llama.cpp
 * test template x scenario. Goldens come from scripts/render-goldens.py.
 */
import { afterAll, describe, expect, test } from "vitest";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ChatTemplate, TemplateError, TemplateRuntimeError, TemplateSyntaxError } from "../src/template/index.js";

const GOLDENS = join(import.meta.dirname, "fixtures/template-goldens");
const TEMPLATES = join(import.meta.dirname, "../deps/llama.cpp/models/templates");

interface Golden {
  template: string;
  cases: Record<string, { output: string } | { error: { type: string; message: string } }>;
}

const { now, scenarios } = JSON.parse(readFileSync(join(GOLDENS, "_scenarios.json"), "utf8")) as {
  now: string;
  scenarios: Record<string, Record<string, unknown>>;
};
// The goldens' naive local clock, rebuilt in local time here.
const [d, t] = now.split("T") as [string, string];
const [y, mo, da] = d.split("-").map(Number) as [number, number, number];
const [h, mi, s] = t.split(":").map(Number) as [number, number, number];
const fixedNow = () => new Date(y, mo - 1, da, h, mi, s);

const goldenFiles = readdirSync(GOLDENS)
  .filter((f) => f.endsWith(".json") && !f.startsWith("_"))
  .sort();

type Outcome = { output: string } | { error: { type: string; message: string } };

function renderCase(tpl: ChatTemplate | Error, context: Record<string, unknown>): Outcome {
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
function matches(golden: Outcome, ours: Outcome): boolean {
  if ("output" in golden) return "output" in ours && ours.output === golden.output;
  return "error" in ours && ours.error.type === golden.error.type && ours.error.message === golden.error.message;
}

let total = 0;
let identical = 0;
const failures: string[] = [];

describe.skipIf(!existsSync(TEMPLATES))("template parity with Python Jinja2", () => {
  afterAll(() => {
    console.log(`template parity: ${identical}/${total} cases identical`);
    if (failures.length) console.log(failures.join("\n"));
  });

  test.each(goldenFiles)("%s", (file) => {
    const golden = JSON.parse(readFileSync(join(GOLDENS, file), "utf8")) as Golden;
    const source = readFileSync(join(TEMPLATES, golden.template), "utf8");
    let tpl: ChatTemplate | Error;
    try {
      tpl = new ChatTemplate(source, { now: fixedNow });
    } catch (e) {
      tpl = e as Error;
    }
    const mismatched: string[] = [];
    for (const [scenario, expected] of Object.entries(golden.cases)) {
      const ours = renderCase(tpl, scenarios[scenario]!);
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

// Lenient mode (src/template/compat.ts) only relaxes operations that raise strictly: on every
// golden that renders under Python Jinja2 it must render byte-identically, and "auto" must give
// exactly the golden outcome except where strict raised a relaxable error and lenient renders.
let strictRenders = 0;
let lenientSame = 0;
let strictRaises = 0;
let rescued = 0;

describe.skipIf(!existsSync(TEMPLATES))("lenient and auto modes keep every strict rendering", () => {
  afterAll(() => {
    console.log(`lenient mode: ${lenientSame}/${strictRenders} strict renderings identical`);
    console.log(`auto mode: ${rescued}/${strictRaises} strict errors rendered leniently`);
  });

  test.each(goldenFiles)("%s", (file) => {
    const golden = JSON.parse(readFileSync(join(GOLDENS, file), "utf8")) as Golden;
    const source = readFileSync(join(TEMPLATES, golden.template), "utf8");
    let lenient: ChatTemplate | Error;
    let auto: ChatTemplate | Error;
    try {
      lenient = new ChatTemplate(source, { now: fixedNow, compat: "lenient" });
      auto = new ChatTemplate(source, { now: fixedNow, compat: "auto" });
    } catch (e) {
      lenient = auto = e as Error;
    }
    const bad: string[] = [];
    for (const [scenario, expected] of Object.entries(golden.cases)) {
      const context = scenarios[scenario]!;
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
    expect(bad).toEqual([]);
  });
});

// Optional random-conversation check: TEMPLATE_FUZZ=file from scripts/template-fuzz.py.
const fuzzFile = process.env.TEMPLATE_FUZZ;
describe.skipIf(!fuzzFile || !existsSync(TEMPLATES))("random conversations vs Python Jinja2", () => {
  test("every case identical", () => {
    const fuzz = JSON.parse(readFileSync(fuzzFile!, "utf8")) as {
      contexts: Record<string, unknown>[];
      cases: ({ template: string; context: number } & Outcome)[];
    };
    const cache = new Map<string, [ChatTemplate, ChatTemplate]>();
    const bad: string[] = [];
    for (const c of fuzz.cases) {
      let pair = cache.get(c.template);
      if (!pair) {
        const src = readFileSync(join(TEMPLATES, c.template), "utf8");
        pair = [new ChatTemplate(src, { now: fixedNow }), new ChatTemplate(src, { now: fixedNow, compat: "lenient" })];
        cache.set(c.template, pair);
      }
      const ours = renderCase(pair[0], fuzz.contexts[c.context]!);
      if (!matches(c, ours)) bad.push(`${c.template} / context ${c.context}: ${JSON.stringify(ours).slice(0, 200)}`);
      // Lenient mode must not change what renders strictly (compat.ts).
      if ("output" in c && !matches(c, renderCase(pair[1], fuzz.contexts[c.context]!))) {
        bad.push(`lenient ${c.template} / context ${c.context}`);
      }
    }
    console.log(`random conversations: ${fuzz.cases.length - bad.length}/${fuzz.cases.length} identical`);
    expect(bad).toEqual([]);
  });
});

