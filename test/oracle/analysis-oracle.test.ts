// toolwright's template analysis against llama.cpp's, field by field, on all of llama.cpp's
// test templates. The expected table was recorded by llama.cpp itself (scripts/oracle/,
// scripts/record-analysis-oracle.mjs). Every field must agree, except where
// test/helpers/analysis-differences.ts lists a known difference: IMPROVEMENTS (shown to be
// better by test/unit/analysis-roundtrip.test.ts) and TAUGHT_IN_PROSE (call syntax read from the prompt's
// words), UNPROBED_REASONING (reasoning markers set by a workaround row). Templates that only render with llama.cpp's
// relaxations (LENIENT_TEMPLATES) are analysed in compat "auto" mode and must agree too.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate } from "../../src/chat/index.js";
import { FIRST_CALL, FUN_FIRST, PROBE_TOOLS, USER_TURN, assistantWithCalls } from "../../src/analysis/probes.js";
import { ChatTemplate, TemplateRuntimeError } from "../../src/template/index.js";
import {
  IMPROVEMENTS,
  LENIENT_TEMPLATES,
  TAUGHT_IN_PROSE,
  UNPROBED_REASONING,
} from "../helpers/analysis-differences.js";
import { TEMPLATES_DIR, flatten, loadOracleTable, oracleAnalysis } from "../helpers/analysis-oracle.js";

const table = loadOracleTable();
const names = Object.keys(table.templates).sort();
const source = (name: string) => readFileSync(join(TEMPLATES_DIR, name), "utf8");

/** Oracle fields (capabilities included) where the two analyses differ; toolwright-only fields are not compared. */
function differingFields(name: string): string[] {
  const ours = flatten(analyzeChatTemplate(source(name)));
  const theirs = flatten(oracleAnalysis(table.templates[name]!));
  return Object.keys(theirs).filter((field) => JSON.stringify(ours[field]) !== JSON.stringify(theirs[field]));
}

describe("analysis agrees with llama.cpp", () => {
  it("covers all of llama.cpp's test templates", () => {
    expect(names.length).toBe(70);
    expect(table.llamaCppCommit).toMatch(/^[0-9a-f]{40}$/);
    const listed = [
      ...Object.keys(IMPROVEMENTS),
      ...Object.keys(TAUGHT_IN_PROSE),
      ...Object.keys(UNPROBED_REASONING),
      ...Object.keys(LENIENT_TEMPLATES),
    ];
    for (const name of listed) expect(names).toContain(name);
  });

  it.each(names)("%s", (name) => {
    const known = IMPROVEMENTS[name] ?? TAUGHT_IN_PROSE[name] ?? UNPROBED_REASONING[name];
    // A listed difference that no longer differs is stale: the table must be updated.
    expect(differingFields(name).sort()).toEqual([...(known?.fields ?? [])].sort());
  });
});

describe("templates that need llama.cpp's leniency", () => {
  const context = () => ({
    messages: [USER_TURN, assistantWithCalls([FIRST_CALL])],
    tools: PROBE_TOOLS,
    enable_thinking: true,
  });

  it.each(Object.entries(LENIENT_TEMPLATES))(
    "%s raises on the tool-call probe strictly, renders in auto mode",
    (name, { strictRaises }) => {
      let error: unknown;
      try {
        new ChatTemplate(source(name)).renderRaw(context());
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TemplateRuntimeError);
      expect((error as TemplateRuntimeError).pythonType).toBe(strictRaises);
      const out = new ChatTemplate(source(name), { compat: "auto" }).renderRawWithMode(context());
      expect(out.mode).toBe("lenient");
      expect(out.text).toContain(FUN_FIRST);
    },
  );

  it.each(names)("%s: renderMode is lenient exactly for the listed templates", (name) => {
    expect(analyzeChatTemplate(source(name)).renderMode).toBe(name in LENIENT_TEMPLATES ? "lenient" : "strict");
  });

  it("a strict template analyses the way it renders: the leniency-only parts stay unanalysed", () => {
    const name = "llama-cpp-deepseek-r1.jinja";
    const strict = analyzeChatTemplate(source(name), { template: new ChatTemplate(source(name)) });
    expect(strict.renderMode).toBe("strict");
    expect(strict.tools.format.mode).toBe("NONE");
    expect(analyzeChatTemplate(source(name)).tools.format.mode).toBe("TAG_WITH_JSON");
  });
});

describe("dedicated handlers are recognised like llama.cpp's", () => {
  it.each(names)("%s", (name) => {
    expect(analyzeChatTemplate(source(name)).dedicatedHandler !== null).toBe(table.templates[name]!.specialized);
  });
});
