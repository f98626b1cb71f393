/**
 * Byte-for-byte parity with Python Jinja2 on the templates-dev set (public chat templates from
 * outside llama.cpp's test set, in the shared data), strict, lenient and auto. Goldens:
 * `python3 scripts/render-goldens.py ../shared/templates-dev test/fixtures/template-goldens-dev`.
 */
import { describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { sharedData } from "../helpers/shared-data.js";
import { loadGoldens, paritySuites } from "../helpers/template-parity.js";

const TEMPLATES = sharedData("templates-dev");
const goldens = loadGoldens(join(import.meta.dirname, "../fixtures/template-goldens-dev"));

describe.skipIf(TEMPLATES === null)("templates-dev goldens", () => {
  // A template added to the set without goldens would go untested.
  it("cover every template of the set", () => {
    const templates = readdirSync(TEMPLATES!)
      .filter((f) => f.endsWith(".jinja"))
      .sort();
    expect(goldens.files.map((f) => f.replace(/\.json$/, ".jinja"))).toEqual(templates);
  });
});

/** Lenient renderings known to differ where strict renders: none (lenient only relaxes what strict raises). */
const LENIENT_DIFFERS: Record<string, string> = {};

paritySuites("templates-dev", goldens, TEMPLATES, LENIENT_DIFFERS);
