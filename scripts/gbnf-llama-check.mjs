#!/usr/bin/env node
// Cross-checks our JSON Schema grammars against llama.cpp itself: every grammar must be accepted
// by llama.cpp's GBNF parser, and llama.cpp's matcher must agree with ours on every MaskBench
// instance. Builds a small reference program (scripts/gbnf-oracle/oracle.cpp) against the static
// llama.cpp libraries in build/ (run `npm run build:native` first).
//
//   node scripts/gbnf-llama-check.mjs [--sample N] [--any-order] [--lib DIR]
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { sharedDir } from "./lib/shared-dir.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const lib = resolve(opt("--lib", join(root, "lib")));
const sample = Number(opt("--sample", "0"));
const dir = join(sharedDir(), "maskbench-dev");
const options = args.includes("--any-order") ? { propertyOrder: "any" } : {};

const llama = join(root, "build/llama.cpp");
const libs = ["src/libllama.a", "ggml/src/libggml.a", "ggml/src/libggml-cpu.a", "ggml/src/libggml-base.a"].map((l) =>
  join(llama, l),
);
const missing = libs.filter((l) => !existsSync(l));
if (missing.length) {
  console.error(`llama.cpp static libraries not found (${missing.join(", ")}); build them first`);
  process.exit(2);
}
const bin = join(root, ".cache/gbnf-oracle/oracle");
if (!existsSync(bin)) {
  mkdirSync(dirname(bin), { recursive: true });
  const inc = ["include", "ggml/include", "src"].map((d) => `-I${join(root, "deps/llama.cpp", d)}`);
  execFileSync(
    "g++",
    [
      "-std=c++17",
      "-O1",
      ...inc,
      join(root, "scripts/gbnf-oracle/oracle.cpp"),
      ...libs,
      "-lpthread",
      "-fopenmp",
      "-o",
      bin,
    ],
    { stdio: "inherit" },
  );
}

const { jsonSchemaToGbnf, compileGbnf, GbnfMatcher } = await import(pathToFileURL(join(lib, "grammar/index.js")).href);
const { parseCoverageCase } = await import(pathToFileURL(join(lib, "grammar/schema/coverage.js")).href);
let files = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort();
if (sample > 0) files = files.filter((_, i) => i % Math.max(1, Math.floor(files.length / sample)) === 0);

const chunks = [];
const expected = [];
const record = (kind, text) => {
  const b = Buffer.from(text, "utf8");
  chunks.push(Buffer.from(`${kind} ${b.length}\n`), b);
};
for (const f of files) {
  const c = parseCoverageCase(f, readFileSync(join(dir, f), "utf8"));
  let grammar;
  try {
    grammar = jsonSchemaToGbnf(c.schema, options);
  } catch {
    continue; // SchemaError: nothing to compare
  }
  const compiled = compileGbnf(grammar);
  record("G", grammar);
  expected.push({ f });
  for (const t of c.tests) {
    const m = new GbnfMatcher(compiled);
    record("I", t.text);
    expected.push({ f, ours: m.accept(t.text) && m.isComplete, text: t.text });
  }
}
const run = spawnSync(bin, { input: Buffer.concat(chunks), maxBuffer: 1 << 28 });
const lines = run.stdout.toString().trim().split("\n");
let rejected = 0;
let disagreements = 0;
let instances = 0;
lines.forEach((line, i) => {
  const e = expected[i];
  if (!("ours" in e)) {
    if (line !== "G ok") rejected++, console.log(`llama.cpp rejects the grammar of ${e.f}`);
    return;
  }
  if (line === "I skip") return;
  instances++;
  if ((line === "I 1") !== e.ours) {
    disagreements++;
    console.log(
      `disagreement on ${e.f}: ours ${e.ours}, llama.cpp ${!e.ours}: ${JSON.stringify(e.text.slice(0, 100))}`,
    );
  }
});
console.log(
  `grammars: ${files.length} checked, ${rejected} rejected by llama.cpp; instances: ${instances}, ` +
    `${disagreements} disagreements`,
);
process.exit(rejected || disagreements || lines.length !== expected.length ? 1 : 0);
