// Every format the analysis flags for a dedicated handler has one, or is listed in
// GENERIC_HANDLES with why the generic analysis handles it, and then round trips through it:
// a flag with neither is a failing test, not a silent fallback to the generic generator.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate, generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import { GENERIC_HANDLES, dedicatedHandler } from "../../src/chat/dedicated/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";
import {
  SCENARIOS,
  TOOLS,
  USER,
  generatedPart,
  messageDifferences,
  type TemplateCase,
} from "../helpers/chat-roundtrip.js";
import { sharedData } from "../helpers/shared-data.js";

/**
 * Flagged templates the generic generator does not round trip yet, and why. Checked to still
 * fail, so an entry goes stale once it works.
 */
const GENERIC_FAILS: Record<string, string> = {};

const dirs = [TEMPLATES_DIR, sharedData("templates-dev")].filter((d): d is string => d !== null);
const flagged: TemplateCase[] = dirs.flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".jinja"))
    .sort()
    .flatMap((name) => {
      const source = readFileSync(join(dir, name), "utf8");
      const template = new ChatTemplate(source, { compat: "auto" });
      const analysis = analyzeChatTemplate(source, { template });
      return analysis.dedicatedHandler === null ? [] : [{ name, source, template, analysis }];
    }),
);

const generic = flagged.filter(
  (t) => dedicatedHandler(t.analysis.dedicatedHandler) === null && t.template.caps.supportsToolCalls,
);
const oneCall = SCENARIOS.find((s) => s.name === "one call")!;

function oneCallProblems(t: TemplateCase): string[] {
  const params = generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS });
  const g = generatedPart(t, oneCall, params);
  if ("error" in g) return [g.error];
  return messageDifferences(oneCall.message, parseChatOutput(params, g.output), g.output);
}

describe("formats flagged for a dedicated handler", () => {
  it("some are flagged", () => expect(flagged.length).toBeGreaterThan(10));

  it.each(flagged.map((t) => ({ label: `${t.name} (${t.analysis.dedicatedHandler})`, t })))(
    "$label has a handler or a documented generic one",
    ({ t }) => {
      const name = t.analysis.dedicatedHandler!;
      expect(
        dedicatedHandler(name) !== null || name in GENERIC_HANDLES,
        `flagged ${name}: no dedicated handler and not in GENERIC_HANDLES`,
      ).toBe(true);
    },
  );

  it.each(generic.filter((t) => !(t.name in GENERIC_FAILS)).map((t) => ({ label: t.name, t })))(
    "the generic generator round trips $label",
    ({ t }) => {
      expect(oneCallProblems(t)).toEqual([]);
    },
  );

  it.each(Object.keys(GENERIC_FAILS).filter((n) => generic.some((t) => t.name === n)))(
    "%s still fails (else drop it from GENERIC_FAILS)",
    (name) => {
      expect(oneCallProblems(generic.find((t) => t.name === name)!)).not.toEqual([]);
    },
  );

  it("every listed generic format is flagged somewhere and no format is both", () => {
    for (const name of Object.keys(GENERIC_HANDLES)) {
      expect(dedicatedHandler(name as never), name).toBeNull();
      expect(
        flagged.some((t) => t.analysis.dedicatedHandler === name),
        name,
      ).toBe(true);
    }
  });
});
