// toolwright's template analysis against llama.cpp's, field by field, on all of llama.cpp's
// test templates. The expected table was recorded by llama.cpp itself (scripts/oracle/,
// scripts/record-analysis-oracle.mjs). Every field must agree, except where
// test/helpers/analysis-differences.ts lists a known difference: IMPROVEMENTS (shown to be
// better by test/analysis-roundtrip.test.ts) and RENDERER_LIMITATIONS (checked below).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeTemplate } from "../src/analysis/index.js";
import { FIRST_CALL, PROBE_TOOLS, USER_TURN, assistantWithCalls } from "../src/analysis/probes.js";
import { ChatTemplate } from "../src/template/index.js";
import { IMPROVEMENTS, RENDERER_LIMITATIONS } from "./helpers/analysis-differences.js";
import { TEMPLATES_DIR, flatten, loadOracleTable, oracleAnalysis } from "./helpers/analysis-oracle.js";

const table = loadOracleTable();
const names = Object.keys(table.templates).sort();
const source = (name: string) => readFileSync(join(TEMPLATES_DIR, name), "utf8");

/** Oracle fields (capabilities included) where the two analyses differ; toolwright-only fields are not compared. */
function differingFields(name: string): string[] {
  const ours = flatten(analyzeTemplate(source(name)));
  const theirs = flatten(oracleAnalysis(table.templates[name]!));
  return Object.keys(theirs).filter((field) => JSON.stringify(ours[field]) !== JSON.stringify(theirs[field]));
}

describe("analysis agrees with llama.cpp", () => {
  it("covers all of llama.cpp's test templates", () => {
    expect(names.length).toBe(70);
    expect(table.llamaCppCommit).toMatch(/^[0-9a-f]{40}$/);
    for (const name of [...Object.keys(IMPROVEMENTS), ...Object.keys(RENDERER_LIMITATIONS)]) expect(names).toContain(name);
  });

  it.each(names)("%s", (name) => {
    const known = IMPROVEMENTS[name] ?? RENDERER_LIMITATIONS[name];
    // A listed difference that no longer differs is stale: the table must be updated.
    expect(differingFields(name).sort()).toEqual([...(known?.fields ?? [])].sort());
  });
});

describe("renderer limitations are real", () => {
  it.each(Object.keys(RENDERER_LIMITATIONS))("%s raises on the tool-call probe under Python Jinja2 semantics", (name) => {
    const template = new ChatTemplate(source(name));
    const context = { messages: [USER_TURN, assistantWithCalls([FIRST_CALL])], tools: PROBE_TOOLS, enable_thinking: true };
    expect(() => template.renderRaw(context)).toThrow();
  });
});

describe("dedicated handlers are recognised like llama.cpp's", () => {
  it.each(names)("%s", (name) => {
    expect(analyzeTemplate(source(name)).dedicatedHandler !== null).toBe(table.templates[name]!.specialized);
  });
});
