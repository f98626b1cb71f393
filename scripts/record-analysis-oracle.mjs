#!/usr/bin/env node
// Records llama.cpp's template analysis of every deps/llama.cpp/models/templates/*.jinja into
// test/fixtures/analysis-oracle.json, the expected table for test/oracle/analysis-oracle.test.ts.
//
// Needs the oracle binary (CI does not; the JSON is committed):
//   cmake -S scripts/oracle -B build-oracle
//   flock /tmp/toolwright-build.lock cmake --build build-oracle --target analysis-oracle -j 2
//   node scripts/record-analysis-oracle.mjs
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const oracle = join(root, "build-oracle", "analysis-oracle");
const templatesDir = join(root, "deps", "llama.cpp", "models", "templates");
const output = join(root, "test", "fixtures", "analysis-oracle.json");

if (!existsSync(oracle)) {
  console.error(`oracle not built: ${oracle}\nsee the build commands at the top of this script`);
  process.exit(1);
}
const source = JSON.parse(readFileSync(join(root, "llama-source.json"), "utf8"));

const templates = {};
const names = readdirSync(templatesDir)
  .filter((f) => f.endsWith(".jinja"))
  .sort();
for (const name of names) {
  // One process per template: a crash in llama.cpp on one template must not lose the others.
  let line;
  try {
    line = execFileSync(oracle, [join(templatesDir, name)], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  } catch (e) {
    templates[name] = { error: `oracle crashed: ${e.status ?? e.signal}` };
    console.log(`${name}: oracle crashed`);
    continue;
  }
  const record = JSON.parse(line);
  delete record.file;
  templates[name] = record;
  const a = record.analysis;
  console.log(
    `${name}: ` +
      `${record.error ?? `${a.reasoning.mode} / ${a.content.mode} / ${a.tools.format.mode}`}` +
      `${record.specialized ? " (dedicated)" : ""}`,
  );
}

const table = {
  description:
    "llama.cpp's differential template analysis of its own models/templates, recorded by " +
    "scripts/record-analysis-oracle.mjs",
  llamaCppCommit: source.commit,
  bosToken: "",
  eosToken: "",
  templates,
};
writeFileSync(output, JSON.stringify(table, null, 1) + "\n");
console.log(`wrote ${Object.keys(templates).length} templates to ${output}`);
