#!/usr/bin/env node
// MaskBench schema coverage of the JSON Schema → GBNF converter: for every schema, its grammar
// must accept each valid instance and reject each invalid one (json.dumps text, char by char).
// Prints the pass rate and the failure reasons grouped.
//
//   node scripts/schema-coverage.mjs [--dir DIR] [--sample N] [--list REASON-SUBSTRING] [--lib DIR]
//                                    [--order any|schema|required-first|all] [--any-order]
//
// --order all (the default) prints the full report at the converter's default property order and
// the pass rate under each of the three orders.
//
// Needs the compiled library (`npm run build:ts`); --lib points elsewhere (e.g. a private tsc outDir).
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { sharedDir } from "./lib/shared-dir.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const dir = opt("--dir", join(sharedDir(), "maskbench-dev"));
const sample = Number(opt("--sample", "0"));
const list = opt("--list", null);
const lib = resolve(opt("--lib", join(root, "lib")));
const orderArg = args.includes("--any-order") ? "any" : opt("--order", "all");
if (!["any", "schema", "required-first", "all"].includes(orderArg))
  throw new RangeError(`--order must be any, schema, required-first or all, got ${orderArg}`);

const { parseCoverageCase, checkCoverageCase, summarizeCoverage } = await import(
  pathToFileURL(join(lib, "grammar/schema/coverage.js")).href
);
const { DEFAULT_PROPERTY_ORDER } = await import(pathToFileURL(join(lib, "grammar/schema/schema-to-gbnf.js")).href);
const mainOrder = orderArg === "all" ? DEFAULT_PROPERTY_ORDER : orderArg;
const options = { propertyOrder: mainOrder };

let files = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort();
if (sample > 0) {
  const step = files.length / sample;
  files = Array.from({ length: Math.min(sample, files.length) }, (_, i) => files[Math.floor(i * step)]);
}

const started = Date.now();
const cases = files.map((f) => parseCoverageCase(f, readFileSync(join(dir, f), "utf8")));
const outcomes = cases.map((c) => checkCoverageCase(c, options));
const { passed, total, reasons } = summarizeCoverage(outcomes);
const pct = ((100 * passed) / total).toFixed(1);
const isDefault = mainOrder === DEFAULT_PROPERTY_ORDER ? ", the default" : "";
console.log(
  `schema coverage (propertyOrder: ${mainOrder}${isDefault}): ${passed}/${total} = ${pct}% ` +
    `(${((Date.now() - started) / 1000).toFixed(1)} s)`,
);
if (orderArg === "all") {
  for (const order of ["schema", "required-first", "any"].filter((o) => o !== mainOrder)) {
    const s = summarizeCoverage(cases.map((c) => checkCoverageCase(c, { propertyOrder: order })));
    console.log(
      `schema coverage (propertyOrder: ${order}): ${s.passed}/${s.total} = ${((100 * s.passed) / s.total).toFixed(1)}%`,
    );
  }
}
console.log("reference: llama.cpp json-schema-to-grammar 57%, LLGuidance 79% (published MaskBench figures)");
console.log("\nfailure reasons:");
for (const [reason, n] of reasons) console.log(`${String(n).padStart(5)}  ${reason}`);
if (list !== null) {
  console.log(`\nschemas failing with "${list}":`);
  for (const o of outcomes)
    if (!o.pass && o.reason?.includes(list))
      console.log(`  ${o.name}  (${o.falseRejects} rejects, ${o.falseAccepts} accepts)`);
}
