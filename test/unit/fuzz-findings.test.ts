// Inputs `npm run fuzz` found (CONTRIBUTING.md, "Fuzzing"), each kept as a case of what must hold
// for it. Table-driven: one row per finding, named after the target that found it.
import { describe, expect, it } from "vitest";
import { compileGbnf, jsonSchemaToGbnf, matchGbnf, SchemaError } from "../../src/grammar/index.js";

describe("json-schema target: patterns with an empty class ([] matches no character)", () => {
  it.each([
    // The finding: `[]` inside an optional group of an anchored pattern threw a RangeError from the GBNF printer.
    { pattern: "^[a-z]+(-0[]-\ufffd9\ufffd{\u02c3)?$", accepts: ["ab"], rejects: ["ab-0", ""] },
    { pattern: "^(a|[])$", accepts: ["a"], rejects: ["", "b"] },
    { pattern: "^x[]*$", accepts: ["x"], rejects: ["xx", ""] },
    { pattern: "^b[]?c$", accepts: ["bc"], rejects: ["b"] },
  ])("$pattern", ({ pattern, accepts, rejects }) => {
    const gbnf = jsonSchemaToGbnf({ type: "string", pattern });
    compileGbnf(gbnf);
    for (const s of accepts) expect(matchGbnf(gbnf, JSON.stringify(s)).ok, s).toBe(true);
    for (const s of rejects) expect(matchGbnf(gbnf, JSON.stringify(s)).ok, s).toBe(false);
  });

  it("a pattern that matches nothing at all is a SchemaError", () => {
    expect(() => jsonSchemaToGbnf({ type: "string", pattern: "^a[]$" })).toThrow(SchemaError);
  });
});
