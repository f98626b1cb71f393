// toolwright's template analysis against llama.cpp's, field by field, on all of llama.cpp's
// test templates. The expected table was recorded by llama.cpp itself (scripts/oracle/,
// scripts/record-analysis-oracle.mjs). Every field must agree, except where IMPROVEMENTS
// lists a deliberate difference; test/analysis-roundtrip.test.ts shows why each one is better.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeTemplate } from "../src/analysis/index.js";
import { CAPS_KEYS, TEMPLATES_DIR, flatten, loadOracleTable, oracleAnalysis } from "./helpers/analysis-oracle.js";
import { IMPROVEMENTS } from "./helpers/analysis-improvements.js";

const table = loadOracleTable();
const names = Object.keys(table.templates).sort();
const source = (name: string) => readFileSync(join(TEMPLATES_DIR, name), "utf8");

interface Mismatch {
  field: string;
  llamaCpp: unknown;
  toolwright: unknown;
}

/** Fields where the two analyses differ (oracle fields only; toolwright additions ignored). */
function mismatches(name: string): Mismatch[] {
  const ours = flatten(analyzeTemplate(source(name)));
  const theirs = flatten(oracleAnalysis(table.templates[name]!));
  const out: Mismatch[] = [];
  for (const [field, expected] of Object.entries(theirs)) {
    if (JSON.stringify(ours[field]) !== JSON.stringify(expected)) out.push({ field, llamaCpp: expected, toolwright: ours[field] });
  }
  return out;
}

describe("analysis agrees with llama.cpp", () => {
  it("covers all of llama.cpp's test templates", () => {
    expect(names.length).toBe(70);
    expect(table.llamaCppCommit).toMatch(/^[0-9a-f]{40}$/);
  });

  it.each(names)("%s", (name) => {
    const improved = IMPROVEMENTS[name];
    const diff = mismatches(name);
    const unexplained = diff.filter((m) => !improved?.fields.includes(m.field));
    expect(unexplained).toEqual([]);
    if (improved) {
      // An improvement that no longer differs is stale: remove it from the table.
      expect(diff.map((m) => m.field).sort()).toEqual([...improved.fields].sort());
    }
  });
});

describe("dedicated handlers are recognised like llama.cpp's", () => {
  it.each(names)("%s", (name) => {
    const analysis = analyzeTemplate(source(name));
    expect(analysis.dedicatedHandler !== null).toBe(table.templates[name]!.specialized);
  });
});

describe("template capabilities agree with llama.cpp's probes", () => {
  it.each(names)("%s", (name) => {
    const caps = analyzeTemplate(source(name)).caps as unknown as Record<string, boolean>;
    const expected = table.templates[name]!.caps;
    const differing = Object.entries(CAPS_KEYS)
      .filter(([theirs, ours]) => caps[ours] !== expected[theirs])
      .map(([theirs, ours]) => `${ours}: llama.cpp ${expected[theirs]}, toolwright ${caps[ours]}`);
    expect(differing).toEqual([]);
  });
});
