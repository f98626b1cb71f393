/**
 * MaskBench-style coverage: a schema passes when its grammar accepts every valid instance and
 * rejects every invalid one, each instance written as Python's `json.dumps(data,
 * ensure_ascii=False)` and fed to the GBNF matcher character by character.
 */
import { compileGbnf } from "../gbnf-compile.js";
import { GbnfMatchLimitError, GbnfMatcher } from "../gbnf-match.js";
import { GbnfSyntaxError } from "../gbnf-parse.js";
import { type PyJson, dumpsPython, parsePyJson, pyJsonToJs } from "../python-json.js";
import { RESTRICTION_KINDS, type RelaxationKind, SchemaError } from "./schema-error.js";
import { type SchemaToGbnfOptions, jsonSchemaToGbnf } from "./schema-to-gbnf.js";

/** One MaskBench file: a schema and its labelled instances. */
export interface CoverageCase {
  name: string;
  schema: unknown;
  tests: { description: string; valid: boolean; text: string }[];
}

/** The outcome for one schema. */
export interface CoverageOutcome {
  name: string;
  pass: boolean;
  /** A short, groupable reason when it failed. */
  reason: string | null;
  /** Relaxations the converter applied. */
  relaxations: RelaxationKind[];
  falseRejects: number;
  falseAccepts: number;
  /** Grammar size in characters (0 when conversion failed). */
  grammarChars: number;
}

function field(o: PyJson, key: string): PyJson | undefined {
  return o.kind === "object" ? o.entries.find(([k]) => k === key)?.[1] : undefined;
}

/**
 * Reads a MaskBench file (`{"description","meta","schema","tests":[{"description","data","valid"}]}`).
 *
 * @example
 * const c = parseCoverageCase("x.json", fs.readFileSync("x.json", "utf8"));
 */
export function parseCoverageCase(name: string, text: string): CoverageCase {
  const doc = parsePyJson(text);
  const schema = field(doc, "schema");
  const tests = field(doc, "tests");
  if (schema === undefined || tests?.kind !== "array")
    throw new TypeError(`${name}: not a MaskBench file (needs "schema" and "tests")`);
  return {
    name,
    schema: pyJsonToJs(schema),
    tests: tests.items.map((t) => {
      const data = field(t, "data");
      const valid = field(t, "valid");
      const desc = field(t, "description");
      if (data === undefined || valid?.kind !== "bool") throw new TypeError(`${name}: a test lacks "data" or "valid"`);
      return { description: desc?.kind === "string" ? desc.value : "", valid: valid.value, text: dumpsPython(data) };
    }),
  };
}

/**
 * Converts the schema and checks every instance.
 *
 * @example
 * checkCoverageCase(parseCoverageCase(name, text)).pass;
 */
export function checkCoverageCase(c: CoverageCase, options: SchemaToGbnfOptions = {}): CoverageOutcome {
  const relaxations = new Set<RelaxationKind>();
  const out = (pass: boolean, reason: string | null, fr = 0, fa = 0, chars = 0): CoverageOutcome => ({
    name: c.name,
    pass,
    reason,
    relaxations: [...relaxations],
    falseRejects: fr,
    falseAccepts: fa,
    grammarChars: chars,
  });
  let grammar: string;
  try {
    grammar = jsonSchemaToGbnf(c.schema as never, { ...options, onRelaxation: (r) => relaxations.add(r.kind) });
  } catch (e) {
    if (e instanceof SchemaError)
      return out(false, `SchemaError (${e.keyword}): ${e.message.replace(/^.*?: /, "").slice(0, 60)}`);
    return out(false, `converter crash: ${(e as Error).message.slice(0, 80)}`);
  }
  let compiled;
  try {
    compiled = compileGbnf(grammar);
  } catch (e) {
    if (e instanceof GbnfSyntaxError)
      return out(false, `invalid GBNF: ${e.message.slice(0, 80)}`, 0, 0, grammar.length);
    throw e;
  }
  let falseRejects = 0;
  let falseAccepts = 0;
  for (const t of c.tests) {
    let accepted: boolean;
    try {
      const m = new GbnfMatcher(compiled);
      accepted = m.accept(t.text) && m.isComplete;
    } catch (e) {
      if (e instanceof GbnfMatchLimitError)
        return out(false, "matcher limit (ambiguous grammar)", 0, 0, grammar.length);
      throw e;
    }
    if (accepted && !t.valid) falseAccepts++;
    if (!accepted && t.valid) falseRejects++;
  }
  if (falseRejects === 0 && falseAccepts === 0) return out(true, null, 0, 0, grammar.length);
  // Restrictions only ever reject; they cannot explain an accepted invalid instance.
  // duplicateKeys cannot explain one either: instances come from dicts, whose keys are unique.
  const supersets = [...relaxations].filter((k) => !RESTRICTION_KINDS.has(k) && k !== "duplicateKeys").sort();
  let reason =
    falseRejects > 0
      ? "rejects a valid instance"
      : `accepts an invalid instance${supersets.length ? ` [${supersets.join(", ")}]` : ""}`;
  if (
    falseRejects > 0 &&
    options.propertyOrder !== "any" &&
    checkCoverageCase(c, { ...options, propertyOrder: "any" }).falseRejects === 0
  ) {
    reason = "rejects a valid instance: keys not in `properties` order (passes with propertyOrder any)";
  }
  return out(false, reason, falseRejects, falseAccepts, grammar.length);
}

/**
 * Pass rate and failure reasons grouped, most frequent first.
 *
 * @example
 * const { passed, total, reasons } = summarizeCoverage(outcomes);
 */
export function summarizeCoverage(outcomes: readonly CoverageOutcome[]): {
  passed: number;
  total: number;
  reasons: [string, number][];
} {
  const reasons = new Map<string, number>();
  for (const o of outcomes) if (!o.pass && o.reason) reasons.set(o.reason, (reasons.get(o.reason) ?? 0) + 1);
  return {
    passed: outcomes.filter((o) => o.pass).length,
    total: outcomes.length,
    reasons: [...reasons].sort((a, b) => b[1] - a[1]),
  };
}
