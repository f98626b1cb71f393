/**
 * Byte-for-byte parity with Python Jinja2 (set up as transformers sets it up) on every llama.cpp
 * test template x scenario. Goldens come from scripts/render-goldens.py.
 */
import { describe, expect, test } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ChatTemplate } from "../../src/template/index.js";
import { loadGoldens, matches, paritySuites, renderCase, type Outcome } from "../helpers/template-parity.js";

const GOLDENS = join(import.meta.dirname, "../fixtures/template-goldens");
const TEMPLATES = join(import.meta.dirname, "../../deps/llama.cpp/models/templates");
const goldens = loadGoldens(GOLDENS);
const fixedNow = goldens.fixedNow;

paritySuites("llama.cpp templates", goldens, existsSync(TEMPLATES) ? TEMPLATES : null);

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
