#!/usr/bin/env node
// Checks that no line of our tracked TypeScript/JavaScript (src/, test/, scripts/, examples/, fuzz/) is longer
// than 120 columns. Biome's lineWidth is 120 but it leaves long strings, comments and regexes as they
// are; this catches those. Data fixtures under test/fixtures/ are exempt. Columns are code points, so
// "→" counts one. Exits 1 listing file:line: columns for each offender.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const MAX = 120;
const DIRS = ["src", "test", "scripts", "examples", "fuzz"];
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;

/** Tracked files (git ls-files), so build outputs and symlinked dependencies are never read. */
function trackedSources() {
  const out = execFileSync("git", ["ls-files", "-z", "--", ...DIRS], { cwd: ROOT, encoding: "utf8" });
  return out.split("\0").filter((f) => SOURCE.test(f) && !f.startsWith("test/fixtures/"));
}

/** `file:line: columns` for each line longer than MAX. */
function longLines(file) {
  const found = [];
  readFileSync(join(ROOT, file), "utf8")
    .split(/\r?\n/)
    .forEach((line, i) => {
      const columns = [...line].length;
      if (columns > MAX) found.push(`${file}:${i + 1}: ${columns} columns`);
    });
  return found;
}

const files = trackedSources();
const offenders = files.flatMap(longLines);
if (offenders.length > 0) {
  for (const o of offenders) console.error(o);
  console.error(`lint-lines: ${offenders.length} lines longer than ${MAX} columns; break them by hand`);
  process.exit(1);
}
console.log(`lint-lines: ${files.length} files, no line over ${MAX} columns`);
